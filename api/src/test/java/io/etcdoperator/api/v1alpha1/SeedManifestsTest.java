package io.etcdoperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Both manifests of seed 000 read into our classes unchanged, every field kept. */
class SeedManifestsTest {
  static EtcdCluster read(String file) throws IOException {
    return Serialization.unmarshal(
        Files.readString(Path.of("../examples", file)), EtcdCluster.class);
  }

  @Test
  void nginxManifestKeepsItsContainerCommandArgsAndProbes() throws IOException {
    EtcdCluster cluster = read("seed-000-nginx.yaml");
    assertThat(cluster.getMetadata().getName()).isEqualTo("test");
    assertThat(cluster.getSpec().getReplicas()).isEqualTo(3);
    var etcd = cluster.getSpec().getPodTemplate().getSpec().getContainers().get(0);
    assertThat(etcd.getName()).isEqualTo("etcd");
    assertThat(etcd.getImage()).isEqualTo("nginx");
    assertThat(etcd.getCommand()).containsExactly("/bin/sh");
    assertThat(etcd.getArgs()).containsExactly("-c", "sleep 3600");
    assertThat(etcd.getLivenessProbe().getHttpGet().getHost()).isEqualTo("ifconfig.me");
    assertThat(etcd.getReadinessProbe().getHttpGet().getPort().getIntVal()).isEqualTo(80);
    assertThat(etcd.getStartupProbe().getHttpGet().getPath()).isEqualTo("/");
  }

  @Test
  void fixedManifestIsAPlainThreeMemberCluster() throws IOException {
    EtcdCluster cluster = read("seed-000-fixed.yaml");
    assertThat(cluster.getSpec().getReplicas()).isEqualTo(3);
    assertThat(cluster.getSpec().getPodTemplate()).isNull();
    assertThat(cluster.getSpec().getStorage()).isNull();
  }
}
