package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.testing.LoopbackAddresses;
import io.grpc.Deadline;
import io.grpc.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failure paths of {@link JetcdEtcdService} without etcd: a socket that accepts and never answers
 * (a frozen or black-holed member), an address nobody listens on, and a fake gRPC server that
 * answers with whatever status a test asks for.
 */
class JetcdEtcdServiceTest {
  private static final Duration DEADLINE = Duration.ofMillis(300);
  private static final Duration MARGIN = Duration.ofMillis(400);
  private static final String KEY = "ns/test";

  /** For timing: a short deadline. */
  private JetcdEtcdService etcd;

  /** For answers of the fake server: a deadline a cold JVM cannot miss. */
  private JetcdEtcdService generous;

  private ServerSocket silent;
  private FakeEtcdServer fake;

  @BeforeEach
  void start() throws Exception {
    etcd = new JetcdEtcdService(EtcdServiceConfig.defaults().withDeadline(DEADLINE));
    generous =
        new JetcdEtcdService(EtcdServiceConfig.defaults().withDeadline(Duration.ofSeconds(10)));
    String ip = LoopbackAddresses.allocate(2379);
    silent = new ServerSocket();
    silent.bind(new InetSocketAddress(InetAddress.getByName(ip), 2379), 50);
    fake = new FakeEtcdServer();
    // Class loading and the first connection of a cold JVM can take longer than DEADLINE.
    generous.status(KEY, fake.clientUrl());
    etcd.status(KEY, fake.clientUrl());
  }

  @AfterEach
  void stop() throws Exception {
    etcd.close();
    generous.close();
    silent.close();
    fake.close();
  }

  private String silentUrl() {
    return "http://" + silent.getInetAddress().getHostAddress() + ":2379";
  }

  private static String refusedUrl() {
    return "http://" + LoopbackAddresses.allocate(2379) + ":2379";
  }

  @Test
  void silentMemberCostsOneDeadline() {
    long start = System.nanoTime();
    EtcdStatus status = etcd.status(KEY, silentUrl());
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(status.reachable()).isFalse();
    assertThat(status.failure().orElseThrow().failure()).isEqualTo(EtcdFailure.DEADLINE_EXCEEDED);
    assertThat(took).isBetween(DEADLINE.minusMillis(50), DEADLINE.plus(MARGIN));
    assertThatThrownBy(() -> etcd.memberList(KEY, silentUrl()))
        .isInstanceOfSatisfying(
            EtcdException.class,
            e -> assertThat(e.failure()).isEqualTo(EtcdFailure.DEADLINE_EXCEEDED));
  }

  @Test
  void refusedMemberIsUnreachableAtOnce() {
    String url = refusedUrl();
    long start = System.nanoTime();
    EtcdStatus status = etcd.status(KEY, url);

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DEADLINE);
    assertThat(status.failure().orElseThrow().failure()).isEqualTo(EtcdFailure.UNREACHABLE);
    assertThat(status.failure().get().detail()).contains("Connection refused");
    Health health = etcd.health(KEY, url);
    assertThat(health.healthy()).isFalse();
    assertThat(health.problem().orElseThrow().failure()).isEqualTo(EtcdFailure.UNREACHABLE);
  }

  @Test
  void probeAllWaitsOneDeadlineForAllSilentMembersTogether() throws Exception {
    try (ServerSocket silent2 = new ServerSocket()) {
      silent2.bind(
          new InetSocketAddress(InetAddress.getByName(LoopbackAddresses.allocate(2379)), 2379), 50);
      String silent2Url = "http://" + silent2.getInetAddress().getHostAddress() + ":2379";
      List<String> urls = List.of(silentUrl(), refusedUrl(), silent2Url, fake.clientUrl());

      long start = System.nanoTime();
      ClusterProbe probe = etcd.probeAll(KEY, urls);
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(took).isLessThan(DEADLINE.plus(MARGIN));
      assertThat(probe.members()).extracting(EtcdProbe::endpoint).isEqualTo(urls);
      assertThat(probe.members())
          .extracting(p -> p.status().failure().map(ProbeFailure::failure).orElse(null))
          .containsExactly(
              EtcdFailure.DEADLINE_EXCEEDED,
              EtcdFailure.UNREACHABLE,
              EtcdFailure.DEADLINE_EXCEEDED,
              null);
      assertThat(probe.clusterIds()).containsExactly(FakeEtcdServer.CLUSTER_ID);
      assertThat(probe.memberList().orElseThrow().reportedBy()).isEqualTo(FakeEtcdServer.MEMBER_ID);
      assertThat(probe.members().get(0).memberListFailure().orElseThrow().failure())
          .isEqualTo(EtcdFailure.DEADLINE_EXCEEDED);
    }
  }

  @Test
  void aServerThatNeverAnswersIsBoundedToo() {
    fake.status = new FakeEtcdServer.Hang();
    fake.memberList = new FakeEtcdServer.Hang();
    long start = System.nanoTime();
    ClusterProbe probe = etcd.probeAll(KEY, List.of(fake.clientUrl()));

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DEADLINE.plus(MARGIN));
    assertThat(probe.members().get(0).status().failure().orElseThrow().failure())
        .isEqualTo(EtcdFailure.DEADLINE_EXCEEDED);
  }

  @Test
  void unexpectedStatusesPropagateFromCallsButAreDataInAProbe() {
    fake.status = new FakeEtcdServer.Fail(Status.INTERNAL.withDescription("disk on fire"));

    assertThatThrownBy(() -> generous.status(KEY, fake.clientUrl()))
        .isInstanceOf(EtcdUnexpectedException.class)
        .hasMessageContaining("disk on fire");
    // One member's odd failure must not cost the status of the whole cluster: it does not answer.
    ClusterProbe probe = generous.probeAll(KEY, List.of(fake.clientUrl()));
    var failure = probe.members().get(0).status().failure().orElseThrow();
    assertThat(failure.failure()).isEqualTo(EtcdFailure.UNREACHABLE);
    assertThat(failure.detail()).contains("INTERNAL").contains("disk on fire");
  }

  @Test
  void etcdRefusalsAreNotMistakenForUnreachable() {
    fake.memberList =
        new FakeEtcdServer.Fail(Status.UNAVAILABLE.withDescription("etcdserver: no leader"));

    assertThatThrownBy(() -> generous.memberList(KEY, fake.clientUrl()))
        .isInstanceOfSatisfying(
            EtcdException.class, e -> assertThat(e.failure()).isEqualTo(EtcdFailure.REJECTED));
    ClusterProbe probe = generous.probeAll(KEY, List.of(fake.clientUrl()));
    assertThat(probe.members().get(0).reachable()).isTrue();
    assertThat(probe.members().get(0).memberListFailure().orElseThrow().detail())
        .isEqualTo("etcdserver: no leader");
  }

  @Test
  void healthReportsAlarmsAndFailedReads() {
    assertThat(generous.health(KEY, fake.clientUrl()).healthy()).isTrue();

    fake.alarms =
        List.of(
            io.etcd.jetcd.api.AlarmMember.newBuilder()
                .setMemberID(0xa)
                .setAlarm(io.etcd.jetcd.api.AlarmType.NOSPACE)
                .build());
    Health alarmed = generous.health(KEY, fake.clientUrl());
    assertThat(alarmed.healthy()).isFalse();
    assertThat(alarmed.problem().orElseThrow().failure()).isEqualTo(EtcdFailure.ALARM);
    assertThat(alarmed.problem().get().detail()).contains("NOSPACE on member a");
    assertThat(generous.alarms(KEY, fake.clientUrl())).containsExactly(new Alarm(0xa, "NOSPACE"));

    fake.range =
        new FakeEtcdServer.Fail(
            Status.UNAVAILABLE.withDescription("etcdserver: request timed out"));
    Health noRead = generous.health(KEY, fake.clientUrl());
    assertThat(noRead.problem().orElseThrow().failure()).isEqualTo(EtcdFailure.REJECTED);
  }

  @Test
  void promoteSendsTheLearnerIdAndTellsNotReadyFromRefusals() {
    long clusterId = FakeEtcdServer.CLUSTER_ID;
    assertThat(generous.promoteLearner(KEY, fake.clientUrl(), clusterId, 0x77))
        .isInstanceOf(PromoteResult.Promoted.class);
    assertThat(fake.promoted).containsExactly(0x77L);

    fake.promote =
        new FakeEtcdServer.Fail(
            Status.FAILED_PRECONDITION.withDescription(
                "etcdserver: can only promote a learner member which is in sync with leader"));
    assertThat(generous.promoteLearner(KEY, fake.clientUrl(), clusterId, 0x77))
        .isInstanceOf(PromoteResult.NotReadyYet.class);

    fake.promote =
        new FakeEtcdServer.Fail(
            Status.FAILED_PRECONDITION.withDescription(
                "etcdserver: can only promote a learner member"));
    assertThatThrownBy(() -> generous.promoteLearner(KEY, fake.clientUrl(), clusterId, 0x77))
        .isInstanceOfSatisfying(
            EtcdException.class, e -> assertThat(e.failure()).isEqualTo(EtcdFailure.REJECTED));
  }

  @Test
  void membershipChangesNeedTheExpectedClusterId() {
    assertThatThrownBy(() -> etcd.removeMember(KEY, fake.clientUrl(), 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> etcd.promoteLearner(KEY, fake.clientUrl(), 0xdead, 1))
        .isInstanceOfSatisfying(
            EtcdException.class,
            e -> assertThat(e.failure()).isEqualTo(EtcdFailure.CLUSTER_ID_MISMATCH));
    assertThat(fake.promoted).isEmpty();
    // An unreachable member cannot prove its cluster ID: nothing is changed.
    assertThatThrownBy(() -> etcd.removeMember(KEY, silentUrl(), FakeEtcdServer.CLUSTER_ID, 1))
        .isInstanceOfSatisfying(
            EtcdException.class,
            e -> assertThat(e.failure()).isEqualTo(EtcdFailure.DEADLINE_EXCEEDED));
  }

  @Test
  void connectionsAreCachedPerClusterAndEndpointAndClosedPerCluster() {
    etcd.closeCluster(KEY);
    assertThat(etcd.openChannels()).isZero();
    etcd.status("ns/a", fake.clientUrl());
    etcd.status("ns/a", fake.clientUrl());
    etcd.probeAll("ns/a", List.of(fake.clientUrl()));
    assertThat(etcd.openChannels()).isEqualTo(1);
    etcd.status("ns/b", fake.clientUrl());
    etcd.status("ns/b", silentUrl());
    assertThat(etcd.openChannels()).isEqualTo(3);

    etcd.closeCluster("ns/b");
    assertThat(etcd.openChannels()).isEqualTo(1);
    assertThat(etcd.status("ns/a", fake.clientUrl()).reachable()).isTrue();
    etcd.closeCluster("ns/unknown");

    etcd.close();
    assertThat(etcd.openChannels()).isZero();
    assertThatThrownBy(() -> etcd.status("ns/a", fake.clientUrl()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void warmUpLeavesNoConnectionBehind() {
    try (JetcdEtcdService fresh = new JetcdEtcdService()) {
      assertThat(fresh.openChannels()).isZero();
    }
  }

  @Test
  void idleConnectionsAreDropped() {
    try (JetcdEtcdService shortLived =
        new JetcdEtcdService(new EtcdServiceConfig(DEADLINE, 1, Duration.ofMillis(1)))) {
      shortLived.status(KEY, refusedUrl());
      // A refused connect fails within microseconds: let the 1 ms idle timeout pass for certain.
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
      shortLived.status(KEY, refusedUrl());
      assertThat(shortLived.openChannels()).isEqualTo(1);
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
      assertThat(shortLived.status(KEY, fake.clientUrl()).reachable()).isTrue();
      assertThat(shortLived.openChannels()).isEqualTo(1);
    }
  }

  @Test
  void onlyHttpAndHttpsClientUrlsAreAccepted() {
    for (String bad : List.of("127.0.0.1:2379", "ftp://a:2379", "http://a", "http://[x")) {
      assertThatThrownBy(() -> etcd.status(KEY, bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aCallGrpcNeverCompletesIsCutOffByTheSafetyNet() {
    Deadline deadline = Deadline.after(50, TimeUnit.MILLISECONDS);
    long start = System.nanoTime();

    assertThatThrownBy(() -> EtcdCalls.await(new CompletableFuture<>(), "http://x", deadline))
        .isInstanceOfSatisfying(
            EtcdException.class,
            e -> assertThat(e.failure()).isEqualTo(EtcdFailure.DEADLINE_EXCEEDED));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(EtcdCalls.SAFETY_MARGIN.plus(MARGIN));
  }

  @Test
  void anInterruptedWaitIsUnexpectedAndKeepsTheInterrupt() {
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(
              () ->
                  EtcdCalls.await(
                      new CompletableFuture<>(), "http://x", Deadline.after(1, TimeUnit.SECONDS)))
          .isInstanceOf(EtcdUnexpectedException.class);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void configRejectsNonsense() {
    assertThatThrownBy(() -> EtcdServiceConfig.defaults().withDeadline(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EtcdServiceConfig(DEADLINE, 0, Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
