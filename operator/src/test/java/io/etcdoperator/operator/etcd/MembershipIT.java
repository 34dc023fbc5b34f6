package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.model.TestClusters;
import io.etcdoperator.testing.EtcdBinaries;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/** Learners, promotion, removal and leadership transfer against real etcd processes. */
@ParameterizedClass(name = "etcd {0}")
@ValueSource(strings = {"3.4", "3.5"})
class MembershipIT {
  /** The etcd version this run of the class uses (both supported ones run). */
  @Parameter String version;

  private static final Duration HEALTHY = Duration.ofSeconds(30);

  @Test
  void learnerIsAddedReportedPromotedWhenInSyncAndRemoved() throws Exception {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().version(version).members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      String via = cluster.member(0).clientUrl();
      long clusterId = etcd.status(key, via).clusterId();
      LocalEtcdMember newcomer = cluster.newMember(cluster.name() + "-3");

      MemberAdded added = addLearnerOnceAllowed(etcd, key, via, clusterId, newcomer.peerUrl());

      EtcdMember learner = added.member();
      assertThat(learner.learner()).isTrue();
      assertThat(learner.started()).isFalse();
      assertThat(learner.clientUrls()).isEmpty();
      assertThat(learner.peerUrls()).containsExactly(newcomer.peerUrl());
      assertThat(added.members().members()).hasSize(4);
      assertThat(added.members().learners())
          .extracting(EtcdMember::id)
          .containsExactly(learner.id());
      // etcd refuses to promote a learner that has not caught up (here: not even started).
      PromoteResult early = etcd.promoteLearner(key, via, clusterId, learner.id());
      assertThat(early).isInstanceOf(PromoteResult.NotReadyYet.class);
      System.out.println("promote before start: " + early);
      assertThatRejected(
          () -> etcd.addLearner(key, via, clusterId, newcomer.peerUrl()), EtcdFailure.REJECTED);

      List<LocalEtcdMember> all = new ArrayList<>(cluster.members());
      newcomer.startExisting(LocalEtcdCluster.initialCluster(all));
      List<String> urls = cluster.clientUrls();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> etcd.status(key, newcomer.clientUrl()).reachable());
      ClusterProbe withLearner = etcd.probeAll(key, urls);
      EtcdProbe learnerProbe = withLearner.find(newcomer.clientUrl()).orElseThrow();
      System.out.println("learner status: " + learnerProbe);
      assertThat(learnerProbe.status().learner()).isTrue();
      assertThat(learnerProbe.status().memberId()).isEqualTo(learner.id());
      assertThat(learnerProbe.status().clusterId()).isEqualTo(clusterId);
      assertThat(withLearner.hasQuorum()).isTrue();
      assertThat(withLearner.memberList().orElseThrow().find(learner.id()).orElseThrow().learner())
          .isTrue();
      // The members' readiness probe, as the operator renders it for this etcd: from 3.5.19 it
      // keeps a learner, which refuses clients' requests, out of the client Service; 3.4's
      // /health (the only one it has) says a learner is healthy.
      String readiness = readinessPath();
      assertThat(answers(cluster.member(0).metricsUrl() + readiness)).isEqualTo(200);
      assertThat(answers(newcomer.metricsUrl() + readiness))
          .as("readiness %s of a learner on etcd %s", readiness, version)
          .isEqualTo(version.equals("3.4") ? 200 : 503);

      AtomicReference<PromoteResult> promoted = new AtomicReference<>();
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                promoted.set(etcd.promoteLearner(key, via, clusterId, learner.id()));
                return promoted.get() instanceof PromoteResult.Promoted;
              });
      EtcdMemberList afterPromote = ((PromoteResult.Promoted) promoted.get()).members();
      assertThat(afterPromote.learners()).isEmpty();
      assertThat(afterPromote.voters()).hasSize(4);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !etcd.status(key, newcomer.clientUrl()).learner());
      assertThat(etcd.probeAll(key, urls).hasQuorum()).isTrue();
      assertThatRejected(
          () -> etcd.promoteLearner(key, via, clusterId, learner.id()), EtcdFailure.REJECTED);

      EtcdMemberList afterRemove = etcd.removeMember(key, via, clusterId, learner.id());

      assertThat(afterRemove.members()).hasSize(3);
      assertThat(afterRemove.find(learner.id())).isEmpty();
      assertThat(newcomer.awaitExit(Duration.ofSeconds(15))).hasValue(0);
      assertThatRejected(
          () -> etcd.removeMember(key, via, clusterId, learner.id()), EtcdFailure.MEMBER_NOT_FOUND);
      String leader = etcd.probeAll(key, urls).leaderEndpoint().orElseThrow();
      assertThatRejected(
          () -> etcd.promoteLearner(key, leader, clusterId, learner.id()),
          EtcdFailure.MEMBER_NOT_FOUND);
      assertThatRejected(
          () -> etcd.promoteLearner(key, leader, clusterId, 0x1234L), EtcdFailure.MEMBER_NOT_FOUND);
    }
  }

  /** The readiness path of the member pods the operator makes for this class's etcd version. */
  private String readinessPath() {
    var model =
        TestClusters.model(
            "podTemplate:\n  spec:\n    containers:\n    - name: etcd\n      image: quay.io/coreos/etcd:v"
                + EtcdBinaries.fullVersion(version)
                + "\n");
    return model.podTemplate().getSpec().getContainers().stream()
        .filter(c -> c.getName().equals("etcd"))
        .findFirst()
        .orElseThrow()
        .getReadinessProbe()
        .getHttpGet()
        .getPath();
  }

  private static int answers(String url) throws Exception {
    HttpResponse<Void> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.discarding());
    return r.statusCode();
  }

  /**
   * Seeds 32525 and 32621 of the robustness soak: a member whose data dir was wiped panics on the
   * leader's first message, leaving a data dir initialised with its ID and nothing committed; once
   * it is removed, nobody sends it anything and it runs on, silent on its client port (etcd serves
   * clients only once it has joined). Its metrics still answer, at revision 1: the operator reads
   * there that it holds nothing.
   */
  @Test
  void aRemovedMemberOnAWipedDataDirIsSilentButItsMetricsSayRevisionOne() throws Exception {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().version(version).members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService();
        EtcdKv kv = new EtcdKv(Duration.ofSeconds(5))) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      String via = cluster.member(0).clientUrl();
      long clusterId = etcd.status(key, via).clusterId();
      for (int i = 0; i < 5; i++) {
        kv.put(via, "k" + i, "v" + i);
      }
      LocalEtcdMember lost = cluster.member(2);
      long lostId = etcd.status(key, lost.clientUrl()).memberId();
      String initial = LocalEtcdCluster.initialCluster(cluster.members());
      // Whether the wiped member panics or catches up from a snapshot depends on which of the
      // leader's messages comes first: wipe again until it panics.
      for (int attempt = 1; ; attempt++) {
        lost.kill();
        lost.wipeData();
        lost.startExisting(initial);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> !lost.isRunning() || lost.isHealthy(Duration.ofSeconds(1)));
        if (!lost.isRunning()) {
          break;
        }
        assertThat(attempt).as("the wiped member caught up every time").isLessThan(10);
      }
      assertThat(lost.logTail(200)).contains("out of range");

      etcd.removeMember(key, via, clusterId, lostId);
      lost.startExisting(initial);

      EtcdHttp http = new EtcdHttp(Duration.ofSeconds(1));
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> http.progress(List.of(lost.metricsUrl())).containsKey(lost.metricsUrl()));
      EtcdHttp.Progress empty = http.progress(List.of(lost.metricsUrl())).get(lost.metricsUrl());
      System.out.println("removed member on a wiped data dir: " + empty);
      assertThat(empty.revision()).isEqualTo(1);
      assertThat(empty.hasLeader()).isFalse();
      assertThat(lost.isRunning()).isTrue();
      assertThat(etcd.status(key, lost.clientUrl()).reachable()).isFalse();

      String kept = cluster.member(1).metricsUrl();
      EtcdHttp.Progress withData = http.progress(List.of(kept)).get(kept);
      assertThat(withData.revision()).isGreaterThanOrEqualTo(6);
    }
  }

  @Test
  void learnerServesStatusButNoMemberList() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().version(version).members(1).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      String via = cluster.member(0).clientUrl();
      long clusterId = etcd.status(key, via).clusterId();
      LocalEtcdMember newcomer = cluster.newMember(cluster.name() + "-learner");
      EtcdMember learner =
          addLearnerOnceAllowed(etcd, key, via, clusterId, newcomer.peerUrl()).member();
      newcomer.startExisting(LocalEtcdCluster.initialCluster(cluster.members()));
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> etcd.status(key, newcomer.clientUrl()).reachable());

      ClusterProbe probe = etcd.probeAll(key, cluster.clientUrls());

      EtcdProbe learnerProbe = probe.find(newcomer.clientUrl()).orElseThrow();
      assertThat(learnerProbe.status().learner()).isTrue();
      assertThat(learnerProbe.memberList()).isEmpty();
      assertThat(learnerProbe.memberListFailure().orElseThrow().failure())
          .isEqualTo(EtcdFailure.NOT_SUPPORTED_ON_LEARNER);
      assertThat(probe.memberList().orElseThrow().reportedBy()).isNotEqualTo(learner.id());
      Health health = etcd.health(key, newcomer.clientUrl());
      assertThat(health.healthy()).isFalse();
      assertThat(health.problem().orElseThrow().failure())
          .isEqualTo(EtcdFailure.NOT_SUPPORTED_ON_LEARNER);
      assertThat(probe.hasQuorum()).isTrue();
    }
  }

  @Test
  void membershipChangesRefuseAnotherClusterId() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().version(version).members(1).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      String via = cluster.member(0).clientUrl();
      EtcdStatus status = etcd.status(key, via);
      long wrong = status.clusterId() + 1;

      assertThatRejected(
          () -> etcd.removeMember(key, via, wrong, status.memberId()),
          EtcdFailure.CLUSTER_ID_MISMATCH);
      assertThatRejected(
          () -> etcd.addLearner(key, via, wrong, "http://127.10.255.254:2380"),
          EtcdFailure.CLUSTER_ID_MISMATCH);
      assertThatRejected(
          () -> etcd.promoteLearner(key, via, wrong, status.memberId()),
          EtcdFailure.CLUSTER_ID_MISMATCH);
      assertThatRejected(
          () -> etcd.moveLeader(key, via, wrong, status.memberId()),
          EtcdFailure.CLUSTER_ID_MISMATCH);
      assertThat(etcd.memberList(key, via).members()).hasSize(1);
    }
  }

  @Test
  void leadershipMovesOnlyThroughTheLeader() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().version(version).members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      ClusterProbe before = etcd.probeAll(key, cluster.clientUrls());
      EtcdStatus leader = before.leader().orElseThrow();
      long clusterId = leader.clusterId();
      EtcdStatus follower =
          before.reachable().stream()
              .map(EtcdProbe::status)
              .filter(s -> !s.isLeader())
              .findFirst()
              .orElseThrow();

      assertThatRejected(
          () -> etcd.moveLeader(key, follower.endpoint(), clusterId, follower.memberId()),
          EtcdFailure.NOT_LEADER);
      assertThatRejected(
          () -> etcd.moveLeader(key, leader.endpoint(), clusterId, 0x1234L), EtcdFailure.REJECTED);

      etcd.moveLeader(key, leader.endpoint(), clusterId, follower.memberId());

      ClusterProbe after = etcd.probeAll(key, cluster.clientUrls());
      assertThat(after.leader().orElseThrow().memberId()).isEqualTo(follower.memberId());
      assertThat(after.leader().get().raftTerm()).isGreaterThan(leader.raftTerm());
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> etcd.probeAll(key, cluster.clientUrls()).hasQuorum());
    }
  }

  /**
   * etcd refuses membership changes ("unhealthy cluster") until the member has been connected to
   * every voter for 5 s, so right after a cluster starts the first attempts fail.
   */
  static MemberAdded addLearnerOnceAllowed(
      EtcdService etcd, String key, String via, long clusterId, String peerUrl) {
    AtomicReference<MemberAdded> added = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              try {
                added.set(etcd.addLearner(key, via, clusterId, peerUrl));
                return true;
              } catch (EtcdException e) {
                if (e.failure() != EtcdFailure.UNHEALTHY_CLUSTER) {
                  throw e;
                }
                return false;
              }
            });
    return added.get();
  }

  private static void assertThatRejected(ThrowingCallable call, EtcdFailure expected) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            EtcdException.class,
            e -> {
              System.out.println(expected + " <- " + e.getMessage());
              assertThat(e.failure()).isEqualTo(expected);
            });
  }
}
