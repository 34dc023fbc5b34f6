package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The body of a 422 the API server answers to an object that fails validation: a Status with reason
 * {@code Invalid}, the message {@code <Kind>.<group> "<name>" is invalid: <errors>} (one error as
 * is, several in brackets), and one cause per error naming its field.
 */
public final class Invalid {
  private Invalid() {}

  /** The Status, as JSON. */
  public static String status(String kind, String group, String name, List<FieldError> errors) {
    String qualified = group.isEmpty() ? kind : kind + "." + group;
    String list =
        errors.size() == 1
            ? errors.get(0).toString()
            : "["
                + errors.stream().map(FieldError::toString).collect(Collectors.joining(", "))
                + "]";
    ObjectNode s = Serialization.jsonMapper().createObjectNode();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Failure");
    s.put("message", qualified + " \"" + name + "\" is invalid: " + list);
    s.put("reason", "Invalid");
    ObjectNode details = s.putObject("details");
    details.put("name", name);
    if (!group.isEmpty()) {
      details.put("group", group);
    }
    details.put("kind", kind);
    ArrayNode causes = details.putArray("causes");
    for (FieldError e : errors) {
      causes
          .addObject()
          .put("reason", e.reason())
          .put("message", e.message())
          .put("field", e.field());
    }
    s.put("code", 422);
    return s.toString();
  }
}
