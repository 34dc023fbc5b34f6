package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Split brain and {@code --force-new-cluster}: what the operator sees when clusters diverge. */
class TwoClustersIT {
  private static final Duration HEALTHY = Duration.ofSeconds(30);

  @Test
  void twoSeparatelyBootstrappedClustersShowTwoClusterIds() {
    try (LocalEtcdCluster a = LocalEtcdCluster.builder().name("brain").members(2).start();
        LocalEtcdCluster b = LocalEtcdCluster.builder().name("brain").members(1).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      a.awaitHealthy(HEALTHY);
      b.awaitHealthy(HEALTHY);
      List<String> expected = new ArrayList<>(a.clientUrls());
      expected.addAll(b.clientUrls());

      ClusterProbe probe = etcd.probeAll("it/brain", expected);

      assertThat(probe.reachable()).hasSize(3);
      assertThat(probe.clusterIds()).hasSize(2);
      assertThat(probe.splitBrain()).isTrue();
      long idA = probe.find(a.member(0).clientUrl()).orElseThrow().status().clusterId();
      long idB = probe.find(b.member(0).clientUrl()).orElseThrow().status().clusterId();
      assertThat(idA).isNotEqualTo(idB);
      assertThat(probe.find(a.member(1).clientUrl()).orElseThrow().status().clusterId())
          .isEqualTo(idA);
      assertThat(probe.members().stream().filter(p -> p.status().isLeader())).hasSize(2);
    }
  }

  @Test
  void forceNewClusterKeepsTheClusterIdWithOneMember() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      LocalEtcdMember survivor = cluster.member(0);
      EtcdStatus before = etcd.status(key, survivor.clientUrl());
      cluster.member(1).kill();
      cluster.member(2).kill();
      survivor.stop();
      assertThat(survivor.exitCode()).isPresent();

      survivor.startForceNewCluster();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> etcd.probeAll(key, List.of(survivor.clientUrl())).hasQuorum());

      ClusterProbe probe = etcd.probeAll(key, cluster.clientUrls());
      EtcdStatus after = probe.find(survivor.clientUrl()).orElseThrow().status();
      assertThat(after.clusterId()).isEqualTo(before.clusterId());
      assertThat(after.memberId()).isEqualTo(before.memberId());
      assertThat(after.isLeader()).isTrue();
      assertThat(after.raftTerm()).isGreaterThan(before.raftTerm());
      assertThat(probe.memberList().orElseThrow().members())
          .extracting(EtcdMember::id)
          .containsExactly(before.memberId());
      assertThat(probe.hasQuorum()).isTrue();
      assertThat(probe.unreachable()).hasSize(2);

      // Restarted without the flag, it stays a one-member cluster.
      survivor.restart();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> etcd.probeAll(key, List.of(survivor.clientUrl())).hasQuorum());
    }
  }
}
