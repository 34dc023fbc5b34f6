package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * An approximation of Kubernetes' strategic merge patch, which the mock server lacks (it answers
 * 415): objects merge as in a JSON merge patch; a list of objects merges element by element on a
 * merge key ({@code name}, else {@code mountPath}, {@code containerPort}, {@code type}, {@code ip})
 * when every element of both lists has it, and is replaced otherwise; {@code $patch: delete}
 * removes an element, {@code $patch: replace} replaces, other {@code $} directives are ignored.
 * Real strategic merge takes the merge key per field from the schema; this guesses it per list.
 */
public final class StrategicMerge {
  private static final List<String> MERGE_KEYS =
      List.of("name", "mountPath", "containerPort", "type", "ip");

  private StrategicMerge() {}

  public static JsonNode apply(JsonNode target, JsonNode patch) {
    if (!(patch instanceof ObjectNode p)) {
      return patch;
    }
    if (p.has("$patch") && "replace".equals(p.get("$patch").asText())) {
      ObjectNode copy = p.deepCopy();
      copy.remove("$patch");
      return copy;
    }
    ObjectNode result =
        target instanceof ObjectNode t ? t.deepCopy() : JsonNodeFactory.instance.objectNode();
    Iterator<Map.Entry<String, JsonNode>> fields = p.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      String key = f.getKey();
      JsonNode value = f.getValue();
      if (key.startsWith("$")) {
        continue;
      }
      if (value.isNull()) {
        result.remove(key);
      } else if (value.isObject()) {
        result.set(key, apply(result.get(key), value));
      } else if (value.isArray() && result.get(key) instanceof ArrayNode existing) {
        result.set(key, mergeList(existing, (ArrayNode) value));
      } else {
        result.set(key, value);
      }
    }
    return result;
  }

  private static JsonNode mergeList(ArrayNode target, ArrayNode patch) {
    String key = mergeKey(target, patch);
    if (key == null) {
      return patch;
    }
    ArrayNode result = target.deepCopy();
    for (JsonNode element : patch) {
      String id = element.get(key).asText();
      int index = indexOf(result, key, id);
      boolean delete = element.has("$patch") && "delete".equals(element.get("$patch").asText());
      if (delete) {
        if (index >= 0) {
          result.remove(index);
        }
      } else if (index >= 0) {
        result.set(index, apply(result.get(index), element));
      } else {
        result.add(apply(null, element));
      }
    }
    return result;
  }

  private static String mergeKey(ArrayNode target, ArrayNode patch) {
    for (String k : MERGE_KEYS) {
      if (allHave(target, k) && allHave(patch, k) && patch.size() > 0) {
        return k;
      }
    }
    return null;
  }

  private static boolean allHave(ArrayNode list, String key) {
    for (JsonNode e : list) {
      if (!e.isObject() || !e.has(key)) {
        return false;
      }
    }
    return true;
  }

  private static int indexOf(ArrayNode list, String key, String id) {
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i).get(key).asText().equals(id)) {
        return i;
      }
    }
    return -1;
  }
}
