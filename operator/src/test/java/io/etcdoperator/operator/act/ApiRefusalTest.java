package io.etcdoperator.operator.act;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/** Which API errors are refusals (reported, not retried hot), and what the report says. */
class ApiRefusalTest {
  static KubernetesClientException error(int code, Status status) {
    return new KubernetesClientException(status.getMessage(), code, status);
  }

  @Test
  void anInvalidObjectNamesTheFieldAndTheServersMessage() {
    Status invalid =
        new StatusBuilder()
            .withCode(422)
            .withReason("Invalid")
            .withMessage(
                "Service \"test\" is invalid: spec.clusterIP: Invalid value: \"10.0.0.9\": field"
                    + " is immutable")
            .withNewDetails()
            .addNewCause()
            .withField("spec.clusterIP")
            .withReason("FieldValueInvalid")
            .withMessage("field is immutable")
            .endCause()
            .endDetails()
            .build();
    ApiRefusal r = ApiRefusal.of("update", "Service", "test", error(422, invalid)).orElseThrow();
    assertThat(r.fields()).containsExactly("spec.clusterIP");
    assertThat(r.describe())
        .isEqualTo(
            "the API server refused to update Service test (422, spec.clusterIP): Service \"test\""
                + " is invalid: spec.clusterIP: Invalid value: \"10.0.0.9\": field is immutable");
  }

  @Test
  void forbiddenIsARefusal() {
    Status forbidden =
        new StatusBuilder()
            .withCode(403)
            .withReason("Forbidden")
            .withMessage(
                "pods is forbidden: User \"system:serviceaccount:ops:etcd-operator\" cannot create"
                    + " resource \"pods\" in API group \"\" in the namespace \"default\"")
            .build();
    assertThat(ApiRefusal.of("create", "Pod", "test-rebuild", error(403, forbidden)))
        .hasValueSatisfying(r -> assertThat(r.describe()).contains("(403): pods is forbidden"));
  }

  @Test
  void conflictsMissingObjectsAndServerErrorsAreRetriedNotReported() {
    for (int code : new int[] {409, 404, 500, 503, 429}) {
      Status s = new StatusBuilder().withCode(code).withMessage("x").build();
      assertThat(ApiRefusal.of("update", "StatefulSet", "test", error(code, s)))
          .as("%d", code)
          .isEmpty();
    }
  }
}
