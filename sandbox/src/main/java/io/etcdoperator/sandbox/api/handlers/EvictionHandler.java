package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;
import static io.etcdoperator.sandbox.api.Responses.status;
import static io.etcdoperator.sandbox.api.Responses.statusNode;
import static io.etcdoperator.sandbox.api.Responses.success;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.store.Store;
import io.etcdoperator.sandbox.controller.Selectors;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code pods/eviction} subresource (policy/v1 Eviction), as {@code kubectl drain} uses it: a
 * pod that is Pending, finished or already being deleted is deleted at once; otherwise the
 * PodDisruptionBudget of its namespace that selects it (more than one: 500, as the real server)
 * must allow a disruption: its status must have been computed for its generation and say {@code
 * disruptionsAllowed} above 0, which the eviction then decrements (so that two evictions do not
 * both spend the last one); else 429 TooManyRequests with the real message and cause. A pod that is
 * not Ready spends nothing when the budget has its desired healthy pods, or with {@code
 * unhealthyPodEvictionPolicy: AlwaysAllow}. The delete is graceful (see {@link DeletionHandler}),
 * with the Eviction's deleteOptions.
 */
public final class EvictionHandler implements Handler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;
  private final DeletionHandler deletion;

  public EvictionHandler(Store store, DeletionHandler deletion) {
    this.store = store;
    this.deletion = deletion;
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    ApiPath api = request.api();
    JsonNode eviction = mapper.readTree(request.body());
    String objectPath = api.objectPath();
    return store.composite(
        () -> {
          MockResponse current = store.get(objectPath);
          if (current.code() != 200) {
            return status(404, "NotFound", "pods \"" + api.name() + "\" not found");
          }
          JsonNode pod = mapper.readTree(current.getBody().readUtf8());
          String phase = pod.path("status").path("phase").asText("Pending");
          boolean ignoreBudget =
              pod.path("metadata").has("deletionTimestamp")
                  || List.of("Pending", "Succeeded", "Failed").contains(phase);
          if (!ignoreBudget) {
            MockResponse refused = spendBudget(api, pod);
            if (refused != null) {
              return refused;
            }
          }
          return deleteEvicted(objectPath, eviction);
        });
  }

  /** A refusal, or null once the budget selecting the pod (if any) allows its eviction. */
  private MockResponse spendBudget(ApiPath api, JsonNode pod) throws Exception {
    List<JsonNode> budgets = new ArrayList<>();
    MockResponse pdbs =
        store.get("/apis/policy/v1/namespaces/" + api.namespace() + "/poddisruptionbudgets");
    if (pdbs.code() == 200) {
      for (JsonNode pdb : mapper.readTree(pdbs.getBody().readUtf8()).path("items")) {
        if (Selectors.matches(
            pdb.path("spec").path("selector"), pod.path("metadata").path("labels"))) {
          budgets.add(pdb);
        }
      }
    }
    if (budgets.size() > 1) {
      return status(
          500,
          "InternalError",
          "This pod has more than one PodDisruptionBudget, which the eviction subresource does"
              + " not support.");
    }
    if (budgets.isEmpty()) {
      return null;
    }
    ObjectNode pdb = (ObjectNode) budgets.get(0);
    JsonNode st = pdb.path("status");
    long generation = pdb.path("metadata").path("generation").asLong(0);
    String cause = null;
    if (!st.has("observedGeneration") || st.path("observedGeneration").asLong() < generation) {
      cause =
          "observedGeneration must be at least "
              + generation
              + " (received "
              + st.path("observedGeneration").asLong(0)
              + ")";
    } else if (!podReady(pod)
        && ("AlwaysAllow".equals(pdb.path("spec").path("unhealthyPodEvictionPolicy").asText())
            || st.path("desiredHealthy").asInt(0) > 0
                && st.path("currentHealthy").asInt(0) >= st.path("desiredHealthy").asInt(0))) {
      // an unready pod does not count as healthy: evicting it spends nothing
      return null;
    } else if (st.path("disruptionsAllowed").asInt(0) <= 0) {
      cause =
          "The disruption budget "
              + pdb.path("metadata").path("name").asText()
              + " needs "
              + st.path("desiredHealthy").asInt(0)
              + " healthy pods and has "
              + st.path("currentHealthy").asInt(0)
              + " currently";
    }
    if (cause != null) {
      ObjectNode s =
          statusNode(
              429,
              "TooManyRequests",
              "Cannot evict pod as it would violate the pod's disruption budget.");
      s.putObject("details")
          .putArray("causes")
          .addObject()
          .put("reason", "DisruptionBudget")
          .put("message", cause);
      return json(429, s.put("code", 429).toString());
    }
    ((ObjectNode) st).put("disruptionsAllowed", st.path("disruptionsAllowed").asInt() - 1);
    String pdbPath =
        "/apis/policy/v1/namespaces/"
            + api.namespace()
            + "/poddisruptionbudgets/"
            + pdb.path("metadata").path("name").asText()
            + "/status";
    MockResponse put = store.put(pdbPath, pdb.toString());
    return put.code() >= 300 ? put : null;
  }

  private MockResponse deleteEvicted(String objectPath, JsonNode eviction) throws Exception {
    JsonNode options = eviction.path("deleteOptions");
    String deletePath = objectPath;
    if (options.has("gracePeriodSeconds")) {
      deletePath += "?gracePeriodSeconds=" + options.get("gracePeriodSeconds").asLong();
    }
    MockResponse deleted =
        deletion.deletePod(
            Store.request(HttpMethod.DELETE, deletePath, ""), ApiPath.parse(objectPath));
    if (deleted.code() >= 300) {
      return deleted;
    }
    return json(201, success(201).toString());
  }

  private static boolean podReady(JsonNode pod) {
    for (JsonNode c : pod.path("status").path("conditions")) {
      if ("Ready".equals(c.path("type").asText()) && "True".equals(c.path("status").asText())) {
        return true;
      }
    }
    return false;
  }
}
