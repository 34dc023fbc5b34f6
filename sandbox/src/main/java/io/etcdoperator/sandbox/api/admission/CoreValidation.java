package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The validation a real API server applies to built-in objects before it stores them, for what the
 * operator and the sandbox write; each error in the server's words, with the field's path.
 *
 * <ul>
 *   <li>every object: {@code metadata.name} (a DNS-1123 subdomain; for Services a DNS-1035 label,
 *       for Namespaces a DNS-1123 label), label keys and values (63 characters at most, well
 *       formed), annotation keys;
 *   <li>pods and pod templates: restartPolicy, containers (required; names DNS-1123 labels and
 *       unique; image required; ports in 1..65535 with IANA names; env names; volume mounts that
 *       name a volume and have a path), volumes (names unique DNS-1123 labels), hostname and
 *       subdomain; on a pod's update, its spec is immutable but for images, activeDeadlineSeconds,
 *       tolerations and terminationGracePeriodSeconds;
 *   <li>StatefulSets: a selector that matches the template's labels, template restartPolicy Always,
 *       replicas not negative, podManagementPolicy, updateStrategy and claim retention values; on
 *       update, only replicas, ordinals, template, updateStrategy,
 *       persistentVolumeClaimRetentionPolicy and minReadySeconds may change;
 *   <li>Services: type, ports (required unless headless, in range, named when several, unique),
 *       externalIPs that are IP addresses (CVE-2020-8554 is the operator's business: the server
 *       lets them through), selector labels; clusterIP immutable once set (an update that omits it
 *       keeps it, as the server's registry does);
 *   <li>PodDisruptionBudgets: minAvailable and maxUnavailable not both, each a non-negative integer
 *       or a percentage of 100% at most;
 *   <li>ConfigMaps and Secrets: keys, no key in both data and binaryData, 1 MiB at most.
 * </ul>
 */
public final class CoreValidation {
  private CoreValidation() {}

  /**
   * The errors of an object of a built-in resource ({@code group}, {@code plural}), given the
   * stored object on an update (null on a create).
   */
  public static List<FieldError> validate(String group, String plural, JsonNode obj, JsonNode old) {
    List<FieldError> e = new ArrayList<>();
    metadata(plural, obj.path("metadata"), e);
    JsonNode spec = obj.path("spec");
    switch (group + "/" + plural) {
      case "/pods" -> {
        podSpec("spec", spec, Set.of(), e);
        if (old != null) {
          podUpdate(spec, old.path("spec"), e);
        }
      }
      case "apps/statefulsets" -> statefulSet(spec, old == null ? null : old.path("spec"), e);
      case "/services" -> service(spec, old == null ? null : old.path("spec"), e);
      case "policy/poddisruptionbudgets" -> pdb(spec, e);
      case "/configmaps", "/secrets" -> data(obj, e);
      case "/persistentvolumeclaims" -> {
        if (old != null) {
          claimUpdate(spec, old, e);
        }
      }
      default -> {}
    }
    return e;
  }

  /**
   * What the server itself fills in before validation: a Service of type ClusterIP gets a cluster
   * IP on create, and an update that omits it keeps the stored one; a StatefulSet gets the defaults
   * of apps/v1 for what it leaves out, on every write (as the server decodes every request with
   * them): replicas 1, podManagementPolicy OrderedReady, updateStrategy RollingUpdate with
   * partition 0, revisionHistoryLimit 10, persistentVolumeClaimRetentionPolicy Retain/Retain. So a
   * StatefulSet another client created without them differs from one that names them only where
   * they really differ.
   */
  public static void mutate(
      String group, String plural, ObjectNode obj, JsonNode old, Allocator ips) {
    if (group.equals("apps") && plural.equals("statefulsets") && obj.path("spec").isObject()) {
      statefulSetDefaults((ObjectNode) obj.get("spec"));
      return;
    }
    if (!(group.isEmpty() && plural.equals("services")) || !obj.path("spec").isObject()) {
      return;
    }
    ObjectNode spec = (ObjectNode) obj.get("spec");
    String type = spec.path("type").asText("ClusterIP");
    if (old != null && spec.path("clusterIP").asText("").isEmpty()) {
      JsonNode was = old.path("spec");
      if (was.has("clusterIP")) {
        spec.set("clusterIP", was.get("clusterIP"));
      }
      if (was.has("clusterIPs")) {
        spec.set("clusterIPs", was.get("clusterIPs"));
      }
    } else if (old == null
        && !type.equals("ExternalName")
        && spec.path("clusterIP").asText("").isEmpty()) {
      String ip = ips.next();
      spec.put("clusterIP", ip);
      spec.putArray("clusterIPs").add(ip);
    } else if (spec.has("clusterIP") && !spec.has("clusterIPs")) {
      spec.putArray("clusterIPs").add(spec.get("clusterIP").asText());
    }
  }

  private static void statefulSetDefaults(ObjectNode spec) {
    if (!spec.hasNonNull("replicas")) {
      spec.put("replicas", 1);
    }
    if (!spec.hasNonNull("podManagementPolicy")) {
      spec.put("podManagementPolicy", "OrderedReady");
    }
    if (!spec.path("updateStrategy").isObject()) {
      spec.putObject("updateStrategy");
    }
    ObjectNode strategy = (ObjectNode) spec.get("updateStrategy");
    if (!strategy.hasNonNull("type")) {
      strategy.put("type", "RollingUpdate");
    }
    if (strategy.path("type").asText().equals("RollingUpdate")) {
      if (!strategy.path("rollingUpdate").isObject()) {
        strategy.putObject("rollingUpdate");
      }
      ObjectNode rolling = (ObjectNode) strategy.get("rollingUpdate");
      if (!rolling.hasNonNull("partition")) {
        rolling.put("partition", 0);
      }
    }
    if (!spec.hasNonNull("revisionHistoryLimit")) {
      spec.put("revisionHistoryLimit", 10);
    }
    if (!spec.path("persistentVolumeClaimRetentionPolicy").isObject()) {
      spec.putObject("persistentVolumeClaimRetentionPolicy");
    }
    ObjectNode retention = (ObjectNode) spec.get("persistentVolumeClaimRetentionPolicy");
    for (String field : List.of("whenDeleted", "whenScaled")) {
      if (!retention.hasNonNull(field)) {
        retention.put(field, "Retain");
      }
    }
  }

  /** Hands out cluster IPs (never reached: Service names resolve to the pods). */
  public interface Allocator {
    String next();
  }

  private static void metadata(String plural, JsonNode meta, List<FieldError> e) {
    String name = meta.path("name").asText("");
    if (name.isEmpty()) {
      if (meta.path("generateName").asText("").isEmpty()) {
        e.add(FieldError.required("metadata.name", "name or generateName is required"));
      }
    } else {
      List<String> bad =
          switch (plural) {
            case "services" -> Formats.dns1035Label(name);
            case "namespaces" -> Formats.dns1123Label(name);
            default -> Formats.dns1123Subdomain(name);
          };
      bad.forEach(m -> e.add(FieldError.invalid("metadata.name", name, m)));
    }
    labels("metadata.labels", meta.path("labels"), e);
    for (Iterator<String> it = meta.path("annotations").fieldNames(); it.hasNext(); ) {
      String k = it.next();
      Formats.qualifiedName(k)
          .forEach(m -> e.add(FieldError.invalid("metadata.annotations", k, m)));
    }
  }

  static void labels(String field, JsonNode labels, List<FieldError> e) {
    for (Iterator<Map.Entry<String, JsonNode>> it = labels.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> l = it.next();
      Formats.qualifiedName(l.getKey())
          .forEach(m -> e.add(FieldError.invalid(field, l.getKey(), m)));
      String v = l.getValue().asText("");
      Formats.labelValue(v).forEach(m -> e.add(FieldError.invalid(field, v, m)));
    }
  }

  /**
   * @param claimVolumes volume names that come from elsewhere (a StatefulSet's claim templates)
   */
  private static void podSpec(
      String p, JsonNode spec, Set<String> claimVolumes, List<FieldError> e) {
    JsonNode rp = spec.path("restartPolicy");
    if (!rp.isMissingNode() && !List.of("Always", "OnFailure", "Never").contains(rp.asText())) {
      e.add(
          FieldError.notSupported(
              p + ".restartPolicy", rp, List.of("Always", "OnFailure", "Never")));
    }
    Set<String> volumes = new HashSet<>();
    int i = 0;
    for (JsonNode v : spec.path("volumes")) {
      String f = p + ".volumes[" + i++ + "].name";
      String name = v.path("name").asText("");
      if (name.isEmpty()) {
        e.add(FieldError.required(f, ""));
      } else {
        Formats.dns1123Label(name).forEach(m -> e.add(FieldError.invalid(f, name, m)));
        if (!volumes.add(name)) {
          e.add(FieldError.duplicate(f, name));
        }
      }
    }
    if (!spec.path("containers").isArray() || spec.path("containers").isEmpty()) {
      e.add(FieldError.required(p + ".containers", ""));
    }
    volumes.addAll(claimVolumes);
    Set<String> names = new HashSet<>();
    containers(p + ".initContainers", spec.path("initContainers"), volumes, names, e);
    containers(p + ".containers", spec.path("containers"), volumes, names, e);
    for (String f : List.of("hostname", "subdomain")) {
      String v = spec.path(f).asText("");
      if (!v.isEmpty()) {
        Formats.dns1123Label(v).forEach(m -> e.add(FieldError.invalid(p + "." + f, v, m)));
      }
    }
  }

  private static void containers(
      String p, JsonNode list, Set<String> volumes, Set<String> names, List<FieldError> e) {
    int i = 0;
    for (JsonNode c : list) {
      String cp = p + "[" + i++ + "]";
      String name = c.path("name").asText("");
      if (name.isEmpty()) {
        e.add(FieldError.required(cp + ".name", ""));
      } else {
        Formats.dns1123Label(name).forEach(m -> e.add(FieldError.invalid(cp + ".name", name, m)));
        if (!names.add(name)) {
          e.add(FieldError.duplicate(cp + ".name", name));
        }
      }
      if (c.path("image").asText("").isEmpty()) {
        e.add(FieldError.required(cp + ".image", ""));
      }
      int j = 0;
      for (JsonNode port : c.path("ports")) {
        String pp = cp + ".ports[" + j++ + "]";
        JsonNode cport = port.path("containerPort");
        if (!cport.isInt() || cport.asInt() < 1 || cport.asInt() > 65535) {
          e.add(
              FieldError.invalid(
                  pp + ".containerPort", cport, "must be between 1 and 65535, inclusive"));
        }
        String pn = port.path("name").asText("");
        if (!pn.isEmpty()) {
          Formats.portName(pn).forEach(m -> e.add(FieldError.invalid(pp + ".name", pn, m)));
        }
      }
      j = 0;
      for (JsonNode env : c.path("env")) {
        String ep = cp + ".env[" + j++ + "].name";
        String en = env.path("name").asText("");
        if (en.isEmpty()) {
          e.add(FieldError.required(ep, ""));
        } else {
          Formats.envVarName(en).forEach(m -> e.add(FieldError.invalid(ep, en, m)));
        }
      }
      j = 0;
      for (JsonNode m : c.path("volumeMounts")) {
        String mp = cp + ".volumeMounts[" + j++ + "]";
        String vn = m.path("name").asText("");
        if (vn.isEmpty()) {
          e.add(FieldError.required(mp + ".name", ""));
        } else if (!volumes.contains(vn)) {
          e.add(FieldError.notFound(mp + ".name", vn));
        }
        if (m.path("mountPath").asText("").isEmpty()) {
          e.add(FieldError.required(mp + ".mountPath", ""));
        }
      }
    }
  }

  private static void podUpdate(JsonNode spec, JsonNode old, List<FieldError> e) {
    if (!mutablePodFieldsRemoved(spec).equals(mutablePodFieldsRemoved(old))) {
      e.add(
          FieldError.forbidden(
              "spec",
              "pod updates may not change fields other than `spec.containers[*].image`,"
                  + "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
                  + "`spec.tolerations` (only additions to existing tolerations),"
                  + "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was"
                  + " previously negative)"));
    }
  }

  private static JsonNode mutablePodFieldsRemoved(JsonNode spec) {
    if (!spec.isObject()) {
      return spec;
    }
    ObjectNode s = spec.deepCopy();
    s.remove(List.of("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds"));
    for (String list : List.of("containers", "initContainers")) {
      for (JsonNode c : s.path(list)) {
        ((ObjectNode) c).remove("image");
      }
    }
    return s;
  }

  /**
   * A claim's spec is immutable once bound except its storage request, which may only grow (as the
   * API server's validation says; whether its StorageClass allows it is the resize admission's
   * business).
   */
  private static void claimUpdate(JsonNode spec, JsonNode old, List<FieldError> e) {
    JsonNode was = old.path("spec");
    ObjectNode a = spec.deepCopy();
    ObjectNode b = was.deepCopy();
    for (ObjectNode o : List.of(a, b)) {
      if (o.path("resources").isObject()) {
        ((ObjectNode) o.get("resources")).remove("requests");
      }
      o.remove("volumeName");
    }
    if (!a.equals(b)) {
      e.add(
          FieldError.forbidden(
              "spec",
              "spec is immutable after creation except resources.requests and"
                  + " volumeAttributesClassName for bound claims"));
      return;
    }
    long now = storageRequest(spec);
    long before = storageRequest(was);
    if (now >= 0 && before >= 0 && now < before) {
      e.add(
          FieldError.forbidden(
              "spec.resources.requests.storage", "field can not be less than previous value"));
    }
  }

  /**
   * {@code resources.requests.storage} of a claim's spec, in bytes; -1 when absent or unreadable.
   */
  public static long storageRequest(JsonNode claimSpec) {
    JsonNode q = claimSpec.path("resources").path("requests").path("storage");
    if (!q.isTextual() && !q.isNumber()) {
      return -1;
    }
    try {
      return new Quantity(q.asText()).getNumericalAmount().longValue();
    } catch (IllegalArgumentException | ArithmeticException ex) {
      return -1;
    }
  }

  private static void statefulSet(JsonNode spec, JsonNode old, List<FieldError> e) {
    JsonNode replicas = spec.path("replicas");
    if (replicas.isNumber() && replicas.asInt() < 0) {
      e.add(FieldError.invalid("spec.replicas", replicas, "must be greater than or equal to 0"));
    }
    enumOf(
        "spec.podManagementPolicy",
        spec.path("podManagementPolicy"),
        List.of("OrderedReady", "Parallel"),
        e);
    enumOf(
        "spec.updateStrategy.type",
        spec.path("updateStrategy").path("type"),
        List.of("OnDelete", "RollingUpdate"),
        e);
    JsonNode retention = spec.path("persistentVolumeClaimRetentionPolicy");
    enumOf(
        "spec.persistentVolumeClaimRetentionPolicy.whenDeleted",
        retention.path("whenDeleted"),
        List.of("Retain", "Delete"),
        e);
    enumOf(
        "spec.persistentVolumeClaimRetentionPolicy.whenScaled",
        retention.path("whenScaled"),
        List.of("Retain", "Delete"),
        e);
    JsonNode selector = spec.path("selector");
    JsonNode labels = spec.path("template").path("metadata").path("labels");
    if (!selector.isObject()) {
      e.add(FieldError.required("spec.selector", ""));
    } else if (!selects(selector, labels)) {
      e.add(
          new FieldError(
              FieldError.Type.INVALID,
              "spec.template.metadata.labels",
              goMap(labels),
              "`selector` does not match template `labels`"));
    }
    labels("spec.template.metadata.labels", labels, e);
    JsonNode template = spec.path("template").path("spec");
    Set<String> claims = new HashSet<>();
    spec.path("volumeClaimTemplates")
        .forEach(t -> claims.add(t.path("metadata").path("name").asText()));
    podSpec("spec.template.spec", template, claims, e);
    JsonNode rp = template.path("restartPolicy");
    if (!rp.isMissingNode() && !rp.asText().equals("Always")) {
      e.add(FieldError.notSupported("spec.template.spec.restartPolicy", rp, List.of("Always")));
    }
    if (old != null && !old.isMissingNode()) {
      ObjectNode a = spec.deepCopy();
      ObjectNode b = old.deepCopy();
      for (ObjectNode o : List.of(a, b)) {
        o.remove(
            List.of(
                "replicas",
                "ordinals",
                "template",
                "updateStrategy",
                "persistentVolumeClaimRetentionPolicy",
                "minReadySeconds"));
      }
      if (!a.equals(b)) {
        e.add(
            FieldError.forbidden(
                "spec",
                "updates to statefulset spec for fields other than 'replicas', 'ordinals',"
                    + " 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and"
                    + " 'minReadySeconds' are forbidden"));
      }
    }
  }

  private static boolean selects(JsonNode selector, JsonNode labels) {
    boolean any = false;
    for (Iterator<Map.Entry<String, JsonNode>> it = selector.path("matchLabels").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> m = it.next();
      any = true;
      if (!m.getValue().asText().equals(labels.path(m.getKey()).asText(null))) {
        return false;
      }
    }
    for (JsonNode x : selector.path("matchExpressions")) {
      any = true;
      String key = x.path("key").asText();
      String op = x.path("operator").asText();
      List<String> values = new ArrayList<>();
      x.path("values").forEach(v -> values.add(v.asText()));
      boolean has = labels.has(key);
      boolean ok =
          switch (op) {
            case "In" -> has && values.contains(labels.get(key).asText());
            case "NotIn" -> !has || !values.contains(labels.get(key).asText());
            case "Exists" -> has;
            case "DoesNotExist" -> !has;
            default -> false;
          };
      if (!ok) {
        return false;
      }
    }
    return any;
  }

  /** A label map as Go prints it in a validation message. */
  private static String goMap(JsonNode labels) {
    Map<String, String> sorted = new TreeMap<>();
    labels.fields().forEachRemaining(f -> sorted.put(f.getKey(), f.getValue().asText()));
    StringBuilder b = new StringBuilder("map[string]string{");
    sorted.forEach(
        (k, v) ->
            b.append(b.charAt(b.length() - 1) == '{' ? "" : ", ")
                .append(FieldError.quote(k))
                .append(':')
                .append(FieldError.quote(v)));
    return b.append('}').toString();
  }

  private static void service(JsonNode spec, JsonNode old, List<FieldError> e) {
    String type = spec.path("type").asText("ClusterIP");
    enumOf(
        "spec.type",
        spec.path("type"),
        List.of("ClusterIP", "NodePort", "LoadBalancer", "ExternalName"),
        e);
    boolean headless = "None".equals(spec.path("clusterIP").asText());
    JsonNode ports = spec.path("ports");
    if ((!ports.isArray() || ports.isEmpty()) && !headless && !type.equals("ExternalName")) {
      e.add(FieldError.required("spec.ports", ""));
    }
    Set<String> names = new HashSet<>();
    int i = 0;
    for (JsonNode port : ports) {
      String pp = "spec.ports[" + i++ + "]";
      String name = port.path("name").asText("");
      if (ports.size() > 1 && name.isEmpty()) {
        e.add(FieldError.required(pp + ".name", ""));
      }
      if (!name.isEmpty()) {
        Formats.dns1123Label(name).forEach(m -> e.add(FieldError.invalid(pp + ".name", name, m)));
        if (!names.add(name)) {
          e.add(FieldError.duplicate(pp + ".name", name));
        }
      }
      JsonNode n = port.path("port");
      if (!n.isInt() || n.asInt() < 1 || n.asInt() > 65535) {
        e.add(FieldError.invalid(pp + ".port", n, "must be between 1 and 65535, inclusive"));
      }
      enumOf(pp + ".protocol", port.path("protocol"), List.of("SCTP", "TCP", "UDP"), e);
      JsonNode target = port.path("targetPort");
      if (target.isInt() && (target.asInt() < 1 || target.asInt() > 65535)) {
        e.add(
            FieldError.invalid(
                pp + ".targetPort", target, "must be between 1 and 65535, inclusive"));
      } else if (target.isTextual()) {
        Formats.portName(target.asText())
            .forEach(m -> e.add(FieldError.invalid(pp + ".targetPort", target, m)));
      }
    }
    i = 0;
    for (JsonNode ip : spec.path("externalIPs")) {
      String f = "spec.externalIPs[" + i++ + "]";
      if (!Formats.isIp(ip.asText())) {
        e.add(
            FieldError.invalid(
                f, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
      }
    }
    labels("spec.selector", spec.path("selector"), e);
    if (old != null && !old.isMissingNode()) {
      String was = old.path("clusterIP").asText("");
      String now = spec.path("clusterIP").asText("");
      if (!was.isEmpty() && !Objects.equals(was, now)) {
        e.add(FieldError.invalid("spec.clusterIPs[0]", now, "may not change once set"));
      }
    }
  }

  private static void pdb(JsonNode spec, List<FieldError> e) {
    JsonNode min = spec.path("minAvailable");
    JsonNode max = spec.path("maxUnavailable");
    if (!min.isMissingNode() && !min.isNull() && !max.isMissingNode() && !max.isNull()) {
      e.add(
          new FieldError(
              FieldError.Type.INVALID,
              "spec",
              "policy.PodDisruptionBudgetSpec{MinAvailable:"
                  + min
                  + ", MaxUnavailable:"
                  + max
                  + "}",
              "minAvailable and maxUnavailable cannot be both set"));
    }
    intOrPercent("spec.minAvailable", min, e);
    intOrPercent("spec.maxUnavailable", max, e);
    enumOf(
        "spec.unhealthyPodEvictionPolicy",
        spec.path("unhealthyPodEvictionPolicy"),
        List.of("AlwaysAllow", "IfHealthyBudget"),
        e);
  }

  private static void intOrPercent(String f, JsonNode v, List<FieldError> e) {
    if (v.isMissingNode() || v.isNull()) {
      return;
    }
    if (v.isInt()) {
      if (v.asInt() < 0) {
        e.add(FieldError.invalid(f, v, "must be greater than or equal to 0"));
      }
      return;
    }
    String s = v.asText();
    if (!s.matches("[0-9]+%")) {
      e.add(
          FieldError.invalid(
              f,
              v,
              "a valid percent string must be a numeric string followed by an ending '%' (e.g."
                  + " '1%',  or '93%', regex used for validation is '[0-9]+%')"));
    } else if (Integer.parseInt(s.substring(0, s.length() - 1)) > 100) {
      e.add(FieldError.invalid(f, v, "must not be greater than 100%"));
    }
  }

  private static void data(JsonNode obj, List<FieldError> e) {
    Set<String> keys = new HashSet<>();
    long size = 0;
    for (String field : List.of("data", "binaryData", "stringData")) {
      for (Iterator<Map.Entry<String, JsonNode>> it = obj.path(field).fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> d = it.next();
        String f = field + "[" + d.getKey() + "]";
        Formats.configMapKey(d.getKey()).forEach(m -> e.add(FieldError.invalid(f, d.getKey(), m)));
        if (!field.equals("stringData") && !keys.add(d.getKey())) {
          e.add(FieldError.duplicate(f, d.getKey()));
        }
        size += d.getKey().length() + d.getValue().asText("").length();
      }
    }
    if (size > 1024 * 1024) {
      e.add(
          new FieldError(FieldError.Type.TOO_LONG, "[]", null, "must have at most 1048576 bytes"));
    }
  }

  private static void enumOf(String f, JsonNode v, List<String> allowed, List<FieldError> e) {
    if (!v.isMissingNode() && !v.isNull() && !allowed.contains(v.asText())) {
      e.add(FieldError.notSupported(f, v, allowed));
    }
  }
}
