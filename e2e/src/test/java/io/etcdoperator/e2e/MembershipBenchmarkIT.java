package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The numbers of the closing notes, measured in the sandbox with the real operator and a writer
 * running: time from a spec change to the cluster converged (Ready, pods, etcd's member list) per
 * member added and per member removed, one member per spec change, and the longest write gap per
 * restarted member in a roll of 3 members (followers, and the leader after leadership moved). A
 * program that prints numbers, not a test: it asserts only that nothing was lost, and runs only
 * when asked (it is skipped in {@code mvn verify}):
 *
 * <pre>
 * mvn -B -pl e2e -am verify -Dit.test=MembershipBenchmarkIT -Dbenchmark=true \
 *   -Dbenchmark.runs=5 -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dfailsafe.failIfNoSpecifiedTests=false
 * </pre>
 *
 * <p>Each run: 3 -> 4 -> 5 -> 4 -> 3, each step to converged before the next (so the second add
 * meets etcd's rule that a member is added only once its leader has been connected to every voter
 * for 5 s), then a roll of the 3 members. The load average is printed before and after: on a shared
 * machine the numbers are only as good as the quiet they were taken in.
 */
@EnabledIfSystemProperty(named = "benchmark", matches = "true")
class MembershipBenchmarkIT {
  static final int RUNS = Integer.getInteger("benchmark.runs", 3);
  static final Duration STEP = Duration.ofMinutes(3);

  @TempDir Path dir;

  @Test
  void timePerMemberAndWriteGapPerRestart() throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(10));
    Map<String, List<Long>> samples = new LinkedHashMap<>();
    String loadBefore = load();
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster test = new Cluster(e2e, "test")) {
      e2e.apply(RollE2EIT.CLUSTER);
      test.awaitConverged(1, 3, STEP);
      try (RecordingWriter writer = test.writer(Duration.ofMinutes(5L * RUNS + 5))) {
        RollE2EIT.RollMarks marks = new RollE2EIT.RollMarks(writer);
        calls.listen(marks);
        List<RollE2EIT.Roll> rolls = new ArrayList<>();
        for (int run = 0; run < RUNS; run++) {
          step(test, writer, samples, "add 3 -> 4 (cluster settled)", 4);
          step(test, writer, samples, "add 4 -> 5 (right after the last add)", 5);
          step(test, writer, samples, "remove 5 -> 4", 4);
          step(test, writer, samples, "remove 4 -> 3", 3);
          rolls.add(RollE2EIT.roll(test, calls, marks, writer, 3, String.valueOf(5000 + run)));
        }
        WriterReport report = writer.report();
        for (RollE2EIT.Roll r : rolls) {
          for (RollE2EIT.Restart x : r.restarts(report)) {
            samples
                .computeIfAbsent(
                    x.leader()
                        ? "roll: write gap, leader (after leadership moved)"
                        : "roll: write gap, follower",
                    k -> new ArrayList<>())
                .add(x.longestGap().toMillis());
          }
        }
        // Where the leader's gap falls: the roll's marks and the failed puts inside the gap.
        for (RollE2EIT.Roll r : rolls) {
          Instant from = r.marks().get(0).at();
          report
              .longestGapBetween(from, r.end())
              .ifPresent(
                  g -> {
                    System.out.printf(
                        "roll of %s: longest gap +%d..+%d ms after its first mark%n",
                        r.leader(),
                        Duration.between(from, g.from()).toMillis(),
                        Duration.between(from, g.to()).toMillis());
                    r.marks()
                        .forEach(
                            m ->
                                System.out.printf(
                                    "  +%6d ms %s%n",
                                    Duration.between(from, m.at()).toMillis(), m.label()));
                    report.unconfirmed().stream()
                        .filter(f -> !f.end().isBefore(g.from()) && !f.at().isAfter(g.to()))
                        .forEach(
                            f ->
                                System.out.printf(
                                    "  +%6d ms failed after %d ms: %s%n",
                                    Duration.between(from, f.at()).toMillis(),
                                    f.took().toMillis(),
                                    f.error()));
                  });
        }
        System.out.println();
        System.out.printf("membership benchmark, %d runs (load before: %s)%n", RUNS, loadBefore);
        samples.forEach((what, ms) -> System.out.println("  " + line(what, ms)));
        System.out.println("  load after: " + load());
        System.out.println("  " + report.summary());
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
      }
    }
  }

  private static void step(
      Cluster test, RecordingWriter writer, Map<String, List<Long>> samples, String what, int n) {
    writer.mark(what);
    Duration took = test.awaitConverged(test.scale(n), n, STEP);
    samples.computeIfAbsent(what, k -> new ArrayList<>()).add(took.toMillis());
  }

  static String line(String what, List<Long> ms) {
    List<Long> sorted = ms.stream().sorted().toList();
    long median = sorted.get(sorted.size() / 2);
    return String.format(
        Locale.ROOT,
        "%-50s median %5d ms, min %5d, max %5d (n=%d)",
        what,
        median,
        sorted.get(0),
        sorted.get(sorted.size() - 1),
        sorted.size());
  }

  static String load() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
