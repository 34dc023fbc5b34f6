package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.Responses;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * The two admission plugins that read StorageClasses for a valid claim. DefaultStorageClass: a
 * claim created without {@code storageClassName} gets the class annotated {@code
 * storageclass.kubernetes.io/is-default-class: "true"}, if any. PersistentVolumeClaimResize: a
 * claim's storage request may grow only when the claim is bound and its StorageClass exists and
 * says {@code allowVolumeExpansion: true}; else 403 with the API server's words.
 */
final class StorageClassAdmission implements AdmissionPlugin {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;

  StorageClassAdmission(Store store) {
    this.store = store;
  }

  @Override
  public MockResponse admit(AdmissionRequest a) throws Exception {
    if (!a.builtInObject() || !a.errors().isEmpty() || !a.core("persistentvolumeclaims")) {
      return null;
    }
    if (a.old() == null) {
      defaultStorageClass(a.object());
      return null;
    }
    return resize(a);
  }

  private void defaultStorageClass(ObjectNode claim) throws Exception {
    JsonNode spec = claim.path("spec");
    if (!spec.isObject() || spec.has("storageClassName")) {
      return;
    }
    for (JsonNode cls : storageClasses()) {
      if ("true"
          .equals(
              cls.path("metadata")
                  .path("annotations")
                  .path("storageclass.kubernetes.io/is-default-class")
                  .asText())) {
        ((ObjectNode) spec).put("storageClassName", cls.path("metadata").path("name").asText());
        return;
      }
    }
  }

  private MockResponse resize(AdmissionRequest a) throws Exception {
    JsonNode old = a.old();
    long now = CoreValidation.storageRequest(a.object().path("spec"));
    long before = CoreValidation.storageRequest(old.path("spec"));
    if (now <= before) {
      return null;
    }
    String className = old.path("spec").path("storageClassName").asText("");
    boolean allowed = false;
    if ("Bound".equals(old.path("status").path("phase").asText()) && !className.isEmpty()) {
      for (JsonNode cls : storageClasses()) {
        if (className.equals(cls.path("metadata").path("name").asText())) {
          allowed = cls.path("allowVolumeExpansion").asBoolean(false);
        }
      }
    }
    if (allowed) {
      return null;
    }
    String ns = a.api().namespace() != null ? a.api().namespace() : "default";
    RequestInfo info = a.info();
    RequestInfo named =
        new RequestInfo(
            info.verb(), true, "", "persistentvolumeclaims", null, a.name(), ns, info.path());
    return Responses.forbidden(
        named,
        "only dynamically provisioned pvc can be resized and the storageclass that provisions the"
            + " pvc must support resize");
  }

  private List<JsonNode> storageClasses() throws Exception {
    MockResponse r = store.get("/apis/storage.k8s.io/v1/storageclasses");
    List<JsonNode> out = new ArrayList<>();
    if (r.code() == 200) {
      mapper.readTree(r.getBody().readUtf8()).path("items").forEach(out::add);
    }
    return out;
  }
}
