package io.etcdoperator.sandbox.api.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.Responses;
import io.etcdoperator.sandbox.api.admission.AdmissionChain;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.security.SecureRandom;

/**
 * A create (POST) or an update (PUT) of an object or of its {@code status} subresource: the body
 * passes the {@link AdmissionChain} (an update with the stored object beside it), and what
 * admission made of it is stored by the mock, which keeps the status on an update of the object and
 * the rest on an update of the status. A body that is no JSON object is stored as sent.
 */
public final class WriteHandler implements Handler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;
  private final AdmissionChain admission;

  public WriteHandler(Store store, AdmissionChain admission) {
    this.store = store;
    this.admission = admission;
  }

  @Override
  public MockResponse handle(ApiRequest r) throws Exception {
    ApiPath api = r.api();
    HttpMethod method = r.method();
    JsonNode object = mapper.readTree(r.body());
    JsonNode old = null;
    if (method == HttpMethod.PUT && api.name() != null) {
      MockResponse current = store.get(api.objectPath());
      old = current.code() == 200 ? mapper.readTree(current.getBody().readUtf8()) : null;
    }
    if (method == HttpMethod.POST && object instanceof ObjectNode o) {
      generateName(o);
    }
    AdmissionChain.Result admitted =
        admission.admit(r.user(), r.info(), api, object, old, r.queryParameter("fieldManager"));
    if (admitted.refusal() != null) {
      return admitted.refusal();
    }
    RecordedRequest request = r.request();
    if (admitted.object() != null && admitted.object().isObject()) {
      request = Store.request(method, r.path(), admitted.object().toString());
    }
    MockResponse stored = store.dispatch(request);
    if (method == HttpMethod.POST && stored.code() == 409 && admitted.object() != null) {
      return alreadyExists(api, admitted.object().path("metadata").path("name").asText());
    }
    if (method == HttpMethod.POST
        && stored.code() < 300
        && "namespaces".equals(api.plural())
        && (api.group() == null || api.group().isEmpty())
        && api.namespace() == null
        && admitted.object() != null) {
      defaultServiceAccount(admitted.object().path("metadata").path("name").asText());
    }
    return stored;
  }

  /**
   * A new namespace's ServiceAccount {@code default}, made with it. On a real cluster a controller
   * makes it within milliseconds and the ServiceAccount admission retries its lookup meanwhile;
   * here a wait inside the API server would hold up every other request (the mock serves them on
   * one event loop), so the account exists before the namespace's first pod can be created.
   */
  private void defaultServiceAccount(String namespace) {
    ObjectNode sa = mapper.createObjectNode();
    sa.put("apiVersion", "v1").put("kind", "ServiceAccount");
    sa.putObject("metadata").put("name", "default").put("namespace", namespace);
    store.dispatch(
        Store.request(
            HttpMethod.POST,
            "/api/v1/namespaces/" + namespace + "/serviceaccounts",
            sa.toString()));
  }

  /**
   * {@code metadata.generateName} with five random characters appended, as a real API server names
   * the object (the mock would append a hyphen and a UUID). A name taken already fails the create
   * with 409, as there.
   */
  static void generateName(ObjectNode object) {
    JsonNode meta = object.path("metadata");
    String prefix = meta.path("generateName").asText("");
    if (!meta.isObject() || prefix.isEmpty() || !meta.path("name").asText("").isEmpty()) {
      return;
    }
    StringBuilder name = new StringBuilder(prefix);
    for (int i = 0; i < 5; i++) {
      name.append(NAME_ALPHABET.charAt(RANDOM.nextInt(NAME_ALPHABET.length())));
    }
    ((ObjectNode) meta).put("name", name.toString());
  }

  private static final String NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * A create of a name that exists, answered as a real API server does (reason {@code
   * AlreadyExists}, which clients such as Helm's CRD install recognise and skip) rather than as the
   * mock's bare 409.
   */
  static MockResponse alreadyExists(ApiPath api, String name) {
    String group = api.group() == null ? "" : api.group();
    String resource = group.isEmpty() ? api.plural() : api.plural() + "." + group;
    ObjectNode s =
        Responses.statusNode(409, "AlreadyExists", resource + " \"" + name + "\" already exists");
    ObjectNode details = s.putObject("details");
    details.put("name", name);
    if (!group.isEmpty()) {
      details.put("group", group);
    }
    details.put("kind", api.plural());
    return Responses.json(409, s.put("code", 409).toString());
  }
}
