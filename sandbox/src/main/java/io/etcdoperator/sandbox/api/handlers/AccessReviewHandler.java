package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.auth.RbacAuthorizer;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * A SelfSubjectAccessReview ({@code kubectl auth can-i}): whether the caller may do what the review
 * describes, judged by the same RBAC as its requests; the administrator may do everything. Neither
 * answer is recorded as a use of a grant (it is a question, not a request).
 */
public final class AccessReviewHandler implements Handler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final RbacAuthorizer authorizer;

  public AccessReviewHandler(RbacAuthorizer authorizer) {
    this.authorizer = authorizer;
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    JsonNode review = mapper.readTree(request.body());
    JsonNode spec = review.path("spec");
    JsonNode attrs = spec.path("resourceAttributes");
    JsonNode nonResource = spec.path("nonResourceAttributes");
    RequestInfo asked =
        attrs.isObject()
            ? new RequestInfo(
                attrs.path("verb").asText(""),
                true,
                attrs.path("group").asText(""),
                attrs.path("resource").asText(""),
                attrs.path("subresource").asText("").isEmpty()
                    ? null
                    : attrs.path("subresource").asText(),
                attrs.path("name").asText(""),
                attrs.path("namespace").asText(""),
                "")
            : new RequestInfo(
                nonResource.path("verb").asText(""),
                false,
                "",
                null,
                null,
                "",
                "",
                nonResource.path("path").asText("/"));
    boolean allowed = request.user().admin() || authorizer.allows(request.user(), asked);
    ObjectNode out = mapper.createObjectNode();
    out.put("kind", "SelfSubjectAccessReview");
    out.put("apiVersion", "authorization.k8s.io/v1");
    out.putObject("metadata");
    out.set("spec", spec);
    ObjectNode status = out.putObject("status");
    status.put("allowed", allowed);
    if (!allowed) {
      status.put("reason", "no RBAC rule of the sandbox allows it");
    }
    return json(201, out.toString());
  }
}
