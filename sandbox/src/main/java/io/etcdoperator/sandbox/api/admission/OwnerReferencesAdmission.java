package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.ResourceType;
import io.etcdoperator.sandbox.api.Responses;
import io.etcdoperator.sandbox.api.ServedTypes;
import io.etcdoperator.sandbox.api.auth.Forbidden;
import io.etcdoperator.sandbox.api.auth.RbacAuthorizer;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The OwnerReferencesPermissionEnforcement admission plugin (enabled on OpenShift and on clusters
 * that harden their API server): setting {@code blockOwnerDeletion} on a reference to an owner
 * needs {@code update} on the owner's {@code finalizers} subresource. Checked on every create and
 * update by a non-administrator, for each reference that newly blocks its owner's deletion; the
 * check counts as a use of that permission.
 */
final class OwnerReferencesAdmission implements AdmissionPlugin {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final ServedTypes types;
  private final RbacAuthorizer authorizer;

  OwnerReferencesAdmission(ServedTypes types, RbacAuthorizer authorizer) {
    this.types = types;
    this.authorizer = authorizer;
  }

  @Override
  public MockResponse admit(AdmissionRequest a) throws Exception {
    JsonNode object = a.object();
    JsonNode old = a.old();
    if (a.user().admin()) {
      return null;
    }
    for (JsonNode ref : object.path("metadata").path("ownerReferences")) {
      if (!ref.path("blockOwnerDeletion").asBoolean(false)) {
        continue;
      }
      boolean already = false;
      for (JsonNode o :
          old == null ? mapper.createArrayNode() : old.path("metadata").path("ownerReferences")) {
        already |=
            o.path("uid").asText().equals(ref.path("uid").asText())
                && o.path("blockOwnerDeletion").asBoolean(false);
      }
      if (already) {
        continue;
      }
      String apiVersion = ref.path("apiVersion").asText();
      String group =
          apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
      String plural = null;
      for (ResourceType t : types.all()) {
        if (t.group().equals(group) && t.kind().equals(ref.path("kind").asText())) {
          plural = t.plural();
        }
      }
      if (plural == null) {
        continue;
      }
      RequestInfo finalizers = a.info().asking("update", group, plural, "finalizers");
      if (!authorizer.authorize(a.user(), finalizers)) {
        return Responses.forbidden(
            a.info(),
            "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set"
                + " finalizers on: "
                + Forbidden.reason(a.user(), finalizers)
                + ", "
                + ref);
      }
    }
    return null;
  }
}
