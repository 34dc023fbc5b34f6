package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A list of Events with a field selector, which the mock ignores: filtered here on the fields the
 * API server supports for Events ({@code involvedObject.kind/namespace/name/uid/apiVersion/
 * resourceVersion/fieldPath}, {@code reason}, {@code type}, {@code source}, {@code
 * metadata.name/namespace}), with {@code =}, {@code ==} and {@code !=}, as {@code kubectl describe}
 * sends them; likewise a list of pods, on any field by its path ({@code spec.nodeName}, {@code
 * status.phase}, ...), as {@code kubectl drain} lists a node's pods.
 */
public final class FieldSelectorHandler implements Handler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;

  public FieldSelectorHandler(Store store) {
    this.store = store;
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    String path = request.path();
    String plural = request.api().plural();
    int q = path.indexOf('?');
    String base = path.substring(0, q);
    List<String> kept = new ArrayList<>();
    String selector = "";
    for (String kv : path.substring(q + 1).split("&")) {
      if (kv.startsWith("fieldSelector=")) {
        selector =
            URLDecoder.decode(kv.substring("fieldSelector=".length()), StandardCharsets.UTF_8);
      } else {
        kept.add(kv);
      }
    }
    MockResponse all = store.get(kept.isEmpty() ? base : base + "?" + String.join("&", kept));
    if (all.code() != 200) {
      return all;
    }
    ObjectNode list = (ObjectNode) mapper.readTree(all.getBody().readUtf8());
    ArrayNode items = mapper.createArrayNode();
    for (JsonNode e : list.path("items")) {
      if (selects(selector, e)) {
        items.add(e);
      }
    }
    list.set("items", items);
    // The mock names its lists "List": kubectl describe decodes an EventList and shows no Events
    // from anything else.
    list.put("kind", plural.equals("pods") ? "PodList" : "EventList");
    list.put("apiVersion", "v1");
    return json(200, list.toString());
  }

  private static boolean selects(String selector, JsonNode event) {
    for (String term : selector.split(",")) {
      if (term.isBlank()) {
        continue;
      }
      boolean negate = term.contains("!=");
      String[] kv = term.split(negate ? "!=" : "==?", 2);
      if (kv.length != 2) {
        return false;
      }
      String field = kv[0].trim();
      JsonNode v =
          field.equals("source")
              ? event.path("source").path("component")
              : event.at("/" + field.replace('.', '/'));
      boolean equal = v.asText("").equals(kv[1].trim());
      if (equal == negate) {
        return false;
      }
    }
    return true;
  }
}
