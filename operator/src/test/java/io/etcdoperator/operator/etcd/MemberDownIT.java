package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Killed, frozen and majority-down members, as {@link EtcdService} reports them. */
class MemberDownIT {
  private static final Duration HEALTHY = Duration.ofSeconds(30);
  private static final Duration FROZEN_ROUND_LIMIT = Duration.ofMillis(1600);

  @Test
  void killedMemberIsUnreachableAndTheOthersKeepQuorum() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      assertThat(etcd.probeAll(key, cluster.clientUrls()).reachable()).hasSize(3);
      LocalEtcdMember victim = cluster.member(2);

      victim.kill();
      ClusterProbe probe = etcd.probeAll(key, cluster.clientUrls());

      EtcdProbe dead = probe.find(victim.clientUrl()).orElseThrow();
      assertThat(dead.reachable()).isFalse();
      assertThat(dead.status().failure().orElseThrow().failure())
          .isEqualTo(EtcdFailure.UNREACHABLE);
      // The kill came before the call, broke the channel's open connection under it, or ended the
      // process while the call was in flight: each is the member down (UNREACHABLE), in gRPC's
      // words for each.
      assertThat(dead.status().failure().orElseThrow().detail())
          .containsAnyOf("Connection refused", "Network closed", "channel closed");
      assertThat(dead.memberList()).isEmpty();
      assertThat(probe.reachable()).hasSize(2);
      assertThat(probe.took()).isLessThan(etcd.config().deadline());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> etcd.probeAll(key, cluster.clientUrls()).hasQuorum());
      assertThat(etcd.probeAll(key, cluster.clientUrls()).memberList().orElseThrow().members())
          .hasSize(3);

      EtcdStatus status = etcd.status(key, victim.clientUrl());
      assertThat(status.reachable()).isFalse();
      assertThat(status.failure().orElseThrow().failure()).isEqualTo(EtcdFailure.UNREACHABLE);
      Health health = etcd.health(key, victim.clientUrl());
      assertThat(health.healthy()).isFalse();
      assertThat(health.problem().orElseThrow().failure()).isEqualTo(EtcdFailure.UNREACHABLE);
      assertThatThrownBy(() -> etcd.memberList(key, victim.clientUrl()))
          .isInstanceOfSatisfying(
              EtcdException.class, e -> assertThat(e.failure()).isEqualTo(EtcdFailure.UNREACHABLE));
      assertThatThrownBy(() -> etcd.alarms(key, victim.clientUrl()))
          .isInstanceOf(EtcdException.class);

      // gRPC backs off for up to 2 minutes after failed connects: the member must be seen again
      // as soon as it is back, not minutes later.
      victim.restart();
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> etcd.probeAll(key, cluster.clientUrls()).reachable().size() == 3);
    }
  }

  @Test
  void frozenMemberCostsOneDeadlineAndNoMore() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService();
        JetcdEtcdService fresh = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      ClusterProbe before = etcd.probeAll(key, cluster.clientUrls());
      String leader = before.leaderEndpoint().orElseThrow();
      LocalEtcdMember follower =
          cluster.members().stream().filter(m -> !m.clientUrl().equals(leader)).findFirst().get();

      follower.freeze();
      // SIGSTOP is delivered at once, but an answer already on its way may still arrive.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> etcd.status(key, follower.clientUrl()).failure().isPresent());
      // Once over connections made before the freeze, once over new ones (the kernel accepts
      // the TCP connection of a stopped process; the HTTP/2 handshake never completes).
      for (JetcdEtcdService service : new JetcdEtcdService[] {etcd, fresh}) {
        for (int round = 0; round < 3; round++) {
          long start = System.nanoTime();
          ClusterProbe probe = service.probeAll(key, cluster.clientUrls());
          Duration took = Duration.ofNanos(System.nanoTime() - start);

          assertThat(took).isLessThan(FROZEN_ROUND_LIMIT);
          EtcdProbe frozen = probe.find(follower.clientUrl()).orElseThrow();
          assertThat(frozen.status().failure().orElseThrow().failure())
              .isEqualTo(EtcdFailure.DEADLINE_EXCEEDED);
          assertThat(frozen.memberListFailure().orElseThrow().failure())
              .isEqualTo(EtcdFailure.DEADLINE_EXCEEDED);
          assertThat(probe.reachable()).hasSize(2);
          assertThat(probe.hasQuorum()).isTrue();
          assertThat(probe.leaderEndpoint()).contains(leader);
        }
      }
      long start = System.nanoTime();
      EtcdStatus status = etcd.status(key, follower.clientUrl());
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FROZEN_ROUND_LIMIT);
      assertThat(status.failure().orElseThrow().failure()).isEqualTo(EtcdFailure.DEADLINE_EXCEEDED);
      assertThat(etcd.health(key, follower.clientUrl()).healthy()).isFalse();

      follower.thaw();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> etcd.probeAll(key, cluster.clientUrls()).reachable().size() == 3);
    }
  }

  @Test
  void frozenLeaderIsReplacedAndProbesStayBounded() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      ClusterProbe before = etcd.probeAll(key, cluster.clientUrls());
      EtcdStatus oldLeader = before.leader().orElseThrow();
      LocalEtcdMember leader =
          cluster.members().stream()
              .filter(m -> m.clientUrl().equals(oldLeader.endpoint()))
              .findFirst()
              .get();

      leader.freeze();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> {
                ClusterProbe p = etcd.probeAll(key, cluster.clientUrls());
                assertThat(p.took()).isLessThan(FROZEN_ROUND_LIMIT);
                return p.hasQuorum() && p.leader().get().memberId() != oldLeader.memberId();
              });
      ClusterProbe after = etcd.probeAll(key, cluster.clientUrls());
      assertThat(after.leader().orElseThrow().raftTerm()).isGreaterThan(oldLeader.raftTerm());

      // The thawed old leader hears of the new term and follows.
      leader.thaw();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                ClusterProbe p = etcd.probeAll(key, cluster.clientUrls());
                return p.reachable().size() == 3
                    && p.members().stream()
                        .allMatch(m -> m.status().leaderId() == after.leader().get().memberId());
              });
    }
  }

  @Test
  void majorityDownLosesQuorumButSurvivorStillAnswers() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      long clusterId = etcd.status(key, cluster.member(0).clientUrl()).clusterId();

      cluster.member(1).kill();
      cluster.member(2).kill();
      String survivor = cluster.member(0).clientUrl();
      // A leader steps down and a follower stops following after one election timeout alone.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> etcd.status(key, survivor).leaderId() == 0);
      ClusterProbe probe = etcd.probeAll(key, cluster.clientUrls());

      assertThat(probe.hasQuorum()).isFalse();
      assertThat(probe.leader()).isEmpty();
      assertThat(probe.reachable()).hasSize(1);
      assertThat(probe.unreachable()).hasSize(2);
      assertThat(probe.memberList().orElseThrow().members()).hasSize(3);
      assertThat(probe.find(survivor).orElseThrow().status().raftTerm()).isPositive();
      assertThat(probe.took()).isLessThan(FROZEN_ROUND_LIMIT);
      Health health = etcd.health(key, survivor);
      assertThat(health.healthy()).isFalse();
      System.out.println("majority down, health of the survivor: " + health);

      assertThatThrownBy(
              () -> etcd.addLearner(key, survivor, clusterId, "http://127.10.255.254:2380"))
          .isInstanceOfSatisfying(
              EtcdException.class,
              e -> {
                System.out.println("majority down, add learner: " + e.getMessage());
                assertThat(e.failure()).isEqualTo(EtcdFailure.UNHEALTHY_CLUSTER);
              });
    }
  }
}
