package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The discovery documents kubectl and client libraries read to learn which resources a server has:
 * {@code /api} (APIVersions), {@code /apis} (APIGroupList), {@code /apis/<group>} (APIGroup) and
 * {@code /api/v1}, {@code /apis/<group>/<version>} (APIResourceList), built from a list of types.
 */
public final class Discovery {
  private static final List<String> VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
  private final ObjectMapper mapper;

  public Discovery(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  public String apiVersions(String serverAddress) {
    ObjectNode n = mapper.createObjectNode();
    n.put("kind", "APIVersions");
    n.putArray("versions").add("v1");
    ObjectNode cidr = n.putArray("serverAddressByClientCIDRs").addObject();
    cidr.put("clientCIDR", "0.0.0.0/0");
    cidr.put("serverAddress", serverAddress);
    return n.toString();
  }

  public String groupList(List<ResourceType> types) {
    ObjectNode n = mapper.createObjectNode();
    n.put("kind", "APIGroupList");
    n.put("apiVersion", "v1");
    ArrayNode groups = n.putArray("groups");
    for (Map.Entry<String, Set<String>> g : versionsByGroup(types).entrySet()) {
      if (!g.getKey().isEmpty()) {
        groups.add(group(g.getKey(), g.getValue()));
      }
    }
    return n.toString();
  }

  /** The APIGroup document of one group, or null when no type has that group. */
  public String group(List<ResourceType> types, String group) {
    Set<String> versions = versionsByGroup(types).get(group);
    if (versions == null || group.isEmpty()) {
      return null;
    }
    ObjectNode n = group(group, versions);
    n.put("kind", "APIGroup");
    n.put("apiVersion", "v1");
    return n.toString();
  }

  /** The APIResourceList of one group version, or null when nothing is served there. */
  public String resourceList(List<ResourceType> types, String group, String version) {
    List<ResourceType> matching = new ArrayList<>();
    for (ResourceType t : types) {
      if (t.group().equals(group) && t.version().equals(version)) {
        matching.add(t);
      }
    }
    if (matching.isEmpty()) {
      return null;
    }
    ObjectNode n = mapper.createObjectNode();
    n.put("kind", "APIResourceList");
    n.put("apiVersion", "v1");
    n.put("groupVersion", matching.get(0).groupVersion());
    ArrayNode resources = n.putArray("resources");
    for (ResourceType t : matching) {
      ObjectNode r = resources.addObject();
      r.put("name", t.plural());
      r.put("singularName", t.kind().toLowerCase());
      r.put("namespaced", t.namespaced());
      r.put("kind", t.kind());
      VERBS.forEach(r.putArray("verbs")::add);
      if (!t.shortNames().isEmpty()) {
        t.shortNames().forEach(r.putArray("shortNames")::add);
      }
      if (t.statusSubresource()) {
        ObjectNode s = resources.addObject();
        s.put("name", t.plural() + "/status");
        s.put("singularName", "");
        s.put("namespaced", t.namespaced());
        s.put("kind", t.kind());
        s.putArray("verbs").add("get").add("patch").add("update");
      }
      if (t.group().isEmpty() && t.plural().equals("serviceaccounts")) {
        createOnly(resources, "serviceaccounts/token", "authentication.k8s.io/v1", "TokenRequest");
      }
      if (t.group().isEmpty() && t.plural().equals("pods")) {
        // kubectl drain evicts through policy/v1 only when discovery names it here
        createOnly(resources, "pods/eviction", "policy/v1", "Eviction");
        createOnly(resources, "pods/binding", null, "Binding");
      }
      if (t.scale() != null) {
        ObjectNode s = resources.addObject();
        s.put("name", t.plural() + "/scale");
        s.put("singularName", "");
        s.put("namespaced", t.namespaced());
        s.put("group", "autoscaling");
        s.put("version", "v1");
        s.put("kind", "Scale");
        s.putArray("verbs").add("get").add("patch").add("update");
      }
    }
    return n.toString();
  }

  /**
   * A namespaced subresource that takes only {@code create}, of another group and version than its
   * resource's ({@code groupVersion} {@code group/version}) or of the same (null).
   */
  private static void createOnly(
      ArrayNode resources, String name, String groupVersion, String kind) {
    ObjectNode r = resources.addObject();
    r.put("name", name);
    r.put("singularName", "");
    r.put("namespaced", true);
    if (groupVersion != null) {
      r.put("group", groupVersion.substring(0, groupVersion.indexOf('/')));
      r.put("version", groupVersion.substring(groupVersion.indexOf('/') + 1));
    }
    r.put("kind", kind);
    r.putArray("verbs").add("create");
  }

  private ObjectNode group(String name, Set<String> versions) {
    ObjectNode g = mapper.createObjectNode();
    g.put("name", name);
    ArrayNode vs = g.putArray("versions");
    String preferred = null;
    for (String v : versions) {
      ObjectNode vn = vs.addObject();
      vn.put("groupVersion", name + "/" + v);
      vn.put("version", v);
      if (preferred == null) {
        preferred = v;
      }
    }
    ObjectNode p = g.putObject("preferredVersion");
    p.put("groupVersion", name + "/" + preferred);
    p.put("version", preferred);
    return g;
  }

  private static Map<String, Set<String>> versionsByGroup(List<ResourceType> types) {
    Map<String, Set<String>> m = new LinkedHashMap<>();
    for (ResourceType t : types) {
      m.computeIfAbsent(t.group(), g -> new LinkedHashSet<>()).add(t.version());
    }
    return m;
  }
}
