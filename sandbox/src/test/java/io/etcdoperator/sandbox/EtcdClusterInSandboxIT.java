package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real 3-member etcd cluster formed by a hand-written StatefulSet, as the operator would make it.
 */
class EtcdClusterInSandboxIT {
  @TempDir Path dir;

  @Test
  void threeMembersFormAClusterReachableByDnsNames() throws Exception {
    try (Sandbox sandbox = SandboxFixture.start(dir)) {
      KubernetesClient k = sandbox.client();
      k.services().resource(Manifests.headless("etcd")).create();
      k.services().resource(Manifests.client("etcd")).create();
      k.configMaps().resource(Manifests.clusterState("etcd", 3)).create();
      k.apps().statefulSets().resource(Manifests.etcd("etcd", 3)).create();

      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                StatefulSet s =
                    k.apps().statefulSets().inNamespace("default").withName("etcd").get();
                assertThat(s.getStatus()).isNotNull();
                assertThat(s.getStatus().getReadyReplicas()).isEqualTo(3);
              });
      String ip0 = InetAddress.getByName("etcd-0.etcd-headless.default.svc").getHostAddress();
      assertThat(ip0).startsWith("127.2");
      assertThat(k.pods().inNamespace("default").withName("etcd-0").get().getStatus().getPodIP())
          .isEqualTo(ip0);

      try (Client etcd =
          Client.builder()
              .endpoints(Manifests.endpoints("etcd", 3).toArray(String[]::new))
              .build()) {
        ByteSequence key = ByteSequence.from("greeting", StandardCharsets.UTF_8);
        etcd.getKVClient()
            .put(key, ByteSequence.from("hello", StandardCharsets.UTF_8))
            .get(10, TimeUnit.SECONDS);
        assertThat(etcd.getClusterClient().listMember().get(10, TimeUnit.SECONDS).getMembers())
            .hasSize(3);
      }
      try (Client viaService = Client.builder().endpoints("http://etcd.default.svc:2379").build()) {
        var got =
            viaService
                .getKVClient()
                .get(ByteSequence.from("greeting", StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS);
        assertThat(got.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8))
            .isEqualTo("hello");
      }
    }
  }
}
