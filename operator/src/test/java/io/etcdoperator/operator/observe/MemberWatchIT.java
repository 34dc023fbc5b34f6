package io.etcdoperator.operator.observe;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcdoperator.operator.etcd.ClusterProbe;
import io.etcdoperator.operator.etcd.EtcdProbe;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link MemberWatch} against real etcd members: quiet while the members say what was expected, and
 * a reconcile asked for within a period and a deadline once one is frozen, killed or follows a new
 * leader; nothing asked for a cluster it forgot. On etcd 3.4 and 3.5.
 */
class MemberWatchIT {
  private static final Duration PERIOD = Duration.ofMillis(300);
  private static final Duration HEALTHY = Duration.ofSeconds(30);

  /** A full period no test outlasts. */
  private static final Duration NEVER = Duration.ofHours(1);

  /** The period, the check's deadline, and room for a loaded machine. */
  private static final Duration SEEN_WITHIN = Duration.ofSeconds(3);

  /** The pause test's check deadline, and how long it stops this JVM: past that deadline. */
  private static final Duration PAUSED_DEADLINE = Duration.ofMillis(1500);

  private static final String PAUSED_FOR = "1.8";

  @ParameterizedTest
  @ValueSource(strings = {"3.4", "3.5"})
  void wakesTheReconcileWhenAMemberChangesAndOnlyThen(String version) {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().version(version).members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService();
        MemberWatch watch =
            new MemberWatch(etcd, PERIOD, MemberWatch.CHECK_DEADLINE, NEVER, NEVER)) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      AtomicLong woken = new AtomicLong();
      Runnable expectNow = () -> expect(watch, etcd, key, cluster, woken);

      // Quiet: several checks, no wake-up. Full checks never fall due: every check below is a
      // progress request.
      expectNow.run();
      long checks = watch.checks();
      await()
          .during(PERIOD.multipliedBy(5))
          .atMost(PERIOD.multipliedBy(8))
          .until(() -> woken.get() == 0);
      assertThat(watch.checks()).isGreaterThanOrEqualTo(checks + 4);

      // A frozen follower: its check waits out the deadline, then the reconcile is asked for.
      LocalEtcdMember follower = follower(etcd, key, cluster);
      follower.freeze();
      long frozenAt = System.nanoTime();
      await().atMost(SEEN_WITHIN).until(() -> woken.get() == 1);
      System.out.printf(
          "etcd %s: frozen follower seen after %d ms%n",
          version, (System.nanoTime() - frozenAt) / 1_000_000);
      assertThat(watch.watching()).isZero();

      // What the reconcile saw of the frozen member is expected from now on: quiet again.
      expectNow.run();
      await()
          .during(PERIOD.multipliedBy(4))
          .atMost(PERIOD.multipliedBy(4).plus(SEEN_WITHIN))
          .until(() -> woken.get() == 1);

      // Back again: a change too.
      follower.thaw();
      await().atMost(SEEN_WITHIN).until(() -> woken.get() == 2);
      cluster.awaitHealthy(HEALTHY);

      // The leader killed: the others follow a new one, and it does not answer.
      expectNow.run();
      LocalEtcdMember leader = leader(etcd, key, cluster);
      leader.kill();
      long killedAt = System.nanoTime();
      await().atMost(SEEN_WITHIN).until(() -> woken.get() == 3);
      System.out.printf(
          "etcd %s: killed leader seen after %d ms%n",
          version, (System.nanoTime() - killedAt) / 1_000_000);

      // A forgotten cluster wakes nothing, whatever happens to its members.
      leader.restart();
      cluster.awaitHealthy(HEALTHY);
      expectNow.run();
      watch.forget(key);
      cluster.member(0).kill();
      await()
          .during(PERIOD.multipliedBy(4))
          .atMost(PERIOD.multipliedBy(4).plus(SEEN_WITHIN))
          .until(() -> woken.get() == 3);
      assertThat(watch.fullChecks()).isZero();
    }
  }

  /**
   * An answer the operator could not read in time because it was paused itself (a collection, no
   * CPU) is asked for again at once, and a member that answers then wakes nothing; without a pause,
   * one silence wakes the reconcile. The pause is real: this JVM is stopped (SIGSTOP) past the
   * check's deadline by a shell it starts, which continues it and then thaws the member, frozen
   * since before the check: the check times out as the JVM resumes, and the recheck is answered.
   * The deadline is longer than the watch's own, so that a slow start of the shell on a loaded
   * machine still stops the JVM while the check is in flight.
   */
  @ParameterizedTest
  @ValueSource(strings = {"3.4", "3.5"})
  void aCheckUnansweredWhileTheOperatorPausedIsMadeAgainBeforeWaking(String version)
      throws Exception {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().version(version).members(1).start();
        JetcdEtcdService etcd = new JetcdEtcdService();
        MemberWatch watch = new MemberWatch(etcd, PERIOD, PAUSED_DEADLINE, NEVER, NEVER)) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      AtomicLong woken = new AtomicLong();
      expect(watch, etcd, key, cluster, woken);
      await().atMost(SEEN_WITHIN).until(() -> watch.checks() >= 2);

      LocalEtcdMember member = cluster.member(0);
      member.freeze();
      long checks = watch.checks();
      await()
          .pollInterval(Duration.ofMillis(2))
          .atMost(SEEN_WITHIN)
          .until(() -> watch.checks() > checks);
      long jvm = ProcessHandle.current().pid();
      Process pause =
          new ProcessBuilder(
                  "sh",
                  "-c",
                  "kill -STOP %d; sleep %s; kill -CONT %d; sleep 0.1; kill -CONT %d"
                      .formatted(jvm, PAUSED_FOR, jvm, member.pid()))
              .start();
      assertThat(pause.waitFor(10, TimeUnit.SECONDS)).isTrue();
      await().atMost(SEEN_WITHIN.plus(PAUSED_DEADLINE)).until(() -> watch.rechecks() == 1);
      await()
          .during(PERIOD.multipliedBy(4))
          .atMost(PERIOD.multipliedBy(4).plus(SEEN_WITHIN))
          .until(() -> woken.get() == 0);
      assertThat(watch.triggers()).isZero();

      // Frozen for good, the operator running: woken, as not answering.
      member.freeze();
      await().atMost(SEEN_WITHIN.plus(PAUSED_DEADLINE)).until(() -> woken.get() == 1);
      assertThat(watch.triggers(WakeReason.NOT_ANSWERING)).isEqualTo(1);
      member.thaw();
    }
  }

  /**
   * Progress requests see an election (the raft term moves) without a Status call; a Status call is
   * made when the busy full period passed after writes moved the revision, and not before.
   */
  @ParameterizedTest
  @ValueSource(strings = {"3.4", "3.5"})
  void asksForStatusOnlyWhenDueAndSeesAnElectionByProgress(String version) throws Exception {
    Duration busy = Duration.ofSeconds(1);
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().version(version).members(3).start();
        JetcdEtcdService etcd = new JetcdEtcdService();
        MemberWatch watch = new MemberWatch(etcd, PERIOD, MemberWatch.CHECK_DEADLINE, NEVER, busy);
        Client client =
            Client.builder().endpoints(cluster.clientUrls().toArray(String[]::new)).build()) {
      cluster.awaitHealthy(HEALTHY);
      String key = "it/" + cluster.name();
      AtomicLong woken = new AtomicLong();
      expect(watch, etcd, key, cluster, woken);

      // No writes: progress requests only, however long.
      await()
          .during(busy.multipliedBy(2))
          .atMost(busy.multipliedBy(2).plus(PERIOD.multipliedBy(3)))
          .until(() -> woken.get() == 0);
      assertThat(watch.checks()).isGreaterThanOrEqualTo(5);
      assertThat(watch.fullChecks()).isZero();

      // A write moves the revision: a Status call within the busy period; nothing changed.
      client
          .getKVClient()
          .put(ByteSequence.from("k", UTF_8), ByteSequence.from("v", UTF_8))
          .get(10, TimeUnit.SECONDS);
      await().atMost(busy.plus(SEEN_WITHIN)).until(() -> watch.fullChecks() == 1);
      await()
          .during(busy.multipliedBy(2))
          .atMost(busy.multipliedBy(2).plus(PERIOD.multipliedBy(3)))
          .until(() -> woken.get() == 0 && watch.fullChecks() == 1);

      // Leadership handed to a follower: a new term, seen by a progress request.
      ClusterProbe probe = etcd.probeAll(key, cluster.clientUrls());
      String leaderUrl = probe.leaderEndpoint().orElseThrow();
      EtcdStatus target =
          probe.reachable().stream()
              .map(EtcdProbe::status)
              .filter(s -> !s.isLeader())
              .findFirst()
              .orElseThrow();
      etcd.moveLeader(key, leaderUrl, target.clusterId(), target.memberId());
      long movedAt = System.nanoTime();
      await().atMost(SEEN_WITHIN).until(() -> woken.get() == 1);
      System.out.printf(
          "etcd %s: leader moved seen after %d ms%n",
          version, (System.nanoTime() - movedAt) / 1_000_000);
      assertThat(watch.fullChecks()).isEqualTo(1);
    }
  }

  /** What a reconcile does after its probe: expect what it saw. */
  private static void expect(
      MemberWatch watch,
      JetcdEtcdService etcd,
      String key,
      LocalEtcdCluster cluster,
      AtomicLong woken) {
    SortedMap<Integer, String> urls = new TreeMap<>();
    List<String> clientUrls = cluster.clientUrls();
    for (int i = 0; i < clientUrls.size(); i++) {
      urls.put(i, clientUrls.get(i));
    }
    ClusterProbe probe = etcd.probeAll(key, clientUrls);
    Map<Integer, MemberProbe> seen = Probes.fromProbe(urls, probe).probes();
    watch.expect(key, urls, seen, p -> false, woken::incrementAndGet);
  }

  private static LocalEtcdMember leader(JetcdEtcdService etcd, String key, LocalEtcdCluster c) {
    String url = etcd.probeAll(key, c.clientUrls()).leaderEndpoint().orElseThrow();
    return c.members().stream().filter(m -> m.clientUrl().equals(url)).findFirst().orElseThrow();
  }

  private static LocalEtcdMember follower(JetcdEtcdService etcd, String key, LocalEtcdCluster c) {
    String url = etcd.probeAll(key, c.clientUrls()).leaderEndpoint().orElseThrow();
    return c.members().stream().filter(m -> !m.clientUrl().equals(url)).findFirst().orElseThrow();
  }
}
