package io.etcdoperator.sandbox.api;

import java.util.Arrays;
import java.util.List;

/**
 * A request path of the Kubernetes API taken apart: {@code /api/v1/namespaces/ns/pods/name/status}
 * or {@code /apis/group/version/...}. Query strings are dropped.
 *
 * @param group API group ("" for core)
 * @param version API version
 * @param namespace namespace or null
 * @param plural resource or null (a discovery path)
 * @param name object name or null (a collection)
 * @param subresource subresource or null
 */
public record ApiPath(
    String group,
    String version,
    String namespace,
    String plural,
    String name,
    String subresource) {

  /** Parses a path, or returns null when it is not an API path. */
  public static ApiPath parse(String rawPath) {
    String path = rawPath;
    int q = path.indexOf('?');
    if (q >= 0) {
      path = path.substring(0, q);
    }
    List<String> parts = Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList();
    if (parts.isEmpty()) {
      return null;
    }
    int i;
    String group;
    String version;
    if (parts.get(0).equals("api") && parts.size() >= 2) {
      group = "";
      version = parts.get(1);
      i = 2;
    } else if (parts.get(0).equals("apis") && parts.size() >= 3) {
      group = parts.get(1);
      version = parts.get(2);
      i = 3;
    } else {
      return null;
    }
    String namespace = null;
    if (parts.size() >= i + 3 && parts.get(i).equals("namespaces")) {
      namespace = parts.get(i + 1);
      i += 2;
    }
    String plural = parts.size() > i ? parts.get(i) : null;
    String name = parts.size() > i + 1 ? parts.get(i + 1) : null;
    String sub = parts.size() > i + 2 ? parts.get(i + 2) : null;
    if (namespace == null && "namespaces".equals(plural) && name != null && sub != null) {
      // GET /api/v1/namespaces/<ns>/<plural> was taken above; this is a namespace's subresource.
      return new ApiPath(group, version, null, plural, name, sub);
    }
    return new ApiPath(group, version, namespace, plural, name, sub);
  }

  /** The path of the object itself, without subresource. */
  public String objectPath() {
    StringBuilder b =
        new StringBuilder(group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version);
    if (namespace != null) {
      b.append("/namespaces/").append(namespace);
    }
    b.append('/').append(plural).append('/').append(name);
    return b.toString();
  }
}
