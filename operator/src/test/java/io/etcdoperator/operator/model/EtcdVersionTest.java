package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EtcdVersionTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "quay.io/coreos/etcd:v3.5.17, 3.5.17",
    "registry.k8s.io/etcd:3.5.21-0, 3.5.21",
    "gcr.io/etcd-development/etcd:v3.6.0, 3.6.0",
    "localhost:5000/etcd:v3.4.23, 3.4.23",
    "etcd:3.5, 3.5.0",
    "quay.io/coreos/etcd:v3.5.17@sha256:0123abcd, 3.5.17",
    "quay.io/coreos/etcd, ''",
    "localhost:5000/etcd, ''",
    "quay.io/coreos/etcd:latest, ''",
    "quay.io/coreos/etcd@sha256:0123abcd, ''",
  })
  void theTagNamesTheVersion(String image, String version) {
    assertThat(EtcdVersion.ofImage(image).map(EtcdVersion::toString))
        .isEqualTo(version.isEmpty() ? Optional.empty() : Optional.of(version));
  }

  @ParameterizedTest(name = "{0} -> {1}: {2} minors")
  @CsvSource({"3.4.23, 3.5.30, 1", "3.4.23, 3.6.0, 2", "3.5.30, 3.4.23, -1", "3.5.1, 3.5.30, 0"})
  void minorVersionsApart(String from, String to, int minors) {
    assertThat(EtcdVersion.parse(from).orElseThrow().minorsTo(EtcdVersion.parse(to).orElseThrow()))
        .isEqualTo(minors);
  }
}
