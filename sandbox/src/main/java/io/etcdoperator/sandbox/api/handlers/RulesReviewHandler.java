package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.auth.RbacAuthorizer;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;

/**
 * A SelfSubjectRulesReview (which JOSDK sends to check its Lease permissions before it elects a
 * leader): the caller's rules in the namespace asked about, complete; the administrator's are
 * everything.
 */
public final class RulesReviewHandler implements Handler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final RbacAuthorizer authorizer;

  public RulesReviewHandler(RbacAuthorizer authorizer) {
    this.authorizer = authorizer;
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    JsonNode review = mapper.readTree(request.body());
    String ns = review.path("spec").path("namespace").asText("");
    ObjectNode out = mapper.createObjectNode();
    out.put("kind", "SelfSubjectRulesReview");
    out.put("apiVersion", "authorization.k8s.io/v1");
    out.putObject("metadata");
    out.putObject("spec").put("namespace", ns);
    ObjectNode status = out.putObject("status");
    ArrayNode rules = status.putArray("resourceRules");
    ArrayNode urls = status.putArray("nonResourceRules");
    if (request.user().admin()) {
      rules.addObject().set("verbs", mapper.valueToTree(List.of("*")));
      ((ObjectNode) rules.get(0)).set("apiGroups", mapper.valueToTree(List.of("*")));
      ((ObjectNode) rules.get(0)).set("resources", mapper.valueToTree(List.of("*")));
      urls.addObject()
          .<ObjectNode>set("verbs", mapper.valueToTree(List.of("*")))
          .set("nonResourceURLs", mapper.valueToTree(List.of("*")));
    } else {
      for (PolicyRule rule : authorizer.rulesIn(request.user(), ns)) {
        ObjectNode r = mapper.createObjectNode();
        r.set("verbs", mapper.valueToTree(rule.getVerbs()));
        if (rule.getNonResourceURLs() != null && !rule.getNonResourceURLs().isEmpty()) {
          r.set("nonResourceURLs", mapper.valueToTree(rule.getNonResourceURLs()));
          urls.add(r);
          continue;
        }
        r.set("apiGroups", mapper.valueToTree(rule.getApiGroups()));
        r.set("resources", mapper.valueToTree(rule.getResources()));
        if (rule.getResourceNames() != null && !rule.getResourceNames().isEmpty()) {
          r.set("resourceNames", mapper.valueToTree(rule.getResourceNames()));
        }
        rules.add(r);
      }
    }
    status.put("incomplete", false);
    return json(201, out.toString());
  }
}
