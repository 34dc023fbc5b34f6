package io.etcdoperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The CRD under deploy/ is the one the build generates from the Java classes. */
class CommittedCrdTest {
  static final String CRD_FILE = "etcdclusters.etcd.aenix.io-v1.yml";

  @Test
  void committedCrdMatchesGeneratedOne() throws IOException {
    Path generated = Path.of("target/classes/META-INF/fabric8", CRD_FILE);
    Path committed = Path.of("../deploy/crds", CRD_FILE);
    assertThat(generated).exists();
    assertThat(Files.readString(committed))
        .as("deploy/crds/%s is stale; refresh it with: cp api/%s deploy/crds/", CRD_FILE, generated)
        .isEqualTo(Files.readString(generated));
  }
}
