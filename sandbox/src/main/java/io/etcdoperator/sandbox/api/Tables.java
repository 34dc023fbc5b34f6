package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Server-side printing, which kubectl asks for ({@code Accept: ...;as=Table;g=meta.k8s.io}) and
 * which the mock lacks: the columns kubectl shows for pods, StatefulSets, Services, claims and
 * ConfigMaps, and a custom resource's {@code additionalPrinterColumns} (JSON paths of the forms
 * {@code .a.b} and {@code .a[?(@.k=="v")].b}). Other kinds get Name and Age.
 */
public final class Tables {
  private record Column(String name, String type, int priority, Function<JsonNode, Object> value) {}

  private final ObjectMapper mapper;

  public Tables(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** A Table of the objects of {@code body} (a list or one object) of type {@code t}. */
  public String table(ResourceType t, JsonNode body) {
    List<Column> columns = columns(t);
    ObjectNode table = mapper.createObjectNode();
    table.put("kind", "Table");
    table.put("apiVersion", "meta.k8s.io/v1");
    ObjectNode meta = table.putObject("metadata");
    if (body.path("metadata").has("resourceVersion")) {
      meta.set("resourceVersion", body.path("metadata").path("resourceVersion"));
    }
    ArrayNode defs = table.putArray("columnDefinitions");
    for (Column c : columns) {
      ObjectNode d = defs.addObject();
      d.put("name", c.name());
      d.put("type", c.type());
      d.put("format", c.name().equals("Name") ? "name" : "");
      d.put("description", "");
      d.put("priority", c.priority());
    }
    ArrayNode rows = table.putArray("rows");
    List<JsonNode> items = new ArrayList<>();
    if (body.has("items")) {
      body.path("items").forEach(items::add);
    } else {
      items.add(body);
    }
    for (JsonNode item : items) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      for (Column c : columns) {
        Object v = c.value().apply(item);
        if (v == null) {
          cells.addNull();
        } else if (v instanceof Integer i) {
          cells.add(i);
        } else if (v instanceof Long l) {
          cells.add(l);
        } else if (v instanceof Boolean b) {
          cells.add(b);
        } else {
          cells.add(String.valueOf(v));
        }
      }
      ObjectNode object = row.putObject("object");
      object.put("kind", "PartialObjectMetadata");
      object.put("apiVersion", "meta.k8s.io/v1");
      object.set("metadata", item.path("metadata"));
    }
    return table.toString();
  }

  private List<Column> columns(ResourceType t) {
    List<Column> c = new ArrayList<>();
    c.add(new Column("Name", "string", 0, o -> o.path("metadata").path("name").asText()));
    if (!t.printerColumns().isEmpty()) {
      for (ResourceType.PrinterColumn pc : t.printerColumns()) {
        if (pc.jsonPath().equals(".metadata.creationTimestamp")) {
          c.add(new Column(pc.name(), "string", pc.priority(), Tables::age));
        } else {
          c.add(
              new Column(
                  pc.name(),
                  pc.type(),
                  pc.priority(),
                  o -> text(JsonPaths.eval(o, pc.jsonPath()))));
        }
      }
      if (t.printerColumns().stream()
          .noneMatch(pc -> pc.jsonPath().equals(".metadata.creationTimestamp"))) {
        c.add(new Column("Age", "string", 0, Tables::age));
      }
      return c;
    }
    switch (t.kind()) {
      case "Pod" -> {
        c.add(new Column("Ready", "string", 0, Tables::podReady));
        c.add(new Column("Status", "string", 0, Tables::podStatus));
        c.add(new Column("Restarts", "string", 0, Tables::restarts));
        c.add(new Column("Age", "string", 0, Tables::age));
        c.add(new Column("IP", "string", 1, o -> o.path("status").path("podIP").asText("<none>")));
        c.add(
            new Column("Node", "string", 1, o -> o.path("spec").path("nodeName").asText("<none>")));
      }
      case "Node" -> {
        c.add(new Column("Status", "string", 0, Tables::nodeStatus));
        c.add(new Column("Roles", "string", 0, o -> "<none>"));
        c.add(new Column("Age", "string", 0, Tables::age));
        c.add(
            new Column(
                "Version",
                "string",
                0,
                o -> o.path("status").path("nodeInfo").path("kubeletVersion").asText("")));
      }
      case "PersistentVolume" -> {
        c.add(
            new Column(
                "Capacity",
                "string",
                0,
                o -> o.path("spec").path("capacity").path("storage").asText("")));
        c.add(
            new Column(
                "Reclaim Policy",
                "string",
                0,
                o -> o.path("spec").path("persistentVolumeReclaimPolicy").asText("")));
        c.add(new Column("Status", "string", 0, o -> o.path("status").path("phase").asText("")));
        c.add(
            new Column(
                "Claim",
                "string",
                0,
                o ->
                    o.path("spec").path("claimRef").path("namespace").asText("")
                        + "/"
                        + o.path("spec").path("claimRef").path("name").asText("")));
        c.add(
            new Column(
                "StorageClass",
                "string",
                0,
                o -> o.path("spec").path("storageClassName").asText("")));
        c.add(new Column("Age", "string", 0, Tables::age));
      }
      case "StatefulSet" -> {
        c.add(
            new Column(
                "Ready",
                "string",
                0,
                o ->
                    o.path("status").path("readyReplicas").asInt(0)
                        + "/"
                        + o.path("spec").path("replicas").asInt(1)));
        c.add(new Column("Age", "string", 0, Tables::age));
      }
      case "Service" -> {
        c.add(
            new Column("Type", "string", 0, o -> o.path("spec").path("type").asText("ClusterIP")));
        c.add(
            new Column(
                "Cluster-IP", "string", 0, o -> o.path("spec").path("clusterIP").asText("<none>")));
        c.add(new Column("Port(s)", "string", 0, Tables::ports));
        c.add(new Column("Age", "string", 0, Tables::age));
      }
      case "PersistentVolumeClaim" -> {
        c.add(
            new Column(
                "Status", "string", 0, o -> o.path("status").path("phase").asText("Pending")));
        c.add(
            new Column(
                "Capacity",
                "string",
                0,
                o -> o.path("status").path("capacity").path("storage").asText("")));
        c.add(new Column("Volume", "string", 0, o -> o.path("spec").path("volumeName").asText("")));
        c.add(
            new Column(
                "StorageClass",
                "string",
                0,
                o -> o.path("spec").path("storageClassName").asText("")));
        c.add(new Column("Age", "string", 0, Tables::age));
      }
      case "ConfigMap" -> {
        c.add(new Column("Data", "integer", 0, o -> o.path("data").size()));
        c.add(new Column("Age", "string", 0, Tables::age));
      }
      default -> c.add(new Column("Age", "string", 0, Tables::age));
    }
    return c;
  }

  private static Object text(JsonNode n) {
    if (n == null || n.isMissingNode() || n.isNull()) {
      return null;
    }
    return n.isValueNode() ? n.asText() : n.toString();
  }

  static String age(JsonNode o) {
    String ts = o.path("metadata").path("creationTimestamp").asText(null);
    if (ts == null) {
      return "<unknown>";
    }
    try {
      Duration d = Duration.between(Instant.parse(ts), Instant.now());
      long s = Math.max(0, d.getSeconds());
      if (s < 120) {
        return s + "s";
      }
      if (s < 3600) {
        return (s / 60) + "m";
      }
      if (s < 48 * 3600) {
        return (s / 3600) + "h";
      }
      return (s / 86400) + "d";
    } catch (DateTimeParseException e) {
      return "<unknown>";
    }
  }

  private static String podReady(JsonNode o) {
    int total = o.path("spec").path("containers").size();
    int ready = 0;
    for (JsonNode s : o.path("status").path("containerStatuses")) {
      if (s.path("ready").asBoolean(false)) {
        ready++;
      }
    }
    return ready + "/" + total;
  }

  private static String podStatus(JsonNode o) {
    if (o.path("metadata").has("deletionTimestamp")) {
      return "Terminating";
    }
    for (JsonNode s : o.path("status").path("containerStatuses")) {
      JsonNode waiting = s.path("state").path("waiting");
      if (waiting.has("reason")) {
        return waiting.path("reason").asText();
      }
      JsonNode terminated = s.path("state").path("terminated");
      if (terminated.has("reason")
          && !o.path("status").path("phase").asText("").matches("Succeeded|Failed")) {
        return terminated.path("reason").asText();
      }
    }
    return o.path("status").path("phase").asText("Pending");
  }

  /**
   * As kubectl prints a node: Ready or NotReady (Unknown too), then SchedulingDisabled if cordoned.
   */
  private static String nodeStatus(JsonNode o) {
    String ready = "NotReady";
    for (JsonNode c : o.path("status").path("conditions")) {
      if (c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True")) {
        ready = "Ready";
      }
    }
    return o.path("spec").path("unschedulable").asBoolean(false)
        ? ready + ",SchedulingDisabled"
        : ready;
  }

  private static String restarts(JsonNode o) {
    int n = 0;
    for (JsonNode s : o.path("status").path("containerStatuses")) {
      n += s.path("restartCount").asInt(0);
    }
    return String.valueOf(n);
  }

  private static String ports(JsonNode o) {
    List<String> out = new ArrayList<>();
    for (JsonNode p : o.path("spec").path("ports")) {
      out.add(p.path("port").asText() + "/" + p.path("protocol").asText("TCP"));
    }
    return out.isEmpty() ? "<none>" : String.join(",", out);
  }
}
