package io.etcdoperator.operator.act;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A write the API server refused for a reason that another try will not change: forbidden (403),
 * invalid (422, an immutable field among them), or malformed (400, 405, 415). Expected: it becomes
 * a condition and an Event naming the object, the field and the server's message, and the reconcile
 * goes on to write status. A conflict (409), a vanished object (404) or a server error is not a
 * refusal: the next reconcile, soon, is the retry.
 *
 * @param verb create, update, patch or delete
 * @param kind the object's kind
 * @param name the object's name
 * @param code the HTTP status
 * @param fields the fields the server named, if any
 * @param message the server's message
 */
public record ApiRefusal(
    String verb, String kind, String name, int code, List<String> fields, String message) {
  private static final List<Integer> REFUSALS = List.of(400, 403, 405, 415, 422);

  public ApiRefusal {
    fields = List.copyOf(fields);
  }

  /** The refusal {@code e} is, or empty when it is not one (a conflict, a server error). */
  static Optional<ApiRefusal> of(
      String verb, String kind, String name, KubernetesClientException e) {
    if (!REFUSALS.contains(e.getCode())) {
      return Optional.empty();
    }
    Status status = e.getStatus();
    List<String> fields =
        status == null || status.getDetails() == null || status.getDetails().getCauses() == null
            ? List.of()
            : status.getDetails().getCauses().stream()
                .map(StatusCause::getField)
                .filter(f -> f != null && !f.isBlank())
                .distinct()
                .toList();
    String message =
        status != null && status.getMessage() != null ? status.getMessage() : e.getMessage();
    return Optional.of(new ApiRefusal(verb, kind, name, e.getCode(), fields, message));
  }

  static Optional<ApiRefusal> of(String verb, HasMetadata object, KubernetesClientException e) {
    return of(verb, object.getKind(), object.getMetadata().getName(), e);
  }

  /** For conditions and Events: what was refused, which fields, and the server's words. */
  public String describe() {
    return "the API server refused to "
        + verb
        + " "
        + kind
        + " "
        + name
        + " ("
        + code
        + (fields.isEmpty() ? "" : ", " + fields.stream().collect(Collectors.joining(", ")))
        + "): "
        + message;
  }
}
