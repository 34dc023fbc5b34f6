package io.etcdoperator.operator.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Renders {@code docs/api-reference.md} from the CustomResourceDefinitions in {@code deploy/crds/}:
 * for each resource its names, subresources and printer columns, then one row per field path with
 * its type, description, whether it is required, its default, enum, bounds, pattern and the
 * messages of its CEL rules.
 *
 * <p>Three kinds of subtree are Kubernetes' own types, embedded whole in the schema without a
 * description (over 1,300 paths for the pod template alone): they get one row each naming the type,
 * its top-level fields and Kubernetes' reference, instead of a row per nested field. Every such
 * path must exist in the CRD, and every schema keyword must be one this renderer knows: a new one
 * fails the rendering rather than being left out of the page silently.
 */
final class ApiReference {
  static final Path CRDS = HelmChartTest.DEPLOY.resolve("crds");
  static final Path FILE = Path.of("../docs/api-reference.md");
  static final String REGENERATE =
      "mvn -B -pl api,operator -am test -Dtest=ApiReferenceTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dapi.reference.update=true";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The resources in the order the page shows them; any other kind follows, by name. */
  private static final List<String> KIND_ORDER =
      List.of("EtcdCluster", "EtcdBackup", "EtcdBackupSchedule");

  /** A Kubernetes type embedded in a CRD's schema, shown as one row. */
  record Embedded(String kind, String path, String type, String url) {}

  static final List<Embedded> EMBEDDED =
      List.of(
          new Embedded(
              "EtcdCluster",
              "spec.podTemplate.spec",
              "PodSpec",
              "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodSpec"),
          new Embedded(
              "EtcdCluster",
              "spec.serviceTemplate.spec",
              "ServiceSpec",
              "https://kubernetes.io/docs/reference/kubernetes-api/service-resources/service-v1/#ServiceSpec"),
          new Embedded(
              "EtcdCluster",
              "spec.headlessServiceTemplate.spec",
              "ServiceSpec",
              "https://kubernetes.io/docs/reference/kubernetes-api/service-resources/service-v1/#ServiceSpec"),
          new Embedded(
              "EtcdCluster",
              "spec.storage.volumeClaimTemplate.spec",
              "PersistentVolumeClaimSpec",
              "https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/persistent-volume-claim-v1/#PersistentVolumeClaimSpec"));

  /** The schema keywords rendered (or, for structure, walked). */
  private static final Set<String> KNOWN =
      Set.of(
          "type",
          "description",
          "properties",
          "items",
          "additionalProperties",
          "required",
          "default",
          "enum",
          "format",
          "nullable",
          "minimum",
          "maximum",
          "exclusiveMinimum",
          "exclusiveMaximum",
          "minLength",
          "maxLength",
          "minItems",
          "maxItems",
          "minProperties",
          "maxProperties",
          "pattern",
          "anyOf",
          "x-kubernetes-int-or-string",
          "x-kubernetes-preserve-unknown-fields",
          "x-kubernetes-embedded-resource",
          "x-kubernetes-validations",
          "x-kubernetes-list-type",
          "x-kubernetes-list-map-keys",
          "x-kubernetes-map-type");

  private ApiReference() {}

  /** The CRD files of {@code dir}, parsed. */
  static List<JsonNode> read(Path dir) throws IOException {
    List<JsonNode> crds = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().matches(".*\\.ya?ml")).sorted().toList()) {
        crds.add(YAML.readTree(f.toFile()));
      }
    }
    return crds;
  }

  /** The whole page. */
  static String render(List<JsonNode> crds) {
    List<JsonNode> ordered = new ArrayList<>(crds);
    ordered.sort(
        Comparator.comparingInt((JsonNode c) -> rank(kind(c))).thenComparing(ApiReference::kind));
    StringBuilder out = new StringBuilder();
    out.append("<!-- Generated from deploy/crds/ by ApiReferenceTest: do not edit by hand. -->\n");
    out.append("# API reference\n\n");
    out.append(
        "The resources the operator serves, as their CustomResourceDefinitions in `deploy/crds/`"
            + " define them (the CRDs are generated from the Java classes in `api/`). This page is"
            + " generated from those files, and the build fails when it no longer matches them;"
            + " after a change of the API, regenerate it with:\n\n");
    out.append("    ").append(REGENERATE).append("\n\n");
    out.append(
        "Every object also has `apiVersion`, `kind` and `metadata`. A path `a[]` is an element"
            + " of the list `a`, and `a.<key>` a value of the map `a`. The schema's checks run at"
            + " admission; what the operator checks beyond them (the flags it owns, the fields it"
            + " refuses) is in [operations.md](operations.md#what-a-spec-may-not-do).\n\n");
    for (JsonNode crd : ordered) {
      String k = kind(crd);
      out.append("- [").append(k).append("](#").append(k.toLowerCase()).append(")\n");
    }
    for (JsonNode crd : ordered) {
      out.append("\n");
      resource(crd, out);
    }
    return out.toString();
  }

  private static int rank(String kind) {
    int i = KIND_ORDER.indexOf(kind);
    return i < 0 ? KIND_ORDER.size() : i;
  }

  static String kind(JsonNode crd) {
    return crd.at("/spec/names/kind").asText();
  }

  private static void resource(JsonNode crd, StringBuilder out) {
    String kind = kind(crd);
    JsonNode names = crd.at("/spec/names");
    String group = crd.at("/spec/group").asText();
    for (JsonNode version : crd.at("/spec/versions")) {
      out.append("## ").append(kind).append("\n\n");
      out.append("`").append(group).append("/").append(version.path("name").asText()).append("`");
      out.append(", ").append(crd.at("/spec/scope").asText().toLowerCase());
      out.append("; plural `").append(names.path("plural").asText()).append("`");
      List<String> shortNames = new ArrayList<>();
      names.path("shortNames").forEach(n -> shortNames.add("`" + n.asText() + "`"));
      if (!shortNames.isEmpty()) {
        out.append(", short name ").append(String.join(", ", shortNames));
      }
      out.append(".");
      if (!version.path("served").asBoolean(true) || !version.path("storage").asBoolean(true)) {
        out.append(" Served: ").append(version.path("served").asBoolean());
        out.append(", stored: ").append(version.path("storage").asBoolean()).append(".");
      }
      JsonNode sub = version.path("subresources");
      List<String> subresources = new ArrayList<>();
      if (sub.has("status")) {
        subresources.add("`status`");
      }
      if (sub.has("scale")) {
        JsonNode s = sub.path("scale");
        String scale =
            "`scale` (replicas `"
                + s.path("specReplicasPath").asText()
                + "`, in status `"
                + s.path("statusReplicasPath").asText()
                + "`"
                + (s.has("labelSelectorPath")
                    ? ", selector `" + s.path("labelSelectorPath").asText() + "`"
                    : "")
                + ")";
        subresources.add(scale);
      }
      if (!subresources.isEmpty()) {
        out.append(" Subresources: ").append(String.join(", ", subresources)).append(".");
      }
      out.append("\n\n");
      JsonNode columns = version.path("additionalPrinterColumns");
      if (columns.size() > 0) {
        out.append("`kubectl get ").append(names.path("plural").asText()).append("` shows:\n\n");
        out.append("| Column | JSON path | Type |\n| --- | --- | --- |\n");
        for (JsonNode c : columns) {
          out.append("| ")
              .append(cell(c.path("name").asText()))
              .append(c.path("priority").asInt() > 0 ? " (`-o wide`)" : "")
              .append(" | `")
              .append(cell(c.path("jsonPath").asText()))
              .append("` | ")
              .append(cell(c.path("type").asText()))
              .append(" |\n");
        }
        out.append("\n");
      }
      out.append("| Field | Type | Description |\n| --- | --- | --- |\n");
      JsonNode root = version.at("/schema/openAPIV3Schema");
      Set<String> embedded = new HashSet<>();
      for (Embedded e : EMBEDDED) {
        if (e.kind().equals(kind)) {
          embedded.add(e.path());
        }
      }
      Set<String> found = new HashSet<>();
      check(kind, "", root);
      StringBuilder whole = new StringBuilder();
      description(root, false, whole);
      if (whole.length() > 0) {
        out.append("| (the object) | object | ").append(whole).append(" |\n");
      }
      children(kind, "", root, out, embedded, found);
      if (!found.equals(embedded)) {
        Set<String> missing = new HashSet<>(embedded);
        missing.removeAll(found);
        throw new IllegalStateException(
            kind + ": the embedded Kubernetes types at " + missing + " are not in its CRD");
      }
    }
  }

  /** The rows of a node's fields, list elements and map values. */
  private static void children(
      String kind,
      String path,
      JsonNode node,
      StringBuilder out,
      Set<String> embedded,
      Set<String> found) {
    Set<String> required = new HashSet<>();
    node.path("required").forEach(r -> required.add(r.asText()));
    Iterator<Map.Entry<String, JsonNode>> fields = node.path("properties").fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      String p = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
      field(kind, p, f.getValue(), required.contains(f.getKey()), out, embedded, found);
    }
    JsonNode items = node.path("items");
    if (items.isObject() && structured(items)) {
      field(kind, path + "[]", items, false, out, embedded, found);
    }
    JsonNode values = node.path("additionalProperties");
    if (values.isObject() && structured(values)) {
      field(kind, path + ".<key>", values, false, out, embedded, found);
    }
  }

  private static void field(
      String kind,
      String path,
      JsonNode node,
      boolean required,
      StringBuilder out,
      Set<String> embedded,
      Set<String> found) {
    if (embedded.contains(path)) {
      found.add(path);
      Embedded e =
          EMBEDDED.stream()
              .filter(x -> x.kind().equals(kind) && x.path().equals(path))
              .findFirst()
              .orElseThrow();
      List<String> names = new ArrayList<>();
      node.path("properties").fieldNames().forEachRemaining(n -> names.add("`" + n + "`"));
      StringBuilder d = new StringBuilder();
      description(node, required, d);
      d.append(d.length() > 0 ? " " : "")
          .append("Kubernetes' own ")
          .append(e.type())
          .append(", described in [Kubernetes' API reference](")
          .append(e.url())
          .append(")")
          .append(names.isEmpty() ? "." : "; its fields here: " + String.join(", ", names) + ".");
      row(path, "object (" + e.type() + ")", d.toString(), out);
      return;
    }
    check(kind, path, node);
    StringBuilder d = new StringBuilder();
    description(node, required, d);
    row(path, type(node), d.toString(), out);
    children(kind, path, node, out, embedded, found);
  }

  /** Whether a list element or map value gets rows of its own (an object with fields). */
  private static boolean structured(JsonNode node) {
    return node.has("properties")
        || node.has("description")
        || node.has("x-kubernetes-validations")
        || node.path("items").isObject()
        || node.path("additionalProperties").isObject();
  }

  private static void check(String kind, String path, JsonNode node) {
    if (node.has("anyOf") && !node.path("x-kubernetes-int-or-string").asBoolean()) {
      throw new IllegalStateException(
          kind + " " + path + ": anyOf other than int-or-string is not rendered; teach it");
    }
    node.fieldNames()
        .forEachRemaining(
            k -> {
              if (!KNOWN.contains(k)) {
                throw new IllegalStateException(
                    kind
                        + " "
                        + (path.isEmpty() ? "(root)" : path)
                        + ": the schema keyword "
                        + k
                        + " is not rendered by ApiReference; teach it");
              }
            });
  }

  static String type(JsonNode node) {
    if (node.path("x-kubernetes-int-or-string").asBoolean()) {
      return "integer or string";
    }
    String type = node.path("type").asText();
    if (type.isEmpty()) {
      return node.path("x-kubernetes-preserve-unknown-fields").asBoolean() ? "any" : "";
    }
    if (type.equals("array")) {
      JsonNode items = node.path("items");
      return structured(items) ? "list of objects" : "list of " + type(items);
    }
    if (type.equals("object") && node.path("additionalProperties").isObject()) {
      JsonNode values = node.path("additionalProperties");
      return structured(values) ? "map of objects" : "map of " + type(values);
    }
    return node.has("format") ? type + " (" + node.path("format").asText() + ")" : type;
  }

  private static void description(JsonNode node, boolean required, StringBuilder d) {
    List<String> parts = new ArrayList<>();
    if (node.has("description")) {
      parts.add(text(node.path("description").asText()));
    }
    if (required) {
      parts.add("Required.");
    }
    if (node.has("default")) {
      parts.add("Default: `" + json(node.path("default")) + "`.");
    }
    if (node.has("enum")) {
      List<String> values = new ArrayList<>();
      node.path("enum").forEach(v -> values.add("`" + json(v) + "`"));
      parts.add("One of " + String.join(", ", values) + ".");
    }
    bound(node, "minimum", "Minimum", parts);
    bound(node, "exclusiveMinimum", "Above", parts);
    bound(node, "maximum", "Maximum", parts);
    bound(node, "exclusiveMaximum", "Below", parts);
    bound(node, "minLength", "At least this many characters:", parts);
    bound(node, "maxLength", "At most this many characters:", parts);
    bound(node, "minItems", "At least this many items:", parts);
    bound(node, "maxItems", "At most this many items:", parts);
    bound(node, "minProperties", "At least this many entries:", parts);
    bound(node, "maxProperties", "At most this many entries:", parts);
    if (node.has("pattern")) {
      parts.add("Matches `" + code(node.path("pattern").asText()) + "`.");
    }
    if (node.path("nullable").asBoolean()) {
      parts.add("May be null.");
    }
    if (node.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
      parts.add("Kept as written: its content is not checked by the schema.");
    }
    if (node.path("x-kubernetes-embedded-resource").asBoolean()) {
      parts.add("A whole Kubernetes object.");
    }
    if (node.has("x-kubernetes-list-type")) {
      parts.add("List type `" + node.path("x-kubernetes-list-type").asText() + "`.");
    }
    if (node.has("x-kubernetes-map-type")) {
      parts.add("Map type `" + node.path("x-kubernetes-map-type").asText() + "`.");
    }
    for (JsonNode rule : node.path("x-kubernetes-validations")) {
      String message =
          rule.has("message")
              ? rule.path("message").asText()
              : "the rule `" + rule.path("rule").asText() + "` must hold";
      parts.add(
          "Rule: \""
              + text(message)
              + "\""
              + (rule.has("reason") ? " (" + text(rule.path("reason").asText()) + ")" : "")
              + ".");
    }
    d.append(String.join(" ", parts));
  }

  private static void bound(JsonNode node, String key, String label, List<String> parts) {
    if (node.has(key)) {
      JsonNode v = node.path(key);
      String n =
          v.isNumber() && v.asDouble() == Math.rint(v.asDouble()) ? "" + v.asLong() : json(v);
      parts.add(label + " " + n + ".");
    }
  }

  private static void row(String path, String type, String description, StringBuilder out) {
    out.append("| `")
        .append(code(path))
        .append("` | ")
        .append(cell(type))
        .append(" | ")
        .append(description)
        .append(" |\n");
  }

  private static String json(JsonNode v) {
    try {
      return code(JSON.writeValueAsString(v));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Text for a table cell: one line, no cell break, no HTML. */
  private static String text(String s) {
    return cell(s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"));
  }

  /** Text inside a code span of a table cell: one line, no cell break. */
  private static String code(String s) {
    return cell(s);
  }

  private static String cell(String s) {
    return s.replaceAll("\\s*\\n\\s*", " ").replace("|", "\\|").strip();
  }
}
