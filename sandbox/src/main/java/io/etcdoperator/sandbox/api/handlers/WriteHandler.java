package io.etcdoperator.sandbox.api.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.admission.AdmissionChain;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

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
    AdmissionChain.Result admitted = admission.admit(r.user(), r.info(), api, object, old);
    if (admitted.refusal() != null) {
      return admitted.refusal();
    }
    RecordedRequest request = r.request();
    if (admitted.object() != null && admitted.object().isObject()) {
      request = Store.request(method, r.path(), admitted.object().toString());
    }
    return store.dispatch(request);
  }
}
