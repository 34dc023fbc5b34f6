package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * {@code metadata.managedFields}, as a real API server records them on every write: one entry per
 * field manager, operation and subresource, naming the fields that manager set ({@code FieldsV1}:
 * {@code f:<field>} for each field, {@code k:{"name":...}} for each element of a list of named
 * objects, a list of anything else as one field). A client that caches objects (an operator's
 * informers) holds them too, so without them the sandbox would understate what each cached object
 * costs.
 *
 * <p>The manager is the request's {@code fieldManager} parameter, else the user's name (a real
 * server derives it from the client's user agent). Each write replaces its manager's entry, whose
 * fields are all the fields the written object has but {@code status}; unlike a real server, fields
 * another manager owned are not taken from its entry, which changes what an entry names, not its
 * size. Entries the client sent are ignored: they are carried over from the stored object. A write
 * of the {@code status} subresource records nothing: the store keeps the object's metadata on it (a
 * real server adds the status writer's entry, the kubelet's on a pod: the sandbox's objects carry
 * less than a real cluster's there).
 */
final class ManagedFields implements AdmissionPlugin {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** Metadata the server owns, never in an entry. */
  private static final Set<String> SERVER_METADATA =
      Set.of(
          "name",
          "namespace",
          "uid",
          "resourceVersion",
          "generation",
          "creationTimestamp",
          "deletionTimestamp",
          "deletionGracePeriodSeconds",
          "managedFields",
          "selfLink");

  @Override
  public MockResponse admit(AdmissionRequest request) {
    ObjectNode object = request.object();
    if (!(object.get("metadata") instanceof ObjectNode metadata)) {
      return null;
    }
    String subresource = request.info().subresource();
    if (subresource != null && !subresource.isEmpty()) {
      return null;
    }
    String manager = manager(request);
    ObjectNode entry = JSON.objectNode();
    entry.put("manager", manager);
    entry.put("operation", "Update");
    entry.put("apiVersion", object.path("apiVersion").asText(""));
    entry.put("time", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    entry.put("fieldsType", "FieldsV1");
    entry.set("fieldsV1", mainFields(object));
    ArrayNode entries = JSON.arrayNode();
    JsonNode old =
        request.old() == null ? null : request.old().path("metadata").get("managedFields");
    boolean replaced = false;
    if (old != null && old.isArray()) {
      for (JsonNode e : old) {
        if (sameOwner(e, manager)) {
          entries.add(entry);
          replaced = true;
        } else {
          entries.add(e);
        }
      }
    }
    if (!replaced) {
      entries.add(entry);
    }
    metadata.set("managedFields", entries);
    return null;
  }

  private static boolean sameOwner(JsonNode e, String manager) {
    return manager.equals(e.path("manager").asText())
        && "Update".equals(e.path("operation").asText())
        && e.path("subresource").asText("").isEmpty();
  }

  private static String manager(AdmissionRequest request) {
    String named = request.fieldManager();
    return named == null || named.isEmpty() ? request.user().name() : named;
  }

  /** The fields of the main resource: everything but kind, status and the server's metadata. */
  static ObjectNode mainFields(JsonNode object) {
    ObjectNode fields = JSON.objectNode();
    Iterator<Map.Entry<String, JsonNode>> it = object.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> f = it.next();
      String name = f.getKey();
      if (name.equals("apiVersion") || name.equals("kind") || name.equals("status")) {
        continue;
      }
      if (name.equals("metadata")) {
        ObjectNode meta = JSON.objectNode();
        Iterator<Map.Entry<String, JsonNode>> m = f.getValue().fields();
        while (m.hasNext()) {
          Map.Entry<String, JsonNode> mf = m.next();
          if (!SERVER_METADATA.contains(mf.getKey())) {
            meta.set("f:" + mf.getKey(), of(mf.getValue()));
          }
        }
        if (!meta.isEmpty()) {
          fields.set("f:metadata", meta);
        }
        continue;
      }
      fields.set("f:" + name, of(f.getValue()));
    }
    return fields;
  }

  /** The field set of one value: its fields, its named elements, or nothing below it. */
  static ObjectNode of(JsonNode value) {
    ObjectNode set = JSON.objectNode();
    if (value.isObject()) {
      if (!value.isEmpty()) {
        set.putObject(".");
      }
      Iterator<Map.Entry<String, JsonNode>> it = value.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> f = it.next();
        set.set("f:" + f.getKey(), of(f.getValue()));
      }
    } else if (value.isArray() && !value.isEmpty() && value.get(0).has("name")) {
      for (JsonNode element : value) {
        ObjectNode key = JSON.objectNode();
        key.set("name", element.path("name"));
        set.set("k:" + key, of(element));
      }
    }
    return set;
  }
}
