package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A CRD version's OpenAPI v3 schema applied to a custom resource as the API server applies it, in
 * its order: prune, default, validate (schema, then CEL rules).
 *
 * <ul>
 *   <li><b>Pruning</b>: a field the schema does not declare is dropped, unless its object has
 *       {@code x-kubernetes-preserve-unknown-fields} or {@code additionalProperties}; the root's
 *       {@code apiVersion}, {@code kind} and {@code metadata} are kept, and so are those of an
 *       {@code x-kubernetes-embedded-resource}.
 *   <li><b>Defaulting</b>: a missing property whose schema has a {@code default} gets it (the
 *       default itself pruned and defaulted), inside every object present.
 *   <li><b>Validation</b>: {@code type} (integer, number, string, boolean, object, array), {@code
 *       x-kubernetes-int-or-string}, {@code nullable}, {@code required}, {@code enum}, {@code
 *       minimum}/{@code maximum} (and their exclusive forms), {@code minLength}/{@code maxLength},
 *       {@code minItems}/{@code maxItems}, {@code pattern}, {@code minProperties}/{@code
 *       maxProperties}, {@code additionalProperties} schemas (maps), {@code items}; then the {@code
 *       x-kubernetes-validations} rules of each node present ({@link CelRules}), with {@code
 *       oldSelf} on an update.
 * </ul>
 *
 * <p>Errors name the field and speak as the API server does ({@code spec.replicas: Invalid value:
 * -1: spec.replicas in body should be greater than or equal to 0}). Not applied: {@code format},
 * {@code allOf}/{@code anyOf}/{@code oneOf}/{@code not}, list types and map keys ({@code
 * x-kubernetes-list-type}), {@code messageExpression}.
 */
public final class StructuralSchema {
  private static final Set<String> ROOT_KEPT = Set.of("apiVersion", "kind", "metadata");

  private final JsonNode schema;

  public StructuralSchema(JsonNode openApiV3Schema) {
    this.schema = openApiV3Schema;
  }

  /** Prunes and defaults the object in place (the root's apiVersion, kind, metadata are kept). */
  public void pruneAndDefault(ObjectNode object) {
    prune(object, schema, true);
    defaults(object, schema);
  }

  /** The errors of an object (already pruned and defaulted), given its stored version or null. */
  public List<FieldError> validate(JsonNode object, JsonNode old) {
    List<FieldError> e = new ArrayList<>();
    ObjectNode body = (ObjectNode) object.deepCopy();
    ROOT_KEPT.forEach(body::remove);
    ObjectNode oldBody = null;
    if (old != null && old.isObject()) {
      oldBody = old.deepCopy();
      ROOT_KEPT.forEach(oldBody::remove);
    }
    ObjectNode rootSchema = ((ObjectNode) schema).deepCopy();
    JsonNode props = rootSchema.path("properties");
    if (props.isObject()) {
      ROOT_KEPT.forEach(((ObjectNode) props)::remove);
    }
    validate("", body, rootSchema, e);
    rules("", body, oldBody, rootSchema, e);
    return e;
  }

  private static void prune(JsonNode node, JsonNode s, boolean root) {
    if (node == null || s == null || s.isMissingNode()) {
      return;
    }
    if (node.isObject()) {
      ObjectNode o = (ObjectNode) node;
      JsonNode props = s.path("properties");
      JsonNode additional = s.path("additionalProperties");
      boolean preserve = s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
      boolean embedded = s.path("x-kubernetes-embedded-resource").asBoolean(false);
      List<String> drop = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        String k = f.getKey();
        if ((root || embedded) && ROOT_KEPT.contains(k)) {
          continue;
        }
        if (props.has(k)) {
          prune(f.getValue(), props.get(k), false);
        } else if (additional.isObject()) {
          prune(f.getValue(), additional, false);
        } else if (!preserve && !additional.asBoolean(false)) {
          drop.add(k);
        }
      }
      drop.forEach(o::remove);
    } else if (node.isArray()) {
      node.forEach(item -> prune(item, s.path("items"), false));
    }
  }

  private static void defaults(JsonNode node, JsonNode s) {
    if (node == null || s == null || s.isMissingNode()) {
      return;
    }
    if (node.isObject()) {
      ObjectNode o = (ObjectNode) node;
      for (Iterator<Map.Entry<String, JsonNode>> it = s.path("properties").fields();
          it.hasNext(); ) {
        Map.Entry<String, JsonNode> p = it.next();
        if (!o.has(p.getKey()) && p.getValue().has("default")) {
          JsonNode d = p.getValue().get("default").deepCopy();
          prune(d, p.getValue(), false);
          o.set(p.getKey(), d);
        }
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        JsonNode child = s.path("properties").path(f.getKey());
        defaults(f.getValue(), child.isMissingNode() ? s.path("additionalProperties") : child);
      }
    } else if (node.isArray()) {
      node.forEach(item -> defaults(item, s.path("items")));
    }
  }

  private static String child(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  private static void validate(String path, JsonNode v, JsonNode s, List<FieldError> e) {
    if (s == null || s.isMissingNode() || !s.isObject()) {
      return;
    }
    String field = path.isEmpty() ? "<root>" : path;
    if (v.isNull()) {
      if (!s.path("nullable").asBoolean(false)) {
        e.add(
            FieldError.invalid(
                field,
                v,
                field
                    + " in body must be of type "
                    + s.path("type").asText("object")
                    + ": \"null\""));
      }
      return;
    }
    if (s.path("x-kubernetes-int-or-string").asBoolean(false)) {
      if (!v.isIntegralNumber() && !v.isTextual()) {
        e.add(
            new FieldError(
                FieldError.Type.INVALID,
                field,
                FieldError.quote(typeOf(v)),
                field + " in body must be of type integer,string: " + FieldError.quote(typeOf(v))));
        return;
      }
    } else if (s.has("type") && !typeMatches(s.get("type").asText(), v)) {
      e.add(
          new FieldError(
              FieldError.Type.INVALID,
              field,
              FieldError.quote(typeOf(v)),
              field
                  + " in body must be of type "
                  + s.get("type").asText()
                  + ": "
                  + FieldError.quote(typeOf(v))));
      return;
    }
    if (s.has("enum")) {
      boolean found = false;
      List<String> allowed = new ArrayList<>();
      for (JsonNode a : s.get("enum")) {
        found |= a.equals(v) || (a.isNumber() && v.isNumber() && a.asDouble() == v.asDouble());
        allowed.add(a.asText());
      }
      if (!found) {
        e.add(FieldError.notSupported(field, v, allowed));
      }
    }
    if (v.isNumber()) {
      number(field, v, s, e);
    }
    if (v.isTextual()) {
      String t = v.asText();
      if (s.has("maxLength") && t.codePointCount(0, t.length()) > s.get("maxLength").asInt()) {
        e.add(FieldError.tooLong(field, s.get("maxLength").asInt()));
      }
      if (s.has("minLength") && t.codePointCount(0, t.length()) < s.get("minLength").asInt()) {
        e.add(
            FieldError.invalid(
                field,
                v,
                field
                    + " in body should be at least "
                    + s.get("minLength").asInt()
                    + " chars long"));
      }
      if (s.has("pattern") && !Pattern.compile(s.get("pattern").asText()).matcher(t).find()) {
        e.add(
            FieldError.invalid(
                field, v, field + " in body should match '" + s.get("pattern").asText() + "'"));
      }
    }
    if (v.isArray()) {
      if (s.has("maxItems") && v.size() > s.get("maxItems").asInt()) {
        e.add(
            new FieldError(
                FieldError.Type.TOO_LONG,
                field,
                null,
                "must have at most " + s.get("maxItems").asInt() + " items"));
      }
      if (s.has("minItems") && v.size() < s.get("minItems").asInt()) {
        e.add(
            FieldError.invalid(
                field,
                v,
                field + " in body should have at least " + s.get("minItems").asInt() + " items"));
      }
      int i = 0;
      for (JsonNode item : v) {
        validate(path + "[" + i++ + "]", item, s.path("items"), e);
      }
    }
    if (v.isObject()) {
      for (JsonNode r : s.path("required")) {
        if (!v.has(r.asText())) {
          e.add(FieldError.required(child(path, r.asText()), ""));
        }
      }
      if (s.has("maxProperties") && v.size() > s.get("maxProperties").asInt()) {
        e.add(
            new FieldError(
                FieldError.Type.TOO_LONG,
                field,
                null,
                "must have at most " + s.get("maxProperties").asInt() + " items"));
      }
      if (s.has("minProperties") && v.size() < s.get("minProperties").asInt()) {
        e.add(
            FieldError.invalid(
                field,
                v,
                field
                    + " in body should have at least "
                    + s.get("minProperties").asInt()
                    + " properties"));
      }
      JsonNode props = s.path("properties");
      JsonNode additional = s.path("additionalProperties");
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        if (props.has(f.getKey())) {
          validate(child(path, f.getKey()), f.getValue(), props.get(f.getKey()), e);
        } else if (additional.isObject()) {
          validate(path + "[" + f.getKey() + "]", f.getValue(), additional, e);
        }
      }
    }
  }

  private static void number(String field, JsonNode v, JsonNode s, List<FieldError> e) {
    double d = v.asDouble();
    if (s.has("minimum")) {
      double min = s.get("minimum").asDouble();
      boolean exclusive = s.path("exclusiveMinimum").asBoolean(false);
      if (exclusive ? d <= min : d < min) {
        e.add(
            FieldError.invalid(
                field,
                v,
                field
                    + " in body should be greater than "
                    + (exclusive ? "" : "or equal to ")
                    + num(min)));
      }
    }
    if (s.has("maximum")) {
      double max = s.get("maximum").asDouble();
      boolean exclusive = s.path("exclusiveMaximum").asBoolean(false);
      if (exclusive ? d >= max : d > max) {
        e.add(
            FieldError.invalid(
                field,
                v,
                field
                    + " in body should be less than "
                    + (exclusive ? "" : "or equal to ")
                    + num(max)));
      }
    }
  }

  private static String num(double d) {
    return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
  }

  private static boolean typeMatches(String type, JsonNode v) {
    return switch (type) {
      case "object" -> v.isObject();
      case "array" -> v.isArray();
      case "string" -> v.isTextual();
      case "integer" ->
          v.isIntegralNumber() || (v.isNumber() && v.asDouble() == Math.rint(v.asDouble()));
      case "number" -> v.isNumber();
      case "boolean" -> v.isBoolean();
      default -> true;
    };
  }

  private static String typeOf(JsonNode v) {
    if (v.isObject()) {
      return "object";
    }
    if (v.isArray()) {
      return "array";
    }
    if (v.isTextual()) {
      return "string";
    }
    if (v.isIntegralNumber()) {
      return "integer";
    }
    if (v.isNumber()) {
      return "number";
    }
    if (v.isBoolean()) {
      return "boolean";
    }
    return "null";
  }

  /** The CEL rules of every node present, deepest first as the server lists them is not kept. */
  private static void rules(String path, JsonNode v, JsonNode old, JsonNode s, List<FieldError> e) {
    if (v == null || v.isNull() || s == null || !s.isObject()) {
      return;
    }
    String field = path.isEmpty() ? "<root>" : path;
    for (JsonNode r : s.path("x-kubernetes-validations")) {
      String rule = r.path("rule").asText();
      if (CelRules.isTransition(rule) && (old == null || old.isNull())) {
        continue;
      }
      boolean ok;
      try {
        ok = CelRules.holds(rule, v, CelRules.isTransition(rule) ? old : null);
      } catch (CelRules.CompileError ce) {
        e.add(FieldError.invalid(field, v, "rule compile error: " + ce.getMessage()));
        continue;
      }
      if (!ok) {
        String message = r.path("message").asText("failed rule: " + rule);
        String at =
            r.has("fieldPath")
                ? child(path, r.get("fieldPath").asText().replaceFirst("^\\.", ""))
                : field;
        String reason = r.path("reason").asText("FieldValueInvalid");
        e.add(
            switch (reason) {
              case "FieldValueForbidden" -> FieldError.forbidden(at, message);
              case "FieldValueRequired" -> FieldError.required(at, message);
              case "FieldValueDuplicate" ->
                  new FieldError(FieldError.Type.DUPLICATE, at, null, message);
              default ->
                  new FieldError(FieldError.Type.INVALID, at, FieldError.quote(typeOf(v)), message);
            });
      }
    }
    if (v.isObject()) {
      JsonNode props = s.path("properties");
      JsonNode additional = s.path("additionalProperties");
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        JsonNode was = old == null ? null : old.get(f.getKey());
        if (props.has(f.getKey())) {
          rules(child(path, f.getKey()), f.getValue(), was, props.get(f.getKey()), e);
        } else if (additional.isObject()) {
          rules(path + "[" + f.getKey() + "]", f.getValue(), was, additional, e);
        }
      }
    } else if (v.isArray()) {
      int i = 0;
      for (JsonNode item : v) {
        rules(path + "[" + i + "]", item, null, s.path("items"), e);
        i++;
      }
    }
  }

  /** Every rule of the schema, with the path of the node that carries it. */
  public static List<String[]> allRules(JsonNode s, String path) {
    List<String[]> out = new ArrayList<>();
    collect(s, path, out);
    return out;
  }

  private static void collect(JsonNode s, String path, List<String[]> out) {
    if (s == null || !s.isObject()) {
      return;
    }
    for (JsonNode r : s.path("x-kubernetes-validations")) {
      out.add(new String[] {path, r.path("rule").asText()});
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = s.path("properties").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      collect(p.getValue(), child(path, p.getKey()), out);
    }
    collect(s.path("additionalProperties"), path + "[*]", out);
    collect(s.path("items"), path + "[*]", out);
  }

  /** An empty array, for callers that build lists. */
  static ArrayNode emptyArray() {
    return JsonNodeFactory.instance.arrayNode();
  }
}
