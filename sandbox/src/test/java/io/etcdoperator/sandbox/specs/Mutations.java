package io.etcdoperator.sandbox.specs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One to three edits of a document a person wrote (aenix's published examples, ours): a value
 * replaced by one of another type, a string by a hostile one, a number by an edge, a field removed,
 * an unknown field added, an array item doubled. Only under {@code spec}: the name and namespace
 * stay, as a user's edits would leave them.
 */
final class Mutations {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private Mutations() {}

  /** Where a value sits: its parent and its key (a field name, or an index as text). */
  private record Slot(JsonNode parent, String key, JsonNode value) {}

  static ObjectNode mutate(ObjectNode document, SchemaDocuments g) {
    ObjectNode doc = document.deepCopy();
    int edits = 1 + g.random().nextInt(3);
    for (int i = 0; i < edits; i++) {
      List<Slot> slots = new ArrayList<>();
      collect(doc, "spec", doc.path("spec"), slots);
      if (slots.isEmpty()) {
        return doc;
      }
      edit(g.pick(slots), g);
    }
    return doc;
  }

  private static void collect(JsonNode parent, String key, JsonNode value, List<Slot> out) {
    if (value.isMissingNode()) {
      return;
    }
    out.add(new Slot(parent, key, value));
    if (value.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        collect(value, e.getKey(), e.getValue(), out);
      }
    } else if (value.isArray()) {
      for (int i = 0; i < value.size(); i++) {
        collect(value, Integer.toString(i), value.get(i), out);
      }
    }
  }

  private static void edit(Slot s, SchemaDocuments g) {
    JsonNode replacement =
        switch (g.random().nextInt(7)) {
          case 0 -> g.anything(3);
          case 1 -> JSON.textNode(g.pick(SchemaDocuments.HOSTILE));
          case 2 ->
              JSON.numberNode(
                  g.pick(List.of(-1L, 0L, (long) Integer.MAX_VALUE, 9007199254740993L, 100000L)));
          case 3 -> null; // removed
          case 4 -> {
            if (s.value().isObject()) {
              ObjectNode o = s.value().deepCopy();
              o.put("unknownField", g.pick(SchemaDocuments.HOSTILE));
              yield o;
            }
            yield g.anything(3);
          }
          case 5 -> {
            if (s.value().isArray() && !s.value().isEmpty()) {
              ArrayNode a = s.value().deepCopy();
              a.add(a.get(0).deepCopy());
              yield a;
            }
            yield JSON.textNode(s.value().asText() + s.value().asText());
          }
          default -> JSON.booleanNode(true);
        };
    if (s.parent().isObject()) {
      ObjectNode p = (ObjectNode) s.parent();
      if (replacement == null) {
        p.remove(s.key());
      } else {
        p.set(s.key(), replacement);
      }
    } else if (s.parent().isArray()) {
      ArrayNode p = (ArrayNode) s.parent();
      int i = Integer.parseInt(s.key());
      if (replacement == null) {
        p.remove(i);
      } else {
        p.set(i, replacement);
      }
    }
  }
}
