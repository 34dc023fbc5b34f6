package io.etcdoperator.e2e;

import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.sandbox.Faults;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The fault suite: a seeded random sequence of the faults a durable cluster must survive, against a
 * 3-member cluster run by the real operator in the sandbox, with a {@link RecordingWriter} writing
 * throughout. One run is: a fresh sandbox and cluster, {@code faults} faults one after the other,
 * each followed by waiting until the cluster has settled again, then reading back every write etcd
 * acknowledged.
 *
 * <h2>Faults</h2>
 *
 * <ul>
 *   <li>{@code kill}: SIGKILL to one member's etcd container (it restarts in place);
 *   <li>{@code delete}: one member's pod deleted (it comes back with a new address);
 *   <li>{@code delete-majority}: two pods deleted at once;
 *   <li>{@code freeze}: one pod frozen (SIGSTOP) until the status shows that member unhealthy, then
 *       thawed;
 *   <li>{@code freeze-majority}: two pods frozen until the status says {@code QuorumLost}, then
 *       thawed;
 *   <li>{@code wipe}: one member's claim emptied while its container is held down (a minority loses
 *       its disk);
 *   <li>{@code operator-restart}: the operator stopped, half the time a member killed or deleted
 *       while it is away, then started;
 *   <li>{@code operator-crash}: one member's claim wiped with the operator armed to stop right
 *       after its next membership or delete call (mid-recovery), then started again.
 * </ul>
 *
 * <h2>Settled</h2>
 *
 * After each fault the run waits (at most {@link #SETTLE_TIMEOUT}) until, for {@link #STABLE}
 * without a break, the status says {@code Ready} and every member, asked directly, answers as a
 * voter of one cluster following one leader: then the next fault comes. "Time to Ready" is the time
 * from the end of the fault to the start of that stable window.
 *
 * <h2>Checked at the end of each run</h2>
 *
 * Every acknowledged write is read back (lost: 0, altered: 0), every member reports the same
 * cluster ID as before the first fault (no split brain), and every member holds the same data
 * (equal hashes of the key-value store at one revision).
 */
final class FaultSuite {
  static final String C = "test";
  static final int N = 3;
  static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(120);
  static final Duration STABLE = Duration.ofSeconds(2);

  /** The faults, with how often each is drawn. */
  enum Kind {
    KILL("kill", 3),
    DELETE("delete", 3),
    DELETE_MAJORITY("delete-majority", 1),
    FREEZE("freeze", 2),
    FREEZE_MAJORITY("freeze-majority", 1),
    WIPE("wipe", 2),
    OPERATOR_RESTART("operator-restart", 2),
    OPERATOR_CRASH("operator-crash", 1);

    final String label;
    final int weight;

    Kind(String label, int weight) {
      this.label = label;
      this.weight = weight;
    }

    static Kind draw(Random random) {
      int total = 0;
      for (Kind k : values()) {
        total += k.weight;
      }
      int x = random.nextInt(total);
      for (Kind k : values()) {
        x -= k.weight;
        if (x < 0) {
          return k;
        }
      }
      throw new IllegalStateException();
    }
  }

  /** One fault injected: what, how long until the cluster settled (null: it did not), a note. */
  record Injected(Kind kind, String what, Duration toReady, String note) {
    String line() {
      return what
          + " -> "
          + (toReady == null ? "NOT READY" : seconds(toReady))
          + (note.isEmpty() ? "" : " (" + note + ")");
    }
  }

  /** The outcome of one run. */
  record Run(long seed, List<Injected> faults, WriterReport writer, List<String> problems) {
    boolean ok() {
      return problems.isEmpty();
    }

    int acknowledged() {
      return writer == null ? 0 : writer.acknowledged().size();
    }

    int lost() {
      return writer == null || !writer.verified() ? -1 : writer.lost().size();
    }

    String line() {
      return String.format(
          Locale.ROOT,
          "fault-suite run seed=%d: %s; %s; %s",
          seed,
          faults.stream().map(Injected::line).collect(Collectors.joining(", ")),
          writer == null ? "no writer report" : writer.summary(),
          ok() ? "OK" : "FAILED: " + String.join("; ", problems));
    }
  }

  private final long seed;
  private final Random random;
  private final CallLog calls = new CallLog();
  private Crasher crasher;
  private final List<Injected> injected = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();
  private E2E e2e;
  private Members members;
  private RecordingWriter writer;

  private final boolean tls;

  private FaultSuite(long seed, boolean tls) {
    this.seed = seed;
    this.random = new Random(seed);
    this.tls = tls;
  }

  /** One run in a fresh sandbox under {@code dir}. */
  static Run run(long seed, int faults, Path dir) throws Exception {
    return run(seed, faults, dir, false);
  }

  /**
   * One run in a fresh sandbox under {@code dir}; with {@code tls}, the cluster is {@code
   * examples/tls/}'s (peer TLS, server TLS, client-certificate authentication and etcd's auth, its
   * cert-manager Certificates issued by the test for a cluster named {@value #C}), and the writer
   * and the witness calls use mutual TLS as its root user.
   */
  static Run run(long seed, int faults, Path dir, boolean tls) throws Exception {
    return new FaultSuite(seed, tls).run(faults, dir);
  }

  /** The TLS example, renamed to this suite's cluster: its Secrets, its client's TLS, its YAML. */
  private record TlsCluster(
      Map<String, Map<String, byte[]>> secrets,
      io.etcdoperator.operator.tls.ClientTls root,
      String yaml) {
    static TlsCluster issue(Path dir) throws Exception {
      java.nio.file.Files.createDirectories(dir);
      Path example = dir.resolve("tls-example.yaml");
      java.nio.file.Files.writeString(
          example, java.nio.file.Files.readString(TlsE2EIT.EXAMPLE).replace("etcd-tls", C));
      Map<String, Map<String, byte[]>> secrets =
          io.etcdoperator.testing.CertManagerEmulation.of(example).issueAll();
      return new TlsCluster(
          secrets,
          TlsE2EIT.clientTls(secrets.get(C + "-client"), secrets.get(C + "-server")),
          E2E.document(example, "EtcdCluster"));
    }
  }

  private Run run(int faults, Path dir) throws Exception {
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(4))
            .withMaxGracePeriod(Duration.ofSeconds(5));
    OperatorSettings settings =
        OperatorSettings.defaults().withQuorumLossAlarm(Duration.ofSeconds(30)).withCallHook(calls);
    WriterReport report = null;
    Optional<TlsCluster> secure = tls ? Optional.of(TlsCluster.issue(dir)) : Optional.empty();
    try (E2E session = E2E.start(config, settings);
        Members witness = new Members(C, secure.map(TlsCluster::root))) {
      e2e = session;
      members = witness;
      crasher = new Crasher(e2e.sandbox());
      calls.listen(crasher);
      if (secure.isPresent()) {
        secure
            .get()
            .secrets()
            .forEach(
                (name, data) -> e2e.client().resource(E2E.tlsSecret(E2E.NS, name, data)).create());
        e2e.apply(secure.get().yaml());
      } else {
        e2e.apply("seed-000-fixed.yaml");
      }
      e2e.awaitReady(C, Duration.ofMinutes(2));
      Duration first = settle();
      if (first == null) {
        problems.add("the cluster never settled after it was created");
        return new Run(seed, injected, null, problems);
      }
      Set<String> clusterIds = members.clusterIds(N);
      RecordingWriter.Builder builder =
          RecordingWriter.builder(members.urls(N)).rate(50).maxDuration(Duration.ofMinutes(20));
      writer = (secure.isPresent() ? builder.tls(secure.get().root()) : builder).start();
      try {
        awaitAcks(25);
        for (int i = 0; i < faults && problems.isEmpty(); i++) {
          Injected f = inject(Kind.draw(random));
          injected.add(f);
          if (f.toReady() == null) {
            problems.add(
                "not settled within "
                    + SETTLE_TIMEOUT.toSeconds()
                    + " s after "
                    + f.what()
                    + ": "
                    + e2e.condition(C, "Ready")
                    + " "
                    + describeMembers());
          }
        }
        if (problems.isEmpty()) {
          awaitAcks(writer.acknowledgedCount() + 25);
        }
        report = writer.report();
      } finally {
        writer.close();
      }
      check(report, clusterIds);
    }
    return new Run(seed, injected, report, problems);
  }

  private void check(WriterReport report, Set<String> clusterIds) {
    if (!report.verified()) {
      problems.add("writes not read back: " + report.summary());
    } else {
      if (!report.lost().isEmpty()) {
        problems.add(report.lost().size() + " acknowledged writes lost: " + report.lostKeys());
      }
      if (!report.altered().isEmpty()) {
        problems.add(report.altered().size() + " acknowledged writes altered");
      }
    }
    if (!problems.isEmpty() && injected.stream().anyMatch(f -> f.toReady() == null)) {
      return;
    }
    Set<String> now = members.clusterIds(N);
    if (!now.equals(clusterIds)) {
      problems.add("cluster IDs " + now + ", before the faults " + clusterIds);
    }
    Map<String, Long> hashes = members.hashes(N);
    if (hashes.size() != N || hashes.values().stream().distinct().count() != 1) {
      problems.add("members hold different data: " + hashes);
    }
  }

  private Injected inject(Kind kind) throws Exception {
    String pod = pod(random.nextInt(N));
    switch (kind) {
      case KILL:
        writer.mark("kill " + pod);
        faults().kill(E2E.NS, pod, "etcd");
        return settled(kind, "kill " + pod, "");
      case DELETE:
        {
          writer.mark("delete " + pod);
          String ip = podIp(pod);
          faults().delete(E2E.NS, pod);
          Injected f = settled(kind, "delete " + pod, "");
          return withNote(f, ip.equals(podIp(pod)) ? "same address" : "");
        }
      case DELETE_MAJORITY:
        {
          List<String> two = two();
          writer.mark("delete " + two);
          for (String p : two) {
            faults().delete(E2E.NS, p);
          }
          return settled(kind, "delete " + String.join("+", two), "");
        }
      case FREEZE:
        {
          writer.mark("freeze " + pod);
          faults().freeze(E2E.NS, pod);
          String seen = awaitSeen(() -> memberUnhealthy(pod), "member unhealthy");
          faults().thaw(E2E.NS, pod);
          return settled(kind, "freeze " + pod, seen);
        }
      case FREEZE_MAJORITY:
        {
          List<String> two = two();
          writer.mark("freeze " + two);
          for (String p : two) {
            faults().freeze(E2E.NS, p);
          }
          String seen = awaitSeen(() -> "False/QuorumLost".equals(available()), "QuorumLost");
          for (String p : two) {
            faults().thaw(E2E.NS, p);
          }
          return settled(kind, "freeze " + String.join("+", two), seen);
        }
      case WIPE:
        {
          String before = memberId(pod);
          writer.mark("wipe " + pod);
          faults().wipe(E2E.NS, pod);
          Injected f = settled(kind, "wipe " + pod, "");
          return withNote(f, wipeOutcome(pod, before));
        }
      case OPERATOR_RESTART:
        {
          writer.mark("operator stop");
          faults().stopOperator();
          String also = "";
          int r = random.nextInt(4);
          if (r == 0) {
            faults().kill(E2E.NS, pod, "etcd");
            also = " + kill " + pod;
          } else if (r == 1) {
            faults().delete(E2E.NS, pod);
            also = " + delete " + pod;
          }
          if (!also.isEmpty()) {
            // Let the fault be seen by the pods, not by the operator, before it comes back.
            awaitQuietly(() -> !allAnswer(), Duration.ofSeconds(3));
          }
          faults().startOperator();
          return settled(kind, "operator restart" + also, "");
        }
      case OPERATOR_CRASH:
        {
          String before = memberId(pod);
          crasher.arm(CallLog::destructive, 0);
          writer.mark("wipe " + pod + ", operator crash");
          faults().wipe(E2E.NS, pod);
          awaitQuietly(() -> crasher.fired() != null, Duration.ofSeconds(30));
          String fired = crasher.fired();
          if (fired != null) {
            crasher.awaitStopped(Duration.ofSeconds(30));
          }
          crasher.disarm();
          faults().startOperator();
          Injected f =
              settled(
                  kind,
                  "wipe " + pod + " + operator crash",
                  fired != null ? "stopped after '" + fired + "'" : "no call to stop after");
          return withNote(f, wipeOutcome(pod, before));
        }
      default:
        throw new IllegalArgumentException(kind.toString());
    }
  }

  private String wipeOutcome(String pod, String before) {
    String after = memberId(pod);
    if (after == null) {
      return "member gone";
    }
    return after.equals(before)
        ? "healed under the same member ID"
        : "replaced: " + before + " -> " + after;
  }

  private static Injected withNote(Injected f, String note) {
    if (note.isEmpty()) {
      return f;
    }
    return new Injected(
        f.kind(), f.what(), f.toReady(), f.note().isEmpty() ? note : f.note() + ", " + note);
  }

  private Injected settled(Kind kind, String what, String note) {
    return new Injected(kind, what, settle(), note);
  }

  /** Time until the stable window starts, or null if it did not within the timeout. */
  private Duration settle() {
    long start = System.nanoTime();
    long[] since = {-1};
    try {
      await()
          .atMost(SETTLE_TIMEOUT)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                boolean ok = settledNow();
                if (!ok) {
                  since[0] = -1;
                  return false;
                }
                if (since[0] < 0) {
                  since[0] = System.nanoTime();
                }
                return System.nanoTime() - since[0] >= STABLE.toNanos();
              });
      return Duration.ofNanos(since[0] - start);
    } catch (ConditionTimeoutException e) {
      return null;
    }
  }

  /** Ready, and every member answers as a voter of one cluster, following one leader. */
  private boolean settledNow() {
    if (!e2e.ready(C)) {
      return false;
    }
    Collection<EtcdStatus> all = members.statuses(N).values();
    return all.stream().allMatch(s -> s.reachable() && s.hasLeader() && !s.learner())
        && all.stream().map(EtcdStatus::leaderId).distinct().count() == 1
        && all.stream().map(EtcdStatus::clusterId).distinct().count() == 1
        && members.memberList(N).map(l -> l.voters().size() == N).orElse(false);
  }

  private boolean allAnswer() {
    return members.statuses(N).values().stream().allMatch(EtcdStatus::reachable);
  }

  private String awaitSeen(java.util.concurrent.Callable<Boolean> seen, String what) {
    long start = System.nanoTime();
    try {
      await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50)).until(seen);
      return what + " after " + seconds(Duration.ofNanos(System.nanoTime() - start));
    } catch (ConditionTimeoutException e) {
      problems.add(what + " not reported within 15 s");
      return what + " NOT reported within 15 s";
    }
  }

  private static void awaitQuietly(java.util.concurrent.Callable<Boolean> c, Duration atMost) {
    try {
      await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(c);
    } catch (ConditionTimeoutException e) {
      // it is only a chance to let the fault land
    }
  }

  private boolean memberUnhealthy(String pod) {
    return e2e.member(C, pod).map(m -> !Boolean.TRUE.equals(m.getHealthy())).orElse(false);
  }

  private String available() {
    return e2e.condition(C, "Available");
  }

  private String memberId(String pod) {
    EtcdStatus s = members.statuses(N).get(pod);
    return s == null || !s.reachable() ? null : Long.toHexString(s.memberId());
  }

  private String podIp(String pod) {
    var p = e2e.client().pods().inNamespace(E2E.NS).withName(pod).get();
    return p == null || p.getStatus() == null ? "" : String.valueOf(p.getStatus().getPodIP());
  }

  private String describeMembers() {
    return members.statuses(N).entrySet().stream()
        .map(
            e ->
                e.getKey()
                    + "="
                    + (e.getValue().reachable()
                        ? Long.toHexString(e.getValue().memberId())
                            + (e.getValue().learner() ? " learner" : "")
                            + " leader "
                            + Long.toHexString(e.getValue().leaderId())
                        : "down"))
        .collect(Collectors.joining(", ", "[", "]"));
  }

  private List<String> two() {
    int skip = random.nextInt(N);
    return IntStream.range(0, N).filter(i -> i != skip).mapToObj(FaultSuite::pod).toList();
  }

  private void awaitAcks(int n) {
    await().atMost(Duration.ofSeconds(60)).until(() -> writer.acknowledgedCount() >= n);
  }

  private Faults faults() {
    return e2e.sandbox().faults();
  }

  static String pod(int ordinal) {
    return Names.pod(C, ordinal);
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  /** Totals over runs, printed at the end of a long run. */
  static String totals(List<Run> runs) {
    Map<Kind, List<Duration>> byKind = new EnumMap<>(Kind.class);
    runs.forEach(
        r ->
            r.faults()
                .forEach(
                    f ->
                        byKind
                            .computeIfAbsent(f.kind(), k -> new ArrayList<>())
                            .add(f.toReady() == null ? SETTLE_TIMEOUT : f.toReady())));
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "fault-suite totals: %d runs, %d failed, %d faults, %d acknowledged writes, %d lost, %d"
                + " runs not read back%n",
            runs.size(),
            runs.stream().filter(r -> !r.ok()).count(),
            runs.stream().mapToInt(r -> r.faults().size()).sum(),
            runs.stream().mapToLong(Run::acknowledged).sum(),
            runs.stream().mapToLong(r -> Math.max(0, r.lost())).sum(),
            runs.stream().filter(r -> r.lost() < 0).count()));
    List<Duration> all =
        byKind.values().stream().flatMap(List::stream).sorted(Comparator.naturalOrder()).toList();
    if (!all.isEmpty()) {
      s.append(
          String.format(
              Locale.ROOT,
              "  time to Ready over all %d faults: median %s, p90 %s, max %s%n",
              all.size(),
              seconds(all.get(all.size() / 2)),
              seconds(all.get(Math.min(all.size() - 1, all.size() * 9 / 10))),
              seconds(all.get(all.size() - 1))));
    }
    byKind.forEach(
        (k, times) -> {
          List<Duration> sorted = times.stream().sorted(Comparator.naturalOrder()).toList();
          s.append(
              String.format(
                  Locale.ROOT,
                  "  %-17s %4d, time to Ready: median %s, p90 %s, max %s%n",
                  k.label,
                  sorted.size(),
                  seconds(sorted.get(sorted.size() / 2)),
                  seconds(sorted.get(Math.min(sorted.size() - 1, sorted.size() * 9 / 10))),
                  seconds(sorted.get(sorted.size() - 1))));
        });
    runs.stream()
        .filter(r -> !r.ok())
        .forEach(
            r ->
                s.append("  failed: seed ")
                    .append(r.seed())
                    .append(": ")
                    .append(r.problems())
                    .append('\n'));
    return s.toString();
  }

  /** Appends a line to a results file (for long runs). */
  static void append(Path file, String line) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(
          file,
          line + System.lineSeparator(),
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      System.err.println("cannot append to " + file + ": " + e);
    }
  }
}
