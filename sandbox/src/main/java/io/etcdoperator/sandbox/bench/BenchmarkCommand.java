package io.etcdoperator.sandbox.bench;

import io.etcdoperator.sandbox.OperatorLauncher;
import io.etcdoperator.sandbox.SandboxException;
import io.etcdoperator.sandbox.cli.Logging;
import io.etcdoperator.sandbox.cli.Relauncher;
import io.etcdoperator.sandbox.kubelet.EtcdImages;
import io.etcdoperator.sandbox.net.JvmHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code etcd-operator sandbox benchmark}: time from apply to Ready of a 3-member cluster in the
 * sandbox against three etcd processes bootstrapped by hand on loopback, alternating, median of
 * {@code --runs} each, and the ratios. A program that prints numbers, not a test.
 *
 * <p>Its headline is the operator's own share of a bootstrap: from the apply until the benchmark's
 * watch sees the StatefulSet (and every other object of the cluster), and from the moment etcd had
 * formed and the last pod was Ready (an endpoint of the client Service) until Ready in the status.
 * Two baselines, each run: three processes started at once, and three started at the offsets from
 * the apply at which the sandbox run's containers started (the same order and gaps), so that the
 * second ratio compares what follows the containers' start.
 */
@Command(
    name = "benchmark",
    mixinStandardHelpOptions = true,
    description =
        "Prints the median time from apply to Ready of a 3-member cluster in the sandbox,"
            + " the same for three etcd processes started by hand, and their ratio.")
public final class BenchmarkCommand implements Callable<Integer> {
  @Option(
      names = "--runs",
      defaultValue = "5",
      description = "Runs of each (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--dir",
      defaultValue = ".sandbox-benchmark",
      description = "Scratch directory, emptied first (default: ${DEFAULT-VALUE}).")
  Path dir;

  @Option(
      names = "--reactions",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "After each bootstrap, time the operator's reactions on the cluster: a member killed,"
              + " a member wiped, a roll of 3, a scale-up to 4 (default: ${DEFAULT-VALUE}).")
  boolean reactions;

  @Option(
      names = "--etcd",
      description =
          "etcd binary of the by-hand baseline (default: the sandbox's etcd 3.5, which the"
              + " default image runs).")
  String etcd;

  @Override
  public Integer call() throws Exception {
    Logging.quiet();
    if (System.getProperty(JvmHosts.PROPERTY) == null) {
      Files.createDirectories(dir);
      return relaunch();
    }
    OperatorLauncher operator = OperatorLauncher.onClassPath();
    System.out.println(
        "benchmark: "
            + runs
            + " runs each; sandbox "
            + (operator == null
                ? "without an operator (no OperatorLauncher on the class path): applies what the operator would create and stops when all members report healthy"
                : "with the operator: applies an EtcdCluster and stops at its Ready condition"));
    if (etcd == null) {
      etcd =
          EtcdImages.scan(EtcdImages.defaultDirectory())
              .version("3.5")
              .orElseThrow(() -> new IllegalStateException("no etcd 3.5: run scripts/ensure-etcd"))
              .etcd();
    }
    List<ApplyToReady.SandboxRun> sandbox = new ArrayList<>();
    List<Duration> byHand = new ArrayList<>();
    List<Duration> likePods = new ArrayList<>();
    try {
      for (int i = 0; i < runs; i++) {
        clean(dir.resolve("hand-" + i));
        byHand.add(ApplyToReady.byHand(dir.resolve("hand-" + i), etcd, List.of()));
        clean(dir.resolve("sandbox-" + i));
        ApplyToReady.SandboxRun run =
            ApplyToReady.sandbox(dir.resolve("sandbox-" + i), operator, reactions, i + 1);
        sandbox.add(run);
        Duration paced = null;
        if (run.starts().size() == 3) {
          clean(dir.resolve("paced-" + i));
          paced = ApplyToReady.byHand(dir.resolve("paced-" + i), etcd, run.starts());
          likePods.add(paced);
        }
        System.out.printf(
            "run %d: by hand %d ms, paced like the pods %s, sandbox %d ms (StatefulSet %s,"
                + " every object %s, %s, Ready %s after formed and reachable)%n",
            i + 1,
            byHand.get(i).toMillis(),
            paced == null ? "(no container starts)" : paced.toMillis() + " ms",
            run.total().toMillis(),
            plus(run.statefulSet()),
            plus(run.objects()),
            run.milestones(),
            plus(run.afterReachable()));
        if (!run.reactions().isEmpty()) {
          System.out.printf(
              "run %d reactions (reaction/settled): %s%n",
              i + 1,
              String.join(", ", run.reactions().stream().map(Reactions.Result::toString).toList()));
        }
      }
    } catch (SandboxException e) {
      System.err.println("benchmark: " + e.getMessage());
      return 2;
    }
    Duration s = median(sandbox.stream().map(ApplyToReady.SandboxRun::total).toList());
    Duration h = median(byHand);
    System.out.printf(
        "median sandbox: %d ms (medians: %s)%n",
        s.toMillis(), Milestones.median(sandbox.stream().map(r -> r.milestones()).toList()));
    if (operator != null) {
      System.out.printf(
          "the operator's share (medians of %d runs):%n"
              + "  apply -> StatefulSet created: %s (goal <= 50 ms); every object: %s%n"
              + "  etcd formed and every pod Ready -> Ready: %s (goal <= 100 ms)%n",
          runs,
          ms(median(sandbox, ApplyToReady.SandboxRun::statefulSet)),
          ms(median(sandbox, ApplyToReady.SandboxRun::objects)),
          ms(median(sandbox, ApplyToReady.SandboxRun::afterReachable)));
      if (sandbox.stream().anyMatch(r -> !r.reactions().isEmpty())) {
        System.out.println(Reactions.summary(sandbox.stream().map(r -> r.reactions()).toList()));
      }
    }
    if (!likePods.isEmpty()) {
      Duration p = median(likePods);
      System.out.printf(
          "median by hand, each member started when the sandbox's container did: %d ms;"
              + " ratio sandbox/that: %.2f (goal <= 1.15)%n",
          p.toMillis(), (double) s.toNanos() / p.toNanos());
    }
    System.out.printf(
        "median by hand, all at once: %d ms; ratio sandbox/that: %.2f%n",
        h.toMillis(), (double) s.toNanos() / h.toNanos());
    return 0;
  }

  private static Optional<Duration> median(
      List<ApplyToReady.SandboxRun> runs,
      Function<ApplyToReady.SandboxRun, Optional<Duration>> figure) {
    List<Duration> known = runs.stream().map(figure).flatMap(Optional::stream).toList();
    return known.isEmpty() ? Optional.empty() : Optional.of(median(known));
  }

  private static String plus(Optional<Duration> d) {
    return d.map(x -> "+" + x.toMillis() + " ms").orElse("(unknown)");
  }

  private static String ms(Optional<Duration> d) {
    return d.map(x -> x.toMillis() + " ms").orElse("(unknown)");
  }

  static Duration median(List<Duration> xs) {
    List<Duration> sorted = new ArrayList<>(xs);
    sorted.sort(Comparator.naturalOrder());
    int n = sorted.size();
    return n % 2 == 1
        ? sorted.get(n / 2)
        : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2);
  }

  private static void clean(Path p) throws Exception {
    if (Files.exists(p)) {
      try (Stream<Path> s = Files.walk(p)) {
        s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  /** Runs itself again in a JVM that resolves sandbox names (see {@link Relauncher}). */
  private int relaunch() throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--runs",
                String.valueOf(runs),
                "--dir",
                dir.toString(),
                reactions ? "--reactions" : "--no-reactions"));
    if (etcd != null) {
      args.add("--etcd");
      args.add(etcd);
    }
    return Relauncher.relaunchWithHostsFile(dir, BenchmarkCommand.class, args);
  }

  public static void main(String[] args) {
    Relauncher.watchParent();
    System.exit(new CommandLine(new BenchmarkCommand()).execute(args));
  }
}
