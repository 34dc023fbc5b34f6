package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The API server's default image pull policy, which the model writes out. */
class ApiDefaultsTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "nginx, Always",
    "nginx:latest, Always",
    "nginx:1.25, IfNotPresent",
    "registry.local:5000/nginx, Always",
    "registry.local:5000/nginx:1.25, IfNotPresent",
    "registry.local:5000/team/nginx:latest, Always",
    "nginx@sha256:0123abcd, IfNotPresent",
    "quay.io/coreos/etcd:v3.5.17, IfNotPresent"
  })
  void pullPolicyIsAlwaysForLatestOrUntaggedImages(String image, String policy) {
    assertThat(ApiDefaults.pullPolicyOf(image)).isEqualTo(policy);
  }
}
