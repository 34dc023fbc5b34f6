package io.etcdoperator.sandbox.api.auth;

import io.etcdoperator.sandbox.api.ApiPath;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * What a request asks to do, in the terms RBAC decides on, as the API server's request-info
 * resolver derives it from the method and path: GET of an object is {@code get}, of a collection
 * {@code list}, with {@code watch=true} {@code watch}; POST {@code create}; PUT {@code update};
 * PATCH {@code patch}; DELETE of an object {@code delete}, of a collection {@code
 * deletecollection}. A list or watch restricted by the field selector {@code metadata.name=<n>}
 * names that object. Paths that are not resources (discovery, {@code /version}, {@code /openapi})
 * are non-resource requests whose verb is the lower-cased method.
 *
 * @param verb the RBAC verb
 * @param resourceRequest whether the path names a resource
 * @param group API group ("" for core)
 * @param resource the resource (plural), or null
 * @param subresource the subresource, or null
 * @param name the object's name, or "" (a collection, or a create)
 * @param namespace the namespace, or "" (cluster scope)
 * @param path the path without query
 */
public record RequestInfo(
    String verb,
    boolean resourceRequest,
    String group,
    String resource,
    String subresource,
    String name,
    String namespace,
    String path) {

  /** The request-info of a method and raw path (query included). */
  public static RequestInfo of(HttpMethod method, String rawPath) {
    String bare = rawPath.contains("?") ? rawPath.substring(0, rawPath.indexOf('?')) : rawPath;
    String query = rawPath.contains("?") ? rawPath.substring(rawPath.indexOf('?') + 1) : "";
    ApiPath api = ApiPath.parse(bare);
    if (api == null || api.plural() == null) {
      return new RequestInfo(
          method.name().toLowerCase(), false, "", null, null, "", "", bare.isEmpty() ? "/" : bare);
    }
    String name = api.name() == null ? "" : api.name();
    boolean watch = "true".equals(param(query, "watch")) || "1".equals(param(query, "watch"));
    String verb =
        switch (method) {
          case POST -> "create";
          case PUT -> "update";
          case PATCH -> "patch";
          case DELETE -> name.isEmpty() ? "deletecollection" : "delete";
          default -> watch ? "watch" : name.isEmpty() ? "list" : "get";
        };
    if (name.isEmpty() && (verb.equals("list") || verb.equals("watch"))) {
      String fields = param(query, "fieldSelector");
      if (fields != null) {
        for (String term : fields.split(",")) {
          if (term.startsWith("metadata.name=")) {
            name = term.substring("metadata.name=".length());
          } else if (term.startsWith("metadata.name==")) {
            name = term.substring("metadata.name==".length());
          }
        }
      }
    }
    String namespace = api.namespace() == null ? "" : api.namespace();
    if (namespace.isEmpty() && "namespaces".equals(api.plural()) && !name.isEmpty()) {
      // a namespace's own requests are scoped to it, as the API server's resolver does
      namespace = name;
    }
    return new RequestInfo(
        verb, true, api.group(), api.plural(), api.subresource(), name, namespace, bare);
  }

  /** {@code resource} or {@code resource/subresource}. */
  public String resourceWithSubresource() {
    return subresource == null ? resource : resource + "/" + subresource;
  }

  /** The same request, asking for another verb on another resource (admission's own checks). */
  public RequestInfo asking(String verb, String group, String resource, String subresource) {
    return new RequestInfo(verb, true, group, resource, subresource, name, namespace, path);
  }

  /** The value of {@code key} in a query string ({@code a=1&b=2}), decoded; null when absent. */
  public static String param(String query, String key) {
    for (String kv : query.split("&")) {
      int eq = kv.indexOf('=');
      String k = eq < 0 ? kv : kv.substring(0, eq);
      if (k.equals(key)) {
        return eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }
}
