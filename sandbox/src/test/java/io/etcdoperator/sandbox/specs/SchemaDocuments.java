package io.etcdoperator.sandbox.specs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.admission.StructuralSchema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Random documents that follow, mostly, a CRD's own {@code openAPIV3Schema}: the generator of the
 * generated-spec tests.
 *
 * <p>How a value is drawn. The schema node says the type. An object gets each required property
 * almost always and each optional one with a chance that falls with depth (so that documents stay
 * finite and still reach every corner of a pod template); a map ({@code additionalProperties}) gets
 * zero to three entries; an array zero to three items; a node that preserves unknown fields gets a
 * small object of anything. A string is drawn from a pool chosen by the field's name (names of
 * objects get DNS labels, images image references, quantities quantities, schedules cron lines,
 * endpoints URLs, map keys label keys and etcd flag names), with one time in six a value from the
 * hostile pool instead (empty, blank, 300 characters, unicode, a path, a line break); an enum
 * string is one of its values nine times in ten. A number is drawn from the schema's range when it
 * has one, else from the edges (0, -1, the limits of int32 and of a double's exact integers). An
 * int-or-string is either.
 *
 * <p>Then, anywhere, with a small chance: a value of another type, or an unknown field. How often
 * the hostile pool and these come is the document's hostility (drawn per document: some are clean).
 * So most documents look like what a person would write, some are wrong in one place, and a few in
 * many; the API server's own validation ({@code StructuralSchema}) refuses what the schema refuses,
 * and the rest reaches the operator.
 */
final class SchemaDocuments {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  static final List<String> HOSTILE =
      List.of(
          "",
          " ",
          "x".repeat(300),
          "ëtcd-ü",
          "日本語",
          "../../etc/passwd",
          "a\nb",
          "-",
          "true",
          "null",
          "0",
          "-1",
          "${HOME}",
          "UPPER_case",
          "a.b",
          "-leading",
          "trailing-",
          "a".repeat(64));

  private static final List<String> LABELS =
      List.of("demo", "etcd", "a", "test-1", "x9", "my-cluster", "data", "peer", "client");
  private static final List<String> IMAGES =
      List.of(
          "quay.io/coreos/etcd:v3.5.30",
          "quay.io/coreos/etcd:v3.4.23",
          "quay.io/coreos/etcd:v3.6.5",
          "quay.io/coreos/etcd:v3.7.0",
          "registry.k8s.io/etcd:3.5.30-0",
          "etcd",
          "busybox:1.36",
          "quay.io/coreos/etcd@sha256:" + "a".repeat(64),
          "quay.io/coreos/etcd:latest");
  private static final List<String> QUANTITIES =
      List.of("1Gi", "100Mi", "0", "1", "500m", "2", "-1Gi", "1e3", "abc", "10Ei", "0.5", "1.5Gi");
  private static final List<String> DURATIONS =
      List.of("30s", "5m", "1h30m", "0s", "-5m", "10", "abc", "1h", "100ms");
  private static final List<String> SCHEDULES =
      List.of(
          "0 * * * *",
          "*/5 * * * *",
          "@hourly",
          "@daily",
          "@every 5m",
          "61 * * * *",
          "* * *",
          "0 0 31 2 *",
          "0 3 * * 1-5",
          "");
  private static final List<String> URLS =
      List.of("http://127.0.0.1:9000", "https://s3.example.com", "ftp://x", "s3.example.com");
  private static final List<String> LABEL_KEYS =
      List.of(
          "app",
          "example.com/team",
          "app.kubernetes.io/name",
          "tier",
          "UPPER_x",
          "a/b/c",
          "-bad",
          "k".repeat(70),
          "etcd.aenix.io/paused",
          "app.kubernetes.io/instance");
  private static final List<String> FLAGS =
      List.of(
          "snapshot-count",
          "quota-backend-bytes",
          "auto-compaction-retention",
          "auto-compaction-mode",
          "max-request-bytes",
          "heartbeat-interval",
          "election-timeout",
          "data-dir",
          "name",
          "listen-client-urls",
          "initial-cluster",
          "experimental-initial-corrupt-check",
          "log-level",
          "unknown-flag",
          "enable-v2");
  private static final List<String> FLAG_VALUES =
      List.of("10000", "8589934592", "5m", "periodic", "revision", "100", "1000", "info", "x");
  private static final Set<String> QUANTITY_FIELDS =
      Set.of("storage", "cpu", "memory", "sizeLimit", "minReclaimable", "ephemeral-storage");

  private final Random random;
  private final double hostility;

  /**
   * @param hostility how often a value is hostile or of another type: 1 as described above, 0 never
   *     (the seed also draws it, so that some documents are clean and reach the operator)
   */
  SchemaDocuments(long seed, double hostility) {
    this.random = new Random(seed);
    this.hostility = hostility;
  }

  SchemaDocuments(long seed) {
    this(seed, 1);
  }

  Random random() {
    return random;
  }

  /** A value for {@code schema}, the field being {@code field} at {@code depth}. */
  JsonNode value(JsonNode schema, String field, int depth) {
    if (chance(hostility * 0.01)) {
      return anything(depth + 2);
    }
    if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
      return chance(0.5) ? JSON.numberNode(integer(schema)) : JSON.textNode(string(field, schema));
    }
    if (schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
        && !schema.has("properties")) {
      return anything(depth);
    }
    return switch (schema.path("type").asText("")) {
      case "object" -> object(schema, depth);
      case "array" -> array(schema, field, depth);
      case "string" -> JSON.textNode(string(field, schema));
      case "integer" -> JSON.numberNode(integer(schema));
      case "number" -> chance(0.5) ? JSON.numberNode(integer(schema)) : JSON.numberNode(0.5);
      case "boolean" -> JSON.booleanNode(random.nextBoolean());
      default -> anything(depth);
    };
  }

  /**
   * An object for {@code schema}. One with rules of its own ({@code x-kubernetes-validations}, such
   * as "exactly one of s3 or pvc") is drawn again, a few times, until the API server's own check of
   * it passes, unless this one is to be hostile.
   */
  private ObjectNode object(JsonNode schema, int depth) {
    ObjectNode o = drawObject(schema, depth);
    if (!schema.has("x-kubernetes-validations") || chance(hostility * 0.5)) {
      return o;
    }
    StructuralSchema check = new StructuralSchema(schema);
    for (int i = 0; i < 10 && !check.validate(o, null).isEmpty(); i++) {
      o = drawObject(schema, depth);
    }
    return o;
  }

  private ObjectNode drawObject(JsonNode schema, int depth) {
    ObjectNode o = JSON.objectNode();
    JsonNode props = schema.path("properties");
    Set<String> required = new java.util.HashSet<>();
    schema.path("required").forEach(r -> required.add(r.asText()));
    double optional = depth < 2 ? 0.6 : 0.45 / (1 + (depth - 2) * 0.6);
    for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      if (chance(required.contains(p.getKey()) ? 0.97 : optional)) {
        o.set(p.getKey(), value(p.getValue(), p.getKey(), depth + 1));
      }
    }
    JsonNode additional = schema.path("additionalProperties");
    if (additional.isObject()) {
      int n = random.nextInt(4);
      for (int i = 0; i < n; i++) {
        boolean flags = additional.path("type").asText().equals("string") && props.isEmpty();
        String key = pick(flags && chance(0.5) ? FLAGS : LABEL_KEYS);
        o.set(
            key,
            flags && chance(0.5)
                ? JSON.textNode(pick(FLAG_VALUES))
                : value(additional, QUANTITY_FIELDS.contains(key) ? key : "value", depth + 1));
      }
    }
    if (chance(hostility * 0.02)) {
      o.put("unknownField", "surprise");
    }
    return o;
  }

  private ArrayNode array(JsonNode schema, String field, int depth) {
    ArrayNode a = JSON.arrayNode();
    int n = depth > 9 ? 0 : random.nextInt(4);
    for (int i = 0; i < n; i++) {
      a.add(value(schema.path("items"), field, depth + 1));
    }
    return a;
  }

  /**
   * A string for {@code field}: when the schema has a pattern or a length limit, mostly one that
   * keeps to them (redrawn a few times), so that clean documents pass and hostile ones do not.
   */
  private String string(String field, JsonNode schema) {
    String s = drawString(field, schema);
    if (chance(hostility * 0.5)) {
      return s;
    }
    for (int i = 0; i < 8 && !fits(s, schema); i++) {
      s = drawString(field, schema);
    }
    return s;
  }

  private static boolean fits(String s, JsonNode schema) {
    return (!schema.has("pattern")
            || java.util.regex.Pattern.compile(schema.get("pattern").asText()).matcher(s).find())
        && (!schema.has("maxLength") || s.length() <= schema.get("maxLength").asInt());
  }

  private String drawString(String field, JsonNode schema) {
    List<String> values = new ArrayList<>();
    schema.path("enum").forEach(v -> values.add(v.asText()));
    if (!values.isEmpty() && chance(0.9)) {
      return pick(values);
    }
    if (chance(hostility / 6)) {
      return pick(HOSTILE);
    }
    String f = field.toLowerCase(java.util.Locale.ROOT);
    if (f.equals("image")) {
      return pick(IMAGES);
    }
    if (QUANTITY_FIELDS.contains(field) || f.equals("value") && chance(0.3)) {
      return pick(QUANTITIES);
    }
    if (f.equals("schedule")) {
      return pick(SCHEDULES);
    }
    if (f.contains("after")
        || f.contains("timeout")
        || f.contains("period")
        || f.contains("interval")
        || f.endsWith("for")) {
      return pick(DURATIONS);
    }
    if (f.contains("endpoint") || f.contains("url")) {
      return pick(URLS);
    }
    if (f.contains("path")) {
      return pick(List.of("/data", "backups", "a/b", "/", "..", "x/../y"));
    }
    if (f.equals("time")) {
      return pick(List.of("2026-12-06T10:00:00Z", "2026-12-06", "yesterday"));
    }
    return pick(LABELS) + (chance(0.3) ? "-" + random.nextInt(100) : "");
  }

  private long integer(JsonNode schema) {
    if (schema.has("minimum") && !chance(0.2 * hostility)) {
      long min = schema.get("minimum").asLong();
      long max = schema.has("maximum") ? schema.get("maximum").asLong() : min + 10;
      return min + (long) (random.nextDouble() * (max - min + 1));
    }
    if (!chance(hostility)) {
      return random.nextInt(12);
    }
    return switch (random.nextInt(10)) {
      case 0 -> 0;
      case 1 -> -1;
      case 2 -> Integer.MAX_VALUE;
      case 3 -> Integer.MIN_VALUE;
      case 4 -> 9007199254740993L;
      case 5 -> 65536;
      default -> random.nextInt(12);
    };
  }

  /** Any JSON: a scalar, or a small object or array of anything. */
  JsonNode anything(int depth) {
    int kind = random.nextInt(depth > 6 ? 4 : 6);
    return switch (kind) {
      case 0 -> JSON.textNode(pick(HOSTILE));
      case 1 -> JSON.numberNode(integer(JSON.objectNode()));
      case 2 -> JSON.booleanNode(random.nextBoolean());
      case 3 -> JSON.nullNode();
      case 4 -> {
        ObjectNode o = JSON.objectNode();
        o.set(pick(LABELS), anything(depth + 2));
        yield o;
      }
      default -> JSON.arrayNode().add(anything(depth + 2));
    };
  }

  boolean chance(double p) {
    return random.nextDouble() < p;
  }

  <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
