package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.testing.LocalEtcdCluster;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HealthyClusterIT {

  @Test
  void threeHealthyMembersReportEverything() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(Duration.ofSeconds(20));
      String key = "it/" + cluster.name();

      ClusterProbe probe = etcd.probeAll(key, cluster.clientUrls());

      assertThat(probe.reachable()).hasSize(3);
      assertThat(probe.clusterIds()).hasSize(1);
      assertThat(probe.splitBrain()).isFalse();
      assertThat(probe.hasQuorum()).isTrue();
      long clusterId = probe.clusterIds().iterator().next();
      assertThat(clusterId).isNotZero();
      EtcdStatus leader = probe.leader().orElseThrow();
      for (EtcdProbe member : probe.members()) {
        EtcdStatus s = member.status();
        assertThat(s.failure()).isEmpty();
        assertThat(s.clusterId()).isEqualTo(clusterId);
        assertThat(s.memberId()).isNotZero();
        assertThat(s.leaderId()).isEqualTo(leader.memberId());
        assertThat(s.raftTerm()).isPositive();
        assertThat(s.raftIndex()).isPositive();
        assertThat(s.raftAppliedIndex()).isPositive();
        assertThat(s.learner()).isFalse();
        assertThat(s.version()).startsWith("3.");
        assertThat(s.dbSize()).isPositive();
        assertThat(s.dbSizeInUse()).isPositive();
        assertThat(s.errors()).isEmpty();
        assertThat(member.memberList()).isPresent();
      }
      assertThat(probe.members().stream().filter(p -> p.status().isLeader())).hasSize(1);
      assertThat(probe.leaderEndpoint()).contains(leader.endpoint());

      EtcdMemberList list = probe.memberList().orElseThrow();
      assertThat(list.reportedBy()).isEqualTo(leader.memberId());
      assertThat(list.clusterId()).isEqualTo(clusterId);
      assertThat(list.members()).hasSize(3);
      Set<String> names = list.members().stream().map(EtcdMember::name).collect(Collectors.toSet());
      assertThat(names)
          .containsExactlyInAnyOrderElementsOf(
              cluster.members().stream().map(m -> m.name()).toList());
      for (var local : cluster.members()) {
        EtcdMember m = list.findByPeerUrl(local.peerUrl()).orElseThrow();
        assertThat(m.clientUrls()).containsExactly(local.clientUrl());
        assertThat(m.learner()).isFalse();
        assertThat(m.started()).isTrue();
      }
      Set<Long> statusIds =
          probe.members().stream().map(p -> p.status().memberId()).collect(Collectors.toSet());
      assertThat(statusIds)
          .isEqualTo(list.members().stream().map(EtcdMember::id).collect(Collectors.toSet()));

      String any = cluster.member(1).clientUrl();
      assertThat(etcd.status(key, any).reachable()).isTrue();
      assertThat(etcd.memberList(key, any).members()).hasSize(3);
      assertThat(etcd.alarms(key, any)).isEmpty();
      Health health = etcd.health(key, any);
      assertThat(health.healthy()).as("health %s", health).isTrue();
      assertThat(health.problem()).isEmpty();
      assertThat(probe.took()).isLessThan(Duration.ofSeconds(1));
      assertThat(etcd.openChannels()).isEqualTo(3);
    }
  }
}
