package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The smallest OpenAPI v3 answer that lets kubectl's create, apply, patch and replace run with
 * their default {@code --validate=strict}: a root listing every served group version, and per group
 * version the PATCH operation of each kind, tagged with its group-version-kind and declaring the
 * {@code fieldValidation} query parameter. kubectl then leaves validation to the server and sends
 * {@code fieldValidation=Strict}; the mock server ignores it, so unknown fields are stored, not
 * refused. No schemas are served, so {@code kubectl explain} has nothing to show.
 */
public final class OpenApi {
  private final ObjectMapper mapper;

  public OpenApi(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  public String root(List<ResourceType> types) {
    ObjectNode n = mapper.createObjectNode();
    ObjectNode paths = n.putObject("paths");
    Set<String> seen = new LinkedHashSet<>();
    for (ResourceType t : types) {
      String gv = t.prefix().substring(1);
      if (seen.add(gv)) {
        paths.putObject(gv).put("serverRelativeURL", "/openapi/v3/" + gv + "?hash=sandbox");
      }
    }
    return n.toString();
  }

  /** The document of one group version ({@code api/v1}, {@code apis/<g>/<v>}), or null. */
  public String groupVersion(List<ResourceType> types, String gv) {
    ObjectNode n = mapper.createObjectNode();
    n.put("openapi", "3.0.0");
    n.putObject("info")
        .put("title", "Kubernetes (etcd-operator sandbox)")
        .put("version", "v1.32.0");
    ObjectNode paths = n.putObject("paths");
    boolean any = false;
    for (ResourceType t : types) {
      if (!t.prefix().substring(1).equals(gv)) {
        continue;
      }
      any = true;
      String path =
          t.prefix() + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural() + "/{name}";
      ObjectNode item = paths.putObject(path);
      for (String verb : List.of("get", "put", "patch", "delete")) {
        ObjectNode op = item.putObject(verb);
        ObjectNode gvk = op.putObject("x-kubernetes-group-version-kind");
        gvk.put("group", t.group()).put("version", t.version()).put("kind", t.kind());
        ArrayNode params = op.putArray("parameters");
        if (!verb.equals("get") && !verb.equals("delete")) {
          params
              .addObject()
              .put("name", "fieldValidation")
              .put("in", "query")
              .putObject("schema")
              .put("type", "string");
          params
              .addObject()
              .put("name", "fieldManager")
              .put("in", "query")
              .putObject("schema")
              .put("type", "string");
        }
        params
            .addObject()
            .put("name", "dryRun")
            .put("in", "query")
            .putObject("schema")
            .put("type", "string");
        op.putObject("responses").putObject("200").put("description", "OK");
      }
    }
    return any ? n.toString() : null;
  }
}
