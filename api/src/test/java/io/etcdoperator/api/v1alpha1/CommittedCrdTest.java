package io.etcdoperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each CRD under deploy/ is the one the build generates from the Java classes. */
class CommittedCrdTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "etcdclusters.etcd.aenix.io-v1.yml",
        "etcdbackups.etcd.aenix.io-v1.yml",
        "etcdbackupschedules.etcd.aenix.io-v1.yml"
      })
  void committedCrdMatchesGeneratedOne(String crdFile) throws IOException {
    Path generated = Path.of("target/classes/META-INF/fabric8", crdFile);
    Path committed = Path.of("../deploy/crds", crdFile);
    assertThat(generated).exists();
    assertThat(committed).exists();
    assertThat(Files.readString(committed))
        .as("deploy/crds/%s is stale; refresh it with: cp api/%s deploy/crds/", crdFile, generated)
        .isEqualTo(Files.readString(generated));
  }
}
