package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * RFC 7386 JSON merge patch, as a real API server applies {@code application/merge-patch+json}: an
 * object in the patch merges into the target field by field, {@code null} removes a field, and
 * anything else (a list among them) replaces the target's value.
 */
final class JsonMergePatch {
  private JsonMergePatch() {}

  static JsonNode apply(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result =
        target != null && target.isObject()
            ? ((ObjectNode) target).deepCopy()
            : ((ObjectNode) patch).objectNode();
    Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      if (f.getValue().isNull()) {
        result.remove(f.getKey());
      } else {
        result.set(f.getKey(), apply(result.get(f.getKey()), f.getValue()));
      }
    }
    return result;
  }
}
