package io.etcdoperator.sandbox.bench;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.sandbox.SandboxException;
import io.etcdoperator.sandbox.cli.Logging;
import io.etcdoperator.sandbox.cli.Relauncher;
import io.etcdoperator.sandbox.net.JvmHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code etcd-operator sandbox scale}: what one operator costs for many clusters, and how fast it
 * still sees failures. A program that prints numbers, not a test.
 *
 * <p>For each count of clusters, a fresh sandbox and the operator as users run it: its own JVM,
 * from the product jar, with the image's JVM settings ({@link OperatorProcess}). Then, in order:
 *
 * <ol>
 *   <li>the operator idle with no cluster (its baseline: CPU and the heap's live set);
 *   <li>N EtcdClusters applied at once, and the time until every one is Ready;
 *   <li>an idle window: CPU as a share of one core, reconciles per second, API requests per
 *       reconcile by kind (the sandbox's API server counts every request of the operator's
 *       ServiceAccount), resident memory, threads, and the live heap, also per cluster over the
 *       baseline;
 *   <li>injected failures, one cluster at a time: every container of a member's pod killed and kept
 *       down for 10 s; the time until the cluster's status (as a watch delivers it) shows the
 *       member unhealthy, and until {@code Available} is False (each cluster here has one member,
 *       so a killed member is a lost quorum), then Ready again before the next;
 *   <li>a cold start: the operator killed (SIGKILL) and started again; the time from the new
 *       process's start to its first reconcile, and until every cluster has been observed with
 *       quorum and every member healthy (read from its {@code /metrics}).
 * </ol>
 *
 * <p>Members are real etcd processes, or (from {@code --fake-from} clusters on) members the
 * sandbox's load generator answers ({@link io.etcdoperator.sandbox.fake.FakeEtcd}): this machine
 * cannot run thousands of etcd processes. The load generator is for this benchmark only.
 */
@Command(
    name = "scale",
    mixinStandardHelpOptions = true,
    description =
        "Prints the operator's idle cost (CPU, memory, API requests) and failure detection times"
            + " for many single-member clusters, the operator running as its own process.")
public final class ScaleBenchmarkCommand implements Callable<Integer> {
  /** The count of clusters the goals of idle CPU and memory are set for. */
  private static final int GOAL_CLUSTERS = 1000;

  static final String NS = "default";

  @Option(
      names = "--clusters",
      split = ",",
      defaultValue = "10,100,300,1000",
      description = "Counts of clusters, one run each (default: ${DEFAULT-VALUE}).")
  List<Integer> counts;

  @Option(
      names = "--fake-from",
      defaultValue = "300",
      description =
          "Runs with this many clusters or more answer through the load generator instead of"
              + " etcd processes (default: ${DEFAULT-VALUE}).")
  int fakeFrom;

  @Option(
      names = "--idle",
      defaultValue = "60",
      description = "Seconds of the idle window (default: ${DEFAULT-VALUE}).")
  int idleSeconds;

  @Option(
      names = "--injections",
      defaultValue = "20",
      description = "Failures injected per run (default: ${DEFAULT-VALUE}).")
  int injections;

  @Option(
      names = "--memory",
      defaultValue = "512m",
      description =
          "The operator container's memory limit the JVM sizes itself for, as the Deployment's"
              + " (default: ${DEFAULT-VALUE}).")
  String memory;

  @Option(
      names = "--dir",
      defaultValue = ".sandbox-scale",
      description = "Scratch directory, emptied first (default: ${DEFAULT-VALUE}).")
  Path dir;

  @Option(
      names = "--profile",
      description =
          "Record the operator's idle window with Java Flight Recorder, in <dir>/n<N>/idle.jfr.")
  boolean profile;

  @Option(
      names = "--histogram",
      defaultValue = "0",
      description =
          "Print the classes whose live heap grew most per cluster, this many (default: none).")
  int histogram;

  @Option(names = "--operator-jar", description = "The product jar (default: found from here).")
  Path operatorJar;

  @Option(
      names = "--jvm-options",
      description = "The JVM argument file (default: deploy/image/jvm.options).")
  Path jvmOptions;

  @Override
  public Integer call() throws Exception {
    Logging.quiet();
    if (System.getProperty(JvmHosts.PROPERTY) == null) {
      Files.createDirectories(dir);
      return Relauncher.relaunchWithHostsFile(dir, ScaleBenchmarkCommand.class, rawArgs());
    }
    Path root = repositoryRoot();
    Path jar = operatorJar != null ? operatorJar : root.resolve("product/target/etcd-operator.jar");
    Path options = jvmOptions != null ? jvmOptions : root.resolve("deploy/image/jvm.options");
    if (!Files.isReadable(jar) || !Files.isReadable(options)) {
      System.err.println("scale: needs " + jar + " and " + options + " (mvn package)");
      return 2;
    }
    System.out.printf(
        "scale: operator %s with @%s -XX:MaxRAM=%s; %d s idle windows; %d injections%n",
        jar, options, memory, idleSeconds, injections);
    try {
      for (int n : counts) {
        run(n, jar, options);
      }
    } catch (SandboxException e) {
      System.err.println("scale: " + e.getMessage());
      return 2;
    }
    return 0;
  }

  private void run(int n, Path jar, Path options) throws Exception {
    boolean fake = n >= fakeFrom;
    Path runDir = dir.toAbsolutePath().resolve("n" + n);
    clean(runDir);
    // Controllers act on events; a slow resync keeps the sandbox's own load (a list of every
    // object per controller and pass) from crowding the operator on this machine's two cores.
    // Nodes are not what is measured: a sandbox busy with a thousand clusters can renew its nodes'
    // Leases late, and a node marked unreachable would have the operator (rightly) report every
    // member on it.
    SandboxConfig config =
        SandboxConfig.defaults(runDir)
            .withResync(Duration.ofSeconds(10))
            .withNodeTimings(
                Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofSeconds(10));
    OperatorProcess operator =
        new OperatorProcess(jar, options, memory, runDir.resolve("operator"), config.tag());
    System.out.printf(
        "%n== %d clusters of 1 member (%s) ==%n", n, fake ? "load generator" : "etcd processes");
    try (Sandbox sandbox = Sandbox.start(fake ? config.withFakeEtcd() : config, operator);
        ClusterWatch watch = new ClusterWatch(sandbox.client(), NS)) {
      operator.awaitReady(Duration.ofMinutes(2));
      Thread.sleep(5_000);
      Idle base = Idle.measure(operator, sandbox, Duration.ofSeconds(10));
      long heap0 = operator.liveHeapBytes();
      HeapHistogram histogram0 = histogram > 0 ? operator.classHistogram() : null;
      System.out.printf(
          "no cluster:    CPU %.1f %% of a core, RSS %d MiB, live heap %.1f MiB, %d classes"
              + " loaded%n",
          base.cpuShare() * 100,
          operator.status("VmRSS") / 1024,
          heap0 / 1048576.0,
          operator.classesLoaded());

      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        sandbox.client().resource(cluster(name(i))).create();
      }
      boolean allReady = watch.awaitCount(n, ClusterWatch::ready, Duration.ofSeconds(120 + n * 3L));
      Duration toReady = Duration.ofNanos(System.nanoTime() - t0);
      System.out.printf(
          "applied:       %d of %d Ready %.1f s after apply%n",
          watch.count(ClusterWatch::ready), n, toReady.toMillis() / 1000.0);
      if (!allReady) {
        throw new SandboxException("not every cluster became Ready");
      }
      Duration quiet = awaitQuiet(sandbox, Duration.ofSeconds(10), Duration.ofMinutes(5));
      System.out.printf(
          "settled:       no API write for 10 s, %.1f s after all were Ready%n",
          quiet.toMillis() / 1000.0);
      if (profile) {
        operator.jcmd(
            "JFR.start",
            "name=idle",
            "settings=profile",
            "duration=" + idleSeconds + "s",
            "filename=" + runDir.resolve("idle.jfr"));
      }
      Idle idle = Idle.measure(operator, sandbox, Duration.ofSeconds(idleSeconds));
      long heap = operator.liveHeapBytes();
      System.out.printf(
          "idle %3d s:    CPU %.1f %% of a core%s, %.1f reconciles/s (%.1f/s woken by the member"
              + " watch), per reconcile %.3f API writes and %.3f reads (%s)%n",
          idleSeconds,
          idle.cpuShare() * 100,
          n == GOAL_CLUSTERS ? " (goal ≤ 10 %)" : "",
          idle.reconcilesPerSecond(),
          idle.watchTriggersPerSecond(),
          idle.writesPerReconcile(),
          idle.readsPerReconcile(),
          idle.requests());
      System.out.printf("member watch:  %s%n", idle.watchLine());
      System.out.printf("busiest:       %s%n", idle.busiestThreads(8));
      System.out.printf(
          "memory:        RSS %d MiB%s (peak %d MiB), %d threads, live heap %.1f MiB, %.1f KiB per"
              + " cluster over the baseline%s, %d classes loaded%n",
          operator.status("VmRSS") / 1024,
          n == GOAL_CLUSTERS ? " (goal ≤ 256)" : "",
          operator.status("VmHWM") / 1024,
          operator.status("Threads"),
          heap / 1048576.0,
          (heap - heap0) / 1024.0 / n,
          n == GOAL_CLUSTERS ? " (goal ≤ 60)" : "",
          operator.classesLoaded());
      if (histogram0 != null) {
        HeapHistogram after = operator.classHistogram();
        System.out.printf(
            "heap by class: %.1f KiB per cluster in all; the %d classes that grew most, per"
                + " cluster:%n",
            (after.totalBytes() - histogram0.totalBytes()) / 1024.0 / n, histogram);
        after.growthSince(histogram0, n, histogram).forEach(g -> System.out.println(g.line()));
      }

      injectFailures(n, sandbox, watch);
      coldStart(n, operator);
    }
  }

  private void injectFailures(int n, Sandbox sandbox, ClusterWatch watch) throws Exception {
    List<Duration> unhealthy = new ArrayList<>();
    List<Duration> lost = new ArrayList<>();
    int missed = 0;
    for (int i = 0; i < injections; i++) {
      String name = name((int) ((i * 7919L) % n));
      long t0 = System.nanoTime();
      sandbox.faults().crash(NS, name + "-0", Duration.ofSeconds(10));
      Duration u = watch.await(name, ClusterWatch::memberUnhealthy, t0, Duration.ofSeconds(9));
      Duration q = watch.await(name, ClusterWatch::unavailable, t0, Duration.ofSeconds(9));
      if (u == null || q == null) {
        missed++;
      }
      if (u != null) {
        unhealthy.add(u);
      }
      if (q != null) {
        lost.add(q);
      }
      if (watch.await(name, ClusterWatch::ready, System.nanoTime(), Duration.ofSeconds(90))
          == null) {
        throw new SandboxException(name + " did not become Ready again after its failure");
      }
    }
    System.out.printf(
        "failures:      %d injected (member killed, down 10 s), %d not seen within 9 s;"
            + " member unhealthy after %s; quorum lost after %s%n",
        injections, missed, Stats.of(unhealthy), Stats.of(lost));
  }

  private void coldStart(int n, OperatorProcess operator) throws Exception {
    operator.kill();
    operator.spawn();
    Duration first =
        operator.awaitMetrics(
            Duration.ofMinutes(5),
            page ->
                Metrics.sum(page, "etcd_operator_reconcile_duration_seconds_count", l -> true) > 0,
            Duration.ofMillis(100));
    Duration converged =
        operator.awaitMetrics(
            Duration.ofMinutes(10),
            page -> {
              Map<String, Double> quorum =
                  Metrics.byLabel(page, "etcd_operator_cluster_quorum", "name");
              Map<String, Double> healthy =
                  Metrics.byLabel(page, "etcd_operator_cluster_members_healthy", "name");
              return quorum.values().stream().filter(v -> v == 1).count() >= n
                  && healthy.values().stream().filter(v -> v >= 1).count() >= n;
            },
            Duration.ofSeconds(1));
    System.out.printf(
        "cold start:    first reconcile %.2f s after the process started; all %d clusters seen"
            + " with quorum and healthy after %.2f s%n",
        first.toMillis() / 1000.0, n, converged.toMillis() / 1000.0);
  }

  /**
   * Waits until the operator has written nothing to the API for {@code window} (clusters that just
   * formed still have their ConfigMap and status written once more); returns how long that took.
   */
  private static Duration awaitQuiet(Sandbox sandbox, Duration window, Duration max)
      throws InterruptedException {
    long start = System.nanoTime();
    long writes = sandbox.operatorUsage().writes();
    long since = start;
    while (System.nanoTime() - start < max.toNanos()) {
      Thread.sleep(500);
      long now = sandbox.operatorUsage().writes();
      if (now != writes) {
        writes = now;
        since = System.nanoTime();
      } else if (System.nanoTime() - since >= window.toNanos()) {
        break;
      }
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  static String name(int i) {
    return String.format("s%04d", i);
  }

  static EtcdCluster cluster(String name) {
    EtcdCluster c = new EtcdCluster();
    c.getMetadata().setName(name);
    c.getMetadata().setNamespace(NS);
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setReplicas(1);
    c.setSpec(spec);
    return c;
  }

  /** The repository this sandbox jar (or class directory) was built in. */
  private static Path repositoryRoot() throws Exception {
    Path here =
        Path.of(
            ScaleBenchmarkCommand.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    // .../sandbox/target/etcd-operator-sandbox.jar or .../sandbox/target/classes
    return here.getParent().getParent().getParent();
  }

  private static void clean(Path p) throws Exception {
    if (Files.exists(p)) {
      try (Stream<Path> s = Files.walk(p)) {
        s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private List<String> rawArgs() {
    List<String> args = new ArrayList<>();
    args.add("--clusters");
    args.add(String.join(",", counts.stream().map(String::valueOf).toList()));
    args.addAll(
        List.of(
            "--fake-from",
            String.valueOf(fakeFrom),
            "--idle",
            String.valueOf(idleSeconds),
            "--injections",
            String.valueOf(injections),
            "--memory",
            memory,
            "--dir",
            dir.toString()));
    if (operatorJar != null) {
      args.addAll(List.of("--operator-jar", operatorJar.toString()));
    }
    if (profile) {
      args.add("--profile");
    }
    if (histogram > 0) {
      args.addAll(List.of("--histogram", String.valueOf(histogram)));
    }
    if (jvmOptions != null) {
      args.addAll(List.of("--jvm-options", jvmOptions.toString()));
    }
    return args;
  }

  public static void main(String[] args) {
    Relauncher.watchParent();
    System.exit(new CommandLine(new ScaleBenchmarkCommand()).execute(args));
  }
}
