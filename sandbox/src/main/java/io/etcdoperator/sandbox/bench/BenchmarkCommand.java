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
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code etcd-operator sandbox benchmark}: time from apply to Ready of a 3-member cluster in the
 * sandbox against three etcd processes bootstrapped by hand on loopback, alternating, median of
 * {@code --runs} each, and the ratio. A program that prints numbers, not a test.
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
    List<Duration> sandbox = new ArrayList<>();
    List<Milestones> milestones = new ArrayList<>();
    List<Duration> byHand = new ArrayList<>();
    try {
      for (int i = 0; i < runs; i++) {
        clean(dir.resolve("hand-" + i));
        byHand.add(ApplyToReady.byHand(dir.resolve("hand-" + i), etcd));
        clean(dir.resolve("sandbox-" + i));
        ApplyToReady.SandboxRun run = ApplyToReady.sandbox(dir.resolve("sandbox-" + i), operator);
        sandbox.add(run.total());
        milestones.add(run.milestones());
        System.out.printf(
            "run %d: by hand %d ms, sandbox %d ms (%s)%n",
            i + 1, byHand.get(i).toMillis(), run.total().toMillis(), run.milestones());
      }
    } catch (SandboxException e) {
      System.err.println("benchmark: " + e.getMessage());
      return 2;
    }
    Duration s = median(sandbox);
    Duration h = median(byHand);
    System.out.printf(
        "median by hand: %d ms%nmedian sandbox: %d ms (medians: %s)%nratio sandbox/by hand: %.2f%n",
        h.toMillis(),
        s.toMillis(),
        Milestones.median(milestones),
        (double) s.toNanos() / h.toNanos());
    return 0;
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
        new ArrayList<>(List.of("--runs", String.valueOf(runs), "--dir", dir.toString()));
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
