package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.Responses;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;

/**
 * Pod Security Admission: a valid pod created in a namespace whose {@code
 * pod-security.kubernetes.io/enforce} label names a level must meet it (see {@link PodSecurity});
 * else 403, as the API server answers. The level is read from the namespace at each create, so a
 * relabelled namespace applies at once.
 */
final class PodSecurityAdmission implements AdmissionPlugin {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;

  PodSecurityAdmission(Store store) {
    this.store = store;
  }

  @Override
  public MockResponse admit(AdmissionRequest a) throws Exception {
    if (!a.builtInObject() || !a.errors().isEmpty() || a.old() != null || !a.core("pods")) {
      return null;
    }
    JsonNode pod = a.object();
    String ns =
        a.api().namespace() != null
            ? a.api().namespace()
            : pod.path("metadata").path("namespace").asText("default");
    MockResponse r = store.get("/api/v1/namespaces/" + ns);
    if (r.code() != 200) {
      return null;
    }
    JsonNode labels = mapper.readTree(r.getBody().readUtf8()).path("metadata").path("labels");
    String level = labels.path(PodSecurity.ENFORCE).asText("privileged");
    List<String> violations = PodSecurity.violations(level, pod.path("spec"));
    if (violations.isEmpty()) {
      return null;
    }
    String version = labels.path(PodSecurity.ENFORCE_VERSION).asText("latest");
    RequestInfo info = a.info();
    RequestInfo named =
        new RequestInfo(info.verb(), true, "", "pods", null, a.name(), ns, info.path());
    return Responses.forbidden(
        named,
        "violates PodSecurity \"" + level + ":" + version + "\": " + String.join(", ", violations));
  }
}
