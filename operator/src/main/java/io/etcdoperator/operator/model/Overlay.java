package io.etcdoperator.operator.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.etcdoperator.api.v1alpha1.EmbeddedObjectMetadata;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BinaryOperator;

/**
 * Lays a user's template over an object the operator built, on their JSON form: a field the user
 * set (present in its JSON) replaces ours, except fields with a rule (lists merged by name, lists
 * appended). Working on the JSON form covers every field of a PodSpec or ServiceSpec, also those a
 * later Kubernetes adds, without a line per field.
 */
final class Overlay {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  /** Merge rule of one field: (ours, the user's) -> result. */
  interface Rule extends BinaryOperator<Object> {}

  private Overlay() {}

  static Map<String, Object> toMap(Object value) {
    return value == null ? new LinkedHashMap<>() : MAPPER.convertValue(value, MAP);
  }

  static <T> T fromMap(Map<String, Object> map, Class<T> type) {
    return MAPPER.convertValue(map, type);
  }

  /** A deep copy, through JSON: fabric8 model objects are mutable and shared otherwise. */
  static <T> T copy(T value, Class<T> type) {
    return value == null ? null : MAPPER.convertValue(toMap(value), type);
  }

  /** {@code user} over {@code base}: the user's fields replace ours, or merge by their rule. */
  static Map<String, Object> overlay(
      Map<String, Object> base, Map<String, Object> user, Map<String, Rule> rules) {
    Map<String, Object> out = new LinkedHashMap<>(base);
    user.forEach(
        (key, value) -> {
          Rule rule = rules.get(key);
          out.put(
              key, rule != null && out.containsKey(key) ? rule.apply(out.get(key), value) : value);
        });
    return out;
  }

  /** Ours, then the user's. */
  static Object append(Object base, Object user) {
    List<Object> out = new ArrayList<>(list(base));
    out.addAll(list(user));
    return out;
  }

  /** The user's, then ours: for lists where a later entry wins and ours must win. */
  static Object prepend(Object base, Object user) {
    return append(user, base);
  }

  /** Entries named alike: the user's replaces ours in place; new names are appended. */
  static Object mergeByName(Object base, Object user) {
    return mergeByName(base, user, false);
  }

  /** Entries named alike: the user's fields replace ours in place; new names are appended. */
  static Object mergeByNameFieldwise(Object base, Object user) {
    return mergeByName(base, user, true);
  }

  @SuppressWarnings("unchecked")
  private static Object mergeByName(Object base, Object user, boolean fieldwise) {
    Map<Object, Object> byName = new LinkedHashMap<>();
    List<Object> unnamed = new ArrayList<>();
    for (Object entry : append(base, user) instanceof List<?> l ? l : List.of()) {
      Object name = entry instanceof Map<?, ?> m ? m.get("name") : null;
      if (name == null) {
        unnamed.add(entry);
      } else if (fieldwise && byName.get(name) instanceof Map<?, ?> ours) {
        Map<String, Object> merged = new LinkedHashMap<>((Map<String, Object>) ours);
        merged.putAll((Map<String, Object>) entry);
        byName.put(name, merged);
      } else {
        byName.put(name, entry);
      }
    }
    List<Object> out = new ArrayList<>(byName.values());
    out.addAll(unnamed);
    return out;
  }

  /** The operator's labels of a cluster, then a template's (validation keeps ours unchanged). */
  static Map<String, String> labels(String cluster, EmbeddedObjectMetadata template) {
    Map<String, String> labels = new LinkedHashMap<>(Names.labels(cluster));
    if (template != null && template.getLabels() != null) {
      template.getLabels().forEach(labels::putIfAbsent);
    }
    return labels;
  }

  /** A template's annotations, or null when it has none. */
  static Map<String, String> annotations(EmbeddedObjectMetadata template) {
    return template == null
            || template.getAnnotations() == null
            || template.getAnnotations().isEmpty()
        ? null
        : new LinkedHashMap<>(template.getAnnotations());
  }

  private static List<?> list(Object value) {
    return value instanceof List<?> l ? l : List.of();
  }

  /**
   * A short hash of an object's content, independent of the order of map keys and of the order in
   * which the model classes declare their fields: the JSON form with every map sorted by key.
   */
  static String hash(Object value) {
    try {
      byte[] json =
          MAPPER
              .writer()
              .with(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
              .writeValueAsString(toMap(value))
              .getBytes(StandardCharsets.UTF_8);
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(json);
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot hash " + value.getClass().getSimpleName(), e);
    }
  }
}
