package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;
import static io.etcdoperator.sandbox.api.Responses.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.BuiltInTypes;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.ResourceType;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The delete of one object. With {@code propagationPolicy: Orphan} (or {@code orphanDependents})
 * its dependents first lose their owner reference, as the garbage collector does before the owner
 * goes, so that deleting it deletes nothing else. A pod is then deleted gracefully, as a real API
 * server does it: it gets a deletionTimestamp and stays (Terminating) until the kubelet has stopped
 * its containers and releases it ({@link #TERMINATION_FINALIZER}); a grace period of 0, a pod bound
 * to no node, and a pod that has finished are removed at once. Any other object goes at once (the
 * mock keeps it while it has finalizers).
 */
public final class DeletionHandler implements Handler {
  /**
   * Held by a pod from its graceful deletion until the kubelet has stopped its processes, so that
   * the pod stays visible as Terminating meanwhile (the mock keeps an object marked for deletion
   * only while it has finalizers).
   */
  public static final String TERMINATION_FINALIZER = "sandbox.etcd-operator.io/pod-termination";

  private static final Pattern GRACE_PERIOD = Pattern.compile("[?&]gracePeriodSeconds=(\\d+)");
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;

  public DeletionHandler(Store store) {
    this.store = store;
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    ApiPath api = request.api();
    if (orphaning(request)) {
      orphanDependents(api);
    }
    if ("pods".equals(api.plural())) {
      return deletePod(request.request(), api);
    }
    return store.dispatch(request.request());
  }

  /** Deletes a pod gracefully (see the class). */
  public MockResponse deletePod(RecordedRequest request, ApiPath api) throws Exception {
    return store.composite(
        () -> {
          MockResponse current = store.get(api.objectPath());
          if (current.code() != 200) {
            return status(404, "NotFound", "pods \"" + api.name() + "\" not found");
          }
          ObjectNode pod = (ObjectNode) mapper.readTree(current.getBody().readUtf8());
          ObjectNode meta = (ObjectNode) pod.path("metadata");
          boolean ours = false;
          for (JsonNode f : meta.path("finalizers")) {
            ours |= TERMINATION_FINALIZER.equals(f.asText());
          }
          String phase = pod.path("status").path("phase").asText("");
          // as the API server's CheckGracefulDelete: a pod no kubelet runs, or that has finished,
          // goes at once
          boolean immediate =
              gracePeriod(request) == 0
                  || pod.path("spec").path("nodeName").asText("").isEmpty()
                  || phase.equals("Succeeded")
                  || phase.equals("Failed");
          if (immediate) {
            if (ours) {
              ArrayNode kept = mapper.createArrayNode();
              meta.path("finalizers")
                  .forEach(
                      f -> {
                        if (!TERMINATION_FINALIZER.equals(f.asText())) {
                          kept.add(f);
                        }
                      });
              meta.set("finalizers", kept);
              store.put(api.objectPath(), pod.toString());
            }
            if (store.get(api.objectPath()).code() == 200) {
              store.delete(api.objectPath());
            }
            return json(200, pod.toString());
          }
          if (meta.has("deletionTimestamp")) {
            return json(200, pod.toString());
          }
          if (!ours) {
            ArrayNode finalizers =
                meta.has("finalizers") && meta.get("finalizers").isArray()
                    ? (ArrayNode) meta.get("finalizers")
                    : meta.putArray("finalizers");
            finalizers.add(TERMINATION_FINALIZER);
            MockResponse put = store.put(api.objectPath(), pod.toString());
            if (put.code() >= 300) {
              return put;
            }
          }
          MockResponse deleted = store.delete(api.objectPath());
          MockResponse now = store.get(api.objectPath());
          return now.code() == 200 ? json(200, now.getBody().readUtf8()) : deleted;
        });
  }

  /** The grace period a delete asks for (query or DeleteOptions body), or -1 when it asks none. */
  private long gracePeriod(RecordedRequest request) {
    Matcher m = GRACE_PERIOD.matcher(request.getPath());
    if (m.find()) {
      return Long.parseLong(m.group(1));
    }
    try {
      String body = request.getUtf8Body();
      if (body != null && !body.isBlank()) {
        JsonNode options = mapper.readTree(body);
        if (options.has("gracePeriodSeconds")) {
          return options.get("gracePeriodSeconds").asLong();
        }
      }
    } catch (Exception e) {
      // not DeleteOptions: no grace period asked
    }
    return -1;
  }

  /**
   * Whether the delete orphans the object's dependents ({@code propagationPolicy: Orphan}, in the
   * DeleteOptions body or the query; {@code orphanDependents: true}), as {@code kubectl delete
   * --cascade=orphan} sends it.
   */
  private boolean orphaning(ApiRequest request) {
    String path = request.path();
    if (path.contains("propagationPolicy=Orphan") || path.contains("orphanDependents=true")) {
      return true;
    }
    String body = request.body();
    if (body.isBlank()) {
      return false;
    }
    try {
      JsonNode options = mapper.readTree(body);
      return "Orphan".equals(options.path("propagationPolicy").asText())
          || options.path("orphanDependents").asBoolean(false);
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * Every object of the owner's namespace that names it as an owner loses that reference (and with
   * it, for pods, their controller).
   */
  private void orphanDependents(ApiPath api) throws Exception {
    store.composite(
        () -> {
          MockResponse current = store.get(api.objectPath());
          if (current.code() != 200) {
            return null;
          }
          String uid = mapper.readTree(current.getBody().readUtf8()).at("/metadata/uid").asText();
          if (uid.isEmpty() || api.namespace() == null) {
            return null;
          }
          for (ResourceType t : BuiltInTypes.ALL) {
            if (t.namespaced() && !t.plural().equals("events")) {
              orphan(t, t.prefix() + "/namespaces/" + api.namespace() + "/" + t.plural(), uid);
            }
          }
          return null;
        });
  }

  private void orphan(ResourceType t, String list, String uid) throws Exception {
    MockResponse items = store.get(list);
    if (items.code() != 200) {
      return;
    }
    for (JsonNode item : mapper.readTree(items.getBody().readUtf8()).path("items")) {
      JsonNode refs = item.at("/metadata/ownerReferences");
      if (!refs.isArray() || refs.isEmpty()) {
        continue;
      }
      ArrayNode kept = mapper.createArrayNode();
      refs.forEach(
          r -> {
            if (!uid.equals(r.path("uid").asText())) {
              kept.add(r);
            }
          });
      if (kept.size() == refs.size()) {
        continue;
      }
      ObjectNode updated = (ObjectNode) item.deepCopy();
      ObjectNode meta = (ObjectNode) updated.path("metadata");
      if (kept.isEmpty()) {
        meta.remove("ownerReferences");
      } else {
        meta.set("ownerReferences", kept);
      }
      updated.put("apiVersion", t.groupVersion()).put("kind", t.kind());
      store.put(list + "/" + item.at("/metadata/name").asText(), updated.toString());
    }
  }
}
