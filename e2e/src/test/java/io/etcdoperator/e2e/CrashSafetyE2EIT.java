package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety end to end: the operator is killed right after a call of a scale-up (3 -> 4), a
 * scale-down (4 -> 3, the member to go leading) and a roll of 3 members, started again, and must
 * converge: the exact member list, no learner left, no duplicate member, no member without a pod
 * for longer than one step ({@link MembershipWatch}), members that stay keep their IDs, and the
 * writer running throughout loses nothing.
 *
 * <p>Which calls: a run of each operation without crashes first records its calls. By default (CI)
 * the operator is killed once after each distinct call (label) of each operation: after a restart,
 * the next label not yet crashed is armed, and an operation that finishes with labels left is run
 * again (at most {@value #MAX_RUNS} times). With {@code -Dcrash.everyCall=true} it is killed after
 * every call of the recorded runs instead, the N-th call for every N, one run of the operation per
 * call (about 15 minutes):
 *
 * <pre>
 * mvn -B -pl e2e -am verify -Dit.test=CrashSafetyE2EIT -Dcrash.everyCall=true -Dtest=none \
 *   -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
 * </pre>
 */
class CrashSafetyE2EIT {
  static final int MAX_RUNS = 4;
  static final Duration STEP = Duration.ofMinutes(2);
  static final boolean EVERY_CALL = Boolean.getBoolean("crash.everyCall");

  static final String CLUSTER = Cluster.THREE_MEMBERS;

  @TempDir Path dir;

  /** A call to crash after: the {@code skip + 1}-th call with this label. */
  record Target(String label, int skip) {
    @Override
    public String toString() {
      return skip == 0 ? label : label + " #" + (skip + 1);
    }
  }

  /** One operation: what it changes, and how many members the cluster has after it. */
  record Operation(String name, Supplier<Long> start, int members) {}

  private CallLog calls;
  private Crasher crasher;
  private Cluster test;
  private E2E e2e;
  private final List<String> crashed = new ArrayList<>();
  private int snapshotCount = 5000;

  @Test
  void theOperatorKilledAfterAnyCallOfAScaleUpAScaleDownOrARollConverges() throws Exception {
    calls = new CallLog();
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(10));
    try (E2E session = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster cluster = new Cluster(session, "test")) {
      e2e = session;
      test = cluster;
      crasher = new Crasher(e2e.sandbox());
      calls.listen(crasher);
      e2e.apply(CLUSTER);
      test.awaitConverged(1, 3, STEP);
      Map<String, String> ids = test.memberIds();

      Operation up = new Operation("scale 3 -> 4", () -> test.scale(4), 4);
      Operation down =
          new Operation(
              "scale 4 -> 3",
              () -> {
                test.moveLeaderTo("test-3");
                return test.scale(3);
              },
              3);
      Operation roll =
          new Operation(
              "roll 3",
              () ->
                  test.patchSpec(
                      "{\"options\":{\"snapshot-count\":\"" + (snapshotCount++) + "\"}}"),
              3);

      try (RecordingWriter writer = test.writer(Duration.ofMinutes(EVERY_CALL ? 30 : 8));
          MembershipWatch watch = new MembershipWatch(test, calls)) {
        // Dry runs: the calls each operation makes. The first scale-down leaves a claim behind
        // (whenScaled: Retain), which every later scale-up deletes first: record the second.
        run(up, List.of(), ids);
        run(down, List.of(), ids);
        List<String> upCalls = run(up, List.of(), ids);
        List<String> downCalls = run(down, List.of(), ids);
        List<String> rollCalls = run(roll, List.of(), ids);
        CrashPlan upPlan = new CrashPlan(plan(upCalls));
        CrashPlan downPlan = new CrashPlan(plan(downCalls));
        CrashPlan rollPlan = new CrashPlan(plan(rollCalls));
        while (!(upPlan.done() && downPlan.done())) {
          run(up, upPlan.forNextRun(), ids);
          run(down, downPlan.forNextRun(), ids);
        }
        while (!rollPlan.done()) {
          run(roll, rollPlan.forNextRun(), ids);
        }

        System.out.println("crashed after " + crashed.size() + " calls:");
        crashed.forEach(c -> System.out.println("  " + c));
        System.out.println("longest without a pod: " + watch.longestWithoutPod());
        assertThat(upPlan.missed).as("scale-up calls never crashed after").isEmpty();
        assertThat(downPlan.missed).as("scale-down calls never crashed after").isEmpty();
        assertThat(rollPlan.missed).as("roll calls never crashed after").isEmpty();
        assertThat(watch.violations()).isEmpty();

        WriterReport report = writer.report();
        System.out.println(report.summary());
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
        assertThat(report.altered()).isEmpty();
      }
    }
  }

  /**
   * An upgrade 3.4.23 -> 3.5.30 of 3 members, the operator killed after each of its steps in turn
   * (the StatefulSet's new template, each follower's pod deletion, the move of leadership, the
   * leader's pod deletion), started again each time: the upgrade converges, every member runs 3.5
   * with its ID of before, and the writer loses nothing.
   */
  @Test
  void theOperatorKilledAfterEachStepOfAnUpgradeConverges() throws Exception {
    calls = new CallLog();
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(10));
    try (E2E session = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster up = new Cluster(session, "up")) {
      e2e = session;
      crasher = new Crasher(e2e.sandbox());
      calls.listen(crasher);
      e2e.apply(UpgradeE2EIT.manifest("up", 3, UpgradeE2EIT.V34));
      up.awaitConverged(1, 3, STEP);
      Map<String, String> ids = up.memberIds();
      List<java.util.function.Predicate<String>> steps =
          new ArrayList<>(
              List.of(
                  "k8s update StatefulSet up"::equals,
                  l -> l.startsWith("k8s delete Pod up-"),
                  l -> l.startsWith("k8s delete Pod up-"),
                  l -> l.startsWith("etcd moveLeader up-"),
                  l -> l.startsWith("k8s delete Pod up-")));
      try (RecordingWriter writer = up.writer(Duration.ofMinutes(6))) {
        int from = calls.size();
        List<String> fired =
            crashThrough(
                steps,
                () -> up.patchSpec(UpgradeE2EIT.image(UpgradeE2EIT.V35)),
                generation -> up.converged(generation, 3),
                false);
        System.out.println("upgrade: crashed after " + fired);
        System.out.println("  calls: " + RollE2EIT.labels(calls, from));
        assertThat(fired).hasSize(5);
        UpgradeE2EIT.assertVersions(up, "3.5.30", "3.5.0");
        assertThat(up.memberIds()).isEqualTo(ids);
        WriterReport report = writer.report();
        System.out.println(report.summary());
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
        assertThat(report.altered()).isEmpty();
      }
    }
  }

  /**
   * Peer TLS turned on for a running cluster ({@code TlsMoves}), the operator killed after each
   * kind of step in turn: the StatefulSet's first new template (both schemes), the first pod of
   * that roll, the first peer URL updated to https :2382, the second template (https on both
   * ports), the first URL back to :2380, and the last template. Started again each time, the move
   * converges: every URL https :2380, every pod on the spec's template, the member IDs of before,
   * and the writer (over http, which peer TLS leaves alone) loses nothing.
   */
  @Test
  void theOperatorKilledAfterEachStepOfAMoveToTlsConverges() throws Exception {
    moveConvergesThroughCrashes(false, PEER_TLS, "https");
  }

  /**
   * Peer TLS turned off again ({@code TlsMoves}, the move in reverse): the same six kinds of step
   * (https :2380 beside http :2382 with the peer Secrets the members ran, the first pod, the first
   * URL to http :2382, http on both ports, the first URL back, the spec's template), the operator
   * killed after each; it converges on every URL http :2380 with the same member IDs and nothing
   * lost.
   */
  @Test
  void theOperatorKilledAfterEachStepOfAMoveOffTlsConverges() throws Exception {
    moveConvergesThroughCrashes(true, "{\"security\":null}", "http");
  }

  /**
   * Server TLS turned off for the TLS example's cluster with its peer TLS removed (server and
   * client TLS, etcd's authentication on), {@code spec.security} then removed: the operator killed
   * after the StatefulSet's new template (pods are rolled by the operator, so nothing restarts
   * yet), after turning authentication off, after the first pod of the roll. Started again each
   * time, it reaches the members still on https with the Secrets the cluster-state ConfigMap
   * recorded, and converges: every pod serving http, the member IDs of before, and every write
   * acknowledged over mutual TLS before the change read over http from each member's store.
   */
  @Test
  void theOperatorKilledAfterEachStepOfServerTlsOffConverges() throws Exception {
    calls = new CallLog();
    io.etcdoperator.testing.CertManagerEmulation certs =
        io.etcdoperator.testing.CertManagerEmulation.of(TlsE2EIT.EXAMPLE);
    try (E2E session =
        E2E.start(TlsE2EIT.sandbox(dir), OperatorSettings.defaults().withCallHook(calls))) {
      e2e = session;
      crasher = new Crasher(e2e.sandbox());
      calls.listen(crasher);
      var secrets = certs.issueAll();
      secrets.forEach((name, data) -> e2e.client().resource(TlsE2EIT.secret(name, data)).create());
      var serialization = e2e.client().getKubernetesSerialization();
      var start =
          serialization.unmarshal(
              E2E.document(TlsE2EIT.EXAMPLE, "EtcdCluster"),
              io.etcdoperator.api.v1alpha1.EtcdCluster.class);
      start.getSpec().getSecurity().getTls().setPeerSecret(null);
      start.getSpec().getSecurity().getTls().setPeerTrustedCASecret(null);
      e2e.apply(serialization.asYaml(start));
      var root = TlsE2EIT.clientTls(secrets.get("etcd-tls-client"), secrets.get("etcd-tls-server"));
      WriterReport overTls;
      Map<String, String> ids;
      try (Cluster secure = new Cluster(e2e, TlsE2EIT.C, root)) {
        secure.awaitConverged(1, 3, STEP);
        ids = secure.memberIds();
        try (RecordingWriter writer = secure.writer(Duration.ofSeconds(20))) {
          await().atMost(Duration.ofSeconds(20)).until(() -> writer.acknowledgedCount() >= 200);
          overTls = writer.report();
        }
      }
      try (Cluster c = new Cluster(e2e, TlsE2EIT.C)) {
        String sts = "k8s update StatefulSet " + TlsE2EIT.C;
        String pod = "k8s delete Pod " + TlsE2EIT.C + "-";
        List<java.util.function.Predicate<String>> steps =
            new ArrayList<>(
                List.of(sts::equals, "etcd disableAuth"::equals, l -> l.startsWith(pod)));
        int from = calls.size();
        List<String> fired =
            crashThrough(
                steps,
                () -> c.patchSpec("{\"security\":null}"),
                generation ->
                    TlsE2EIT.everyPodRuns(c, "--listen-client-urls=http://[::]:2379")
                        && c.converged(generation, 3),
                true);
        System.out.println("server TLS off: crashed after " + fired);
        System.out.println("  calls: " + RollE2EIT.labels(calls, from));
        assertThat(fired).hasSize(3);
        assertThat(c.memberIds()).isEqualTo(ids);
        List<String> written = overTls.acknowledged().stream().map(w -> w.key()).toList();
        assertThat(written).isNotEmpty();
        try (Members members = new Members(TlsE2EIT.C)) {
          for (int i = 0; i < 3; i++) {
            assertThat(members.keys(i, overTls.prefix(), true)).containsAll(written);
          }
        }
      }
    }
  }

  static final String PEER_TLS =
      "{\"security\":{\"tls\":{\"peerTrustedCASecret\":\"etcd-tls-peer-ca\","
          + "\"peerSecret\":\"etcd-tls-peer\"}}}";

  /**
   * The TLS example's cluster, with peer TLS when {@code peerTls} and no other TLS, patched with
   * {@code patch}, the operator killed after each of the six kinds of step of the move; then every
   * URL must be {@code scheme} :2380 and every pod listen there only.
   */
  private void moveConvergesThroughCrashes(boolean peerTls, String patch, String scheme)
      throws Exception {
    calls = new CallLog();
    SandboxConfig config = TlsE2EIT.sandbox(dir);
    io.etcdoperator.testing.CertManagerEmulation certs =
        io.etcdoperator.testing.CertManagerEmulation.of(TlsE2EIT.EXAMPLE);
    try (E2E session = E2E.start(config, OperatorSettings.defaults().withCallHook(calls))) {
      e2e = session;
      crasher = new Crasher(e2e.sandbox());
      calls.listen(crasher);
      certs
          .issueAll()
          .forEach((name, data) -> e2e.client().resource(TlsE2EIT.secret(name, data)).create());
      var serialization = e2e.client().getKubernetesSerialization();
      var start =
          serialization.unmarshal(
              E2E.document(TlsE2EIT.EXAMPLE, "EtcdCluster"),
              io.etcdoperator.api.v1alpha1.EtcdCluster.class);
      start
          .getSpec()
          .setSecurity(
              peerTls
                  ? serialization
                      .unmarshal(PEER_TLS, io.etcdoperator.api.v1alpha1.EtcdClusterSpec.class)
                      .getSecurity()
                  : null);
      e2e.apply(serialization.asYaml(start));
      try (Cluster c = new Cluster(e2e, TlsE2EIT.C)) {
        c.awaitConverged(1, 3, STEP);
        Map<String, String> ids = c.memberIds();
        String sts = "k8s update StatefulSet " + TlsE2EIT.C;
        String pod = "k8s delete Pod " + TlsE2EIT.C + "-";
        String update = "etcd updatePeerUrl " + TlsE2EIT.C + "-";
        List<java.util.function.Predicate<String>> steps =
            new ArrayList<>(
                List.of(
                    sts::equals,
                    l -> l.startsWith(pod),
                    l -> l.startsWith(update),
                    sts::equals,
                    l -> l.startsWith(update),
                    sts::equals));
        List<String> wanted =
            List.of(0, 1, 2).stream()
                .map(
                    i ->
                        io.etcdoperator.operator.model.Names.peerUrl(E2E.NS, TlsE2EIT.C, i, scheme))
                .toList();
        try (RecordingWriter writer = c.writer(Duration.ofMinutes(8))) {
          int from = calls.size();
          List<String> fired =
              crashThrough(
                  steps,
                  () -> c.patchSpec(patch),
                  generation ->
                      TlsE2EIT.peerUrls(c).equals(wanted)
                          && TlsE2EIT.everyPodRuns(
                              c, "--listen-peer-urls=" + scheme + "://[::]:2380")
                          && c.converged(generation, 3),
                  true);
          System.out.println("move to " + scheme + " peers: crashed after " + fired);
          System.out.println("  calls: " + RollE2EIT.labels(calls, from));
          assertThat(fired).hasSize(6);
          assertThat(c.memberIds()).isEqualTo(ids);
          WriterReport report = writer.report();
          System.out.println(report.summary());
          assertThat(report.verified()).isTrue();
          assertThat(report.lost()).isEmpty();
          assertThat(report.altered()).isEmpty();
        }
      }
    }
  }

  /**
   * Starts a change ({@code start}, returning the generation it made) with the operator killed
   * after the first call {@code steps} accepts, started again, killed after the next step's call,
   * and so on, until {@code converged} holds for the generation with no step left to fire (each
   * wait at most {@link #STEP}; {@code ignoreExceptions} for checks that call members which may be
   * between schemes). Returns the calls it crashed after.
   */
  private List<String> crashThrough(
      List<java.util.function.Predicate<String>> steps,
      Supplier<Long> start,
      java.util.function.LongPredicate converged,
      boolean ignoreExceptions)
      throws Exception {
    crasher.arm(steps.remove(0), 0);
    long generation = start.get();
    List<String> fired = new ArrayList<>();
    while (true) {
      var wait = await().atMost(STEP).pollInterval(Duration.ofMillis(50));
      if (ignoreExceptions) {
        wait = wait.ignoreExceptions();
      }
      wait.until(() -> crasher.fired() != null || converged.test(generation));
      String call = crasher.fired();
      if (call == null) {
        break;
      }
      crasher.awaitStopped(Duration.ofSeconds(30));
      fired.add(call);
      if (steps.isEmpty()) {
        crasher.disarm();
      } else {
        crasher.arm(steps.remove(0), 0);
      }
      e2e.sandbox().faults().startOperator();
    }
    crasher.disarm();
    return fired;
  }

  /**
   * The crash targets, as runs of one operation: by default one run holding every distinct label
   * (crashed one after the other, in the order of the dry run); with {@code crash.everyCall} one
   * run per call of the dry run.
   */
  static Deque<List<Target>> plan(List<String> dryRun) {
    Deque<List<Target>> runs = new ArrayDeque<>();
    if (EVERY_CALL) {
      for (int n = 0; n < dryRun.size(); n++) {
        String label = dryRun.get(n);
        int skip = (int) dryRun.subList(0, n).stream().filter(label::equals).count();
        runs.add(List.of(new Target(label, skip)));
      }
    } else {
      runs.add(new LinkedHashSet<>(dryRun).stream().map(l -> new Target(l, 0)).toList());
    }
    return runs;
  }

  /**
   * The targets of one operation still to crash after: the current run's (those a run did not reach
   * are tried again in the next run, at most {@value #MAX_RUNS} runs, then counted as missed), then
   * the next planned run's.
   */
  static final class CrashPlan {
    private final Deque<List<Target>> runs;
    private List<Target> current = new ArrayList<>();
    private int attempts;
    final List<Target> missed = new ArrayList<>();

    CrashPlan(Deque<List<Target>> runs) {
      this.runs = runs;
    }

    /** The targets for the next run of the operation (empty: run it without a crash). */
    List<Target> forNextRun() {
      if (!current.isEmpty() && attempts < MAX_RUNS) {
        attempts++;
        return current;
      }
      missed.addAll(current);
      current = runs.isEmpty() ? new ArrayList<>() : new ArrayList<>(runs.poll());
      attempts = 1;
      return current;
    }

    boolean done() {
      return current.isEmpty() && runs.isEmpty();
    }
  }

  /**
   * Runs the operation once, crashing the operator after each target in turn (the next one armed
   * after each restart), until it converges; checks the result; returns the calls it made. Removes
   * the targets it crashed after from {@code targets}.
   */
  private List<String> run(Operation op, List<Target> targets, Map<String, String> ids)
      throws Exception {
    int from = calls.size();
    long started = System.nanoTime();
    int crashes = 0;
    armFirst(targets);
    long generation = op.start().get();
    while (true) {
      await()
          .atMost(STEP)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> crasher.fired() != null || test.converged(generation, op.members()));
      String fired = crasher.fired();
      if (fired == null) {
        break;
      }
      crasher.awaitStopped(Duration.ofSeconds(30));
      Target hit = targets.get(0);
      targets.remove(0);
      crashed.add(op.name() + ": after " + hit);
      crashes++;
      armFirst(targets);
      e2e.sandbox().faults().startOperator();
    }
    crasher.disarm();
    List<String> made = calls.since(from).stream().map(CallLog.Call::label).toList();
    System.out.printf(
        "%s: %d crashes, converged in %d ms; %d calls%n",
        op.name(), crashes, (System.nanoTime() - started) / 1_000_000, made.size());
    Map<String, String> now = test.memberIds();
    for (int i = 0; i < 3; i++) {
      assertThat(now.get("test-" + i)).as("ID of test-" + i).isEqualTo(ids.get("test-" + i));
    }
    assertThat(now).hasSize(op.members());
    return made;
  }

  private void armFirst(List<Target> targets) {
    if (targets.isEmpty()) {
      crasher.disarm();
    } else {
      Target t = targets.get(0);
      crasher.arm(t.label()::equals, t.skip());
    }
  }
}
