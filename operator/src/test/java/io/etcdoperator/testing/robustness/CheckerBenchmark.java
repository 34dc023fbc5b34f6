package io.etcdoperator.testing.robustness;

import io.etcdoperator.testing.LocalEtcdCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * How long the checker takes for a 60 s history of 8 clients (goal: at least 500 operations a
 * second of history, checked in under 10 s). Records the history itself against a real 3-member
 * etcd cluster (two members killed and restarted during it, so that it holds indeterminate writes
 * and broken watches), or reads one ({@code --history FILE}). The baseline, measured in the same
 * run on the same history, is the least any checker must do: apply every answered write in revision
 * order to the model. Prints medians of 3 runs of each, and their ratio.
 *
 * <pre>
 * mvn -B -q -pl operator -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test -Dspotless.check.skip=true
 * java -cp operator/target/test-classes:operator/target/classes:$(cat operator/target/test-classpath.txt) \
 *     io.etcdoperator.testing.robustness.CheckerBenchmark [--seconds 60] [--rate 70] [--history FILE]
 * </pre>
 */
public final class CheckerBenchmark {
  private CheckerBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = 60;
    double rate = 70;
    Path file = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--rate" -> rate = Double.parseDouble(args[++i]);
        case "--history" -> file = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    History history = file != null ? HistoryFile.read(file) : record(seconds, rate);
    long span =
        history.ops().stream().mapToLong(Op::end).max().orElse(1)
            - history.ops().stream().mapToLong(Op::start).min().orElse(0);
    double perSecond = history.ops().size() / (span / 1e9);
    System.out.printf(
        Locale.ROOT,
        "history: %d operations over %.1f s (%.0f a second), %d indeterminate, %d watch records%n",
        history.ops().size(),
        span / 1e9,
        perSecond,
        history.ops().stream().filter(Op::indeterminate).count(),
        history.watches().size());
    List<Long> baseline = new ArrayList<>();
    List<Long> checker = new ArrayList<>();
    Checker.Report report = null;
    for (int i = 0; i < 3; i++) {
      long t0 = System.nanoTime();
      long applied = replay(history);
      baseline.add(System.nanoTime() - t0);
      long t1 = System.nanoTime();
      report = new Checker().check(history);
      checker.add(System.nanoTime() - t1);
      if (applied == 0) {
        System.out.println("(no writes)");
      }
    }
    double b = median(baseline) / 1e9;
    double c = median(checker) / 1e9;
    System.out.print(report.describe(3));
    System.out.printf(
        Locale.ROOT,
        "checker: %.2f s for %d operations (%.0f a second of history; goal: 500 a second, checked in"
            + " under 10 s); baseline (answered writes applied in revision order): %.3f s; ratio"
            + " %.1f%n",
        c,
        history.ops().size(),
        perSecond,
        b,
        c / b);
  }

  private static History record(int seconds, double rate) throws Exception {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start()) {
      cluster.awaitHealthy(Duration.ofSeconds(20));
      Workload workload =
          Workload.builder(cluster.clientUrls())
              .seed(500)
              .rate(rate)
              .maxDuration(Duration.ofSeconds(seconds + 30))
              .start();
      long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
      int round = 0;
      while (System.nanoTime() < end - Duration.ofSeconds(10).toNanos() && round < 2) {
        Thread.sleep(Duration.ofSeconds(seconds / 4).toMillis());
        var member = cluster.member(round++);
        try (var span = workload.span("kill and restart " + member.name())) {
          member.kill();
          Thread.sleep(2000);
          member.restart();
          cluster.awaitHealthy(Duration.ofSeconds(20));
        }
      }
      long left = end - System.nanoTime();
      if (left > 0) {
        Thread.sleep(left / 1_000_000);
      }
      History history = workload.stop();
      HistoryFile.write(history, Path.of("target", "robustness", "benchmark.json.gz"));
      return history;
    }
  }

  /** Applies every answered write, in revision order: the baseline. */
  private static long replay(History history) {
    KvModel model = new KvModel(history.baseRevision());
    List<Op> writes =
        history.ops().stream()
            .filter(op -> !op.failed() && !op.serializable() && op.request().canWrite())
            .sorted(Comparator.comparingLong(Op::revision))
            .toList();
    long applied = 0;
    for (Op op : writes) {
      KvModel.Outcome outcome = model.evaluate(op.request());
      if (outcome.writes()) {
        model.commit(outcome);
        applied++;
      }
    }
    return applied;
  }

  private static double median(List<Long> xs) {
    List<Long> s = xs.stream().sorted().toList();
    return s.get(s.size() / 2);
  }
}
