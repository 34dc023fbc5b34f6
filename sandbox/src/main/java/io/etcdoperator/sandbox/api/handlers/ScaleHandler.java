package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;
import static io.etcdoperator.sandbox.api.Responses.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.ResourceType;
import io.etcdoperator.sandbox.api.ServedTypes;
import io.etcdoperator.sandbox.api.StrategicMerge;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The {@code scale} subresource of StatefulSets (and of the other built-in kinds that have one) and
 * of CRDs that declare one, which the mock lacks: a read is the object's replica fields as an
 * autoscaling/v1 Scale; a write (PUT, JSON patch, else a merge patch) changes the object's replica
 * field and nothing else, refused with 409 when it names a stale resourceVersion.
 */
public final class ScaleHandler implements Handler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;
  private final ServedTypes types;

  public ScaleHandler(Store store, ServedTypes types) {
    this.store = store;
    this.types = types;
  }

  @Override
  public MockResponse handle(ApiRequest r) throws Exception {
    RecordedRequest request = r.request();
    ApiPath api = r.api();
    ResourceType type = null;
    for (ResourceType t : types.all()) {
      if (t.group().equals(api.group())
          && t.version().equals(api.version())
          && t.plural().equals(api.plural())) {
        type = t;
      }
    }
    if (type == null || type.scale() == null) {
      return status(404, "NotFound", api.plural() + " has no scale subresource");
    }
    ResourceType.Scale paths = type.scale();
    return store.composite(
        () -> {
          MockResponse current = store.get(api.objectPath());
          if (current.code() != 200) {
            return current;
          }
          JsonNode object = mapper.readTree(current.getBody().readUtf8());
          ObjectNode scale = Scales.toScale(mapper, object, paths);
          if (request.method() == HttpMethod.GET) {
            return json(200, scale.toString());
          }
          String body = request.getUtf8Body();
          JsonNode desired;
          if (request.method() == HttpMethod.PUT) {
            desired = mapper.readTree(body);
          } else if (r.contentType().contains("json-patch")) {
            desired = JsonPatch.apply(mapper.readTree(body), scale);
          } else {
            desired = StrategicMerge.apply(scale, mapper.readTree(body));
          }
          String wantedVersion = desired.path("metadata").path("resourceVersion").asText("");
          String haveVersion = object.path("metadata").path("resourceVersion").asText("");
          if (!wantedVersion.isEmpty() && !wantedVersion.equals(haveVersion)) {
            return status(
                409,
                "Conflict",
                "the object has been modified; please apply your changes to the latest version and try again");
          }
          JsonNode replicas = desired.path("spec").path("replicas");
          if (!replicas.isInt() || replicas.asInt() < 0) {
            return status(422, "Invalid", "spec.replicas must be a non-negative integer");
          }
          ObjectNode updated = object.deepCopy();
          Scales.set(updated, paths.specReplicasPath(), replicas);
          MockResponse put = store.put(api.objectPath(), updated.toString());
          if (put.code() >= 300) {
            return put;
          }
          JsonNode stored = mapper.readTree(put.getBody().readUtf8());
          return json(200, Scales.toScale(mapper, stored, paths).toString());
        });
  }

  /** Reads dotted JSON paths ({@code .spec.replicas}); used for scale subresources. */
  static final class Scales {
    private Scales() {}

    static ObjectNode toScale(ObjectMapper mapper, JsonNode object, ResourceType.Scale scale) {
      ObjectNode s = mapper.createObjectNode();
      s.put("kind", "Scale");
      s.put("apiVersion", "autoscaling/v1");
      ObjectNode meta = s.putObject("metadata");
      JsonNode m = object.path("metadata");
      for (String f : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
        if (m.has(f)) {
          meta.set(f, m.get(f));
        }
      }
      s.putObject("spec").put("replicas", get(object, scale.specReplicasPath()).asInt(0));
      ObjectNode status = s.putObject("status");
      status.put("replicas", get(object, scale.statusReplicasPath()).asInt(0));
      JsonNode selector = get(object, scale.labelSelectorPath());
      if (selector.isTextual()) {
        status.put("selector", selector.asText());
      } else if (object.path("spec").path("selector").path("matchLabels").isObject()) {
        StringBuilder b = new StringBuilder();
        Iterator<Map.Entry<String, JsonNode>> it =
            object.path("spec").path("selector").path("matchLabels").fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          b.append(b.length() == 0 ? "" : ",")
              .append(e.getKey())
              .append('=')
              .append(e.getValue().asText());
        }
        status.put("selector", b.toString());
      }
      return s;
    }

    static JsonNode get(JsonNode object, String path) {
      JsonNode n = object;
      if (path == null) {
        return MissingNode.getInstance();
      }
      for (String part : path.substring(1).split("\\.")) {
        n = n.path(part);
      }
      return n;
    }

    static void set(ObjectNode object, String path, JsonNode value) {
      String[] parts = path.substring(1).split("\\.");
      ObjectNode n = object;
      for (int i = 0; i < parts.length - 1; i++) {
        n =
            n.has(parts[i]) && n.get(parts[i]).isObject()
                ? (ObjectNode) n.get(parts[i])
                : n.putObject(parts[i]);
      }
      n.set(parts[parts.length - 1], value);
    }
  }
}
