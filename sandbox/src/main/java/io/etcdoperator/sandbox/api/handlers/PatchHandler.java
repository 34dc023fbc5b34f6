package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.admission.AdmissionChain;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.function.BinaryOperator;

/**
 * A patch computed here and stored as an update, so that the merged object passes admission as any
 * update does: strategic merge patches, which the mock refuses; JSON merge patches, whose lists the
 * mock merges (RFC 7386, and a real API server, replace a list in a merge patch); JSON patches. One
 * handler per patch type ({@link #with}), the merge given; a patch that cannot be applied is a 422.
 */
public final class PatchHandler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;
  private final AdmissionChain admission;

  public PatchHandler(Store store, AdmissionChain admission) {
    this.store = store;
    this.admission = admission;
  }

  /** The handler of patches that {@code merge} applies (to the object, the patch). */
  public Handler with(BinaryOperator<JsonNode> merge) {
    return request -> patch(request, merge);
  }

  private MockResponse patch(ApiRequest request, BinaryOperator<JsonNode> merge) throws Exception {
    String path = request.path();
    ApiPath api = ApiPath.parse(path);
    if (api == null || api.name() == null) {
      return status(404, "NotFound", path);
    }
    return store.composite(
        () -> {
          String objectPath =
              api.subresource() == null
                  ? api.objectPath()
                  : api.objectPath() + "/" + api.subresource();
          MockResponse current = store.get(api.objectPath());
          if (current.code() != 200) {
            return current;
          }
          JsonNode object = mapper.readTree(current.getBody().readUtf8());
          JsonNode merged;
          try {
            merged = merge.apply(object, mapper.readTree(request.request().getUtf8Body()));
          } catch (RuntimeException e) {
            return status(422, "Invalid", "the patch cannot be applied: " + e.getMessage());
          }
          AdmissionChain.Result admitted =
              admission.admit(
                  request.user(),
                  request.info(),
                  api,
                  merged,
                  object,
                  request.queryParameter("fieldManager"));
          if (admitted.refusal() != null) {
            return admitted.refusal();
          }
          return store.put(objectPath, admitted.object().toString());
        });
  }
}
