package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;
import static io.etcdoperator.sandbox.api.Responses.status;
import static io.etcdoperator.sandbox.api.Responses.success;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The {@code pods/binding} subresource (also {@code POST bindings}), as the scheduler uses it: sets
 * {@code spec.nodeName} of a pod that has none, and its PodScheduled condition True. A pod already
 * bound or being deleted is a 409, as on a real server; the spec of a bound pod stays immutable to
 * everyone else (see CoreValidation).
 */
public final class BindingHandler implements Handler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;

  public BindingHandler(Store store) {
    this.store = store;
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    ApiPath api = request.api();
    JsonNode binding = mapper.readTree(request.body());
    String pod =
        "pods".equals(api.plural()) ? api.name() : binding.path("metadata").path("name").asText("");
    return bind(api.namespace(), pod, binding);
  }

  private MockResponse bind(String namespace, String name, JsonNode binding) throws Exception {
    String node = binding.path("target").path("name").asText("");
    if (node.isEmpty()) {
      return status(
          422, "Invalid", "Binding \"" + name + "\" is invalid: target.name: Required value");
    }
    String objectPath = "/api/v1/namespaces/" + namespace + "/pods/" + name;
    return store.composite(
        () -> {
          MockResponse current = store.get(objectPath);
          if (current.code() != 200) {
            return status(404, "NotFound", "pods \"" + name + "\" not found");
          }
          ObjectNode pod = (ObjectNode) mapper.readTree(current.getBody().readUtf8());
          String conflict = null;
          if (pod.path("metadata").has("deletionTimestamp")) {
            conflict = "pod " + name + " is being deleted, cannot be assigned to a host";
          } else if (!pod.path("spec").path("nodeName").asText("").isEmpty()) {
            conflict =
                "pod "
                    + name
                    + " is already assigned to node \""
                    + pod.path("spec").path("nodeName").asText()
                    + "\"";
          }
          if (conflict != null) {
            return status(
                409,
                "Conflict",
                "Operation cannot be fulfilled on pods/binding \"" + name + "\": " + conflict);
          }
          ((ObjectNode) pod.path("spec")).put("nodeName", node);
          MockResponse put = store.put(objectPath, pod.toString());
          if (put.code() >= 300) {
            return put;
          }
          ObjectNode stored = (ObjectNode) mapper.readTree(put.getBody().readUtf8());
          ObjectNode st =
              stored.path("status").isObject()
                  ? (ObjectNode) stored.get("status")
                  : stored.putObject("status");
          ArrayNode conditions = mapper.createArrayNode();
          for (JsonNode c : st.path("conditions")) {
            if (!"PodScheduled".equals(c.path("type").asText())) {
              conditions.add(c);
            }
          }
          conditions
              .addObject()
              .put("type", "PodScheduled")
              .put("status", "True")
              .put("lastTransitionTime", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
          st.set("conditions", conditions);
          store.put(objectPath + "/status", stored.toString());
          return json(201, success(201).toString());
        });
  }
}
