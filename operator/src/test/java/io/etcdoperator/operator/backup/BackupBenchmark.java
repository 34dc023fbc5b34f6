package io.etcdoperator.operator.backup;

import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.model.Manifest;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import io.etcdoperator.testing.S3ProxyServer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Backup and restore throughput on real etcd, against etcd's own tools on the same database in the
 * same run, and the agent's heap against the database size. Prints numbers and ratios; asserts
 * nothing.
 *
 * <p>For each database size (MiB, default {@code 256 1024}; {@code 2048} for the 2 GiB case), on
 * the etcd version tests run by default:
 *
 * <ol>
 *   <li>one etcd member (3.4 here) is filled with 1 MiB values to that size;
 *   <li>baseline: {@code etcdctl snapshot save} to a local file, timed;
 *   <li>the backup agent to the local object store (s3proxy, filesystem backend, on loopback) and
 *       to a directory, timed, with the most live heap (what survived the last collection) above
 *       the idle one, sampled every 20 ms while the agent streams to S3;
 *   <li>baseline: {@code etcdctl snapshot restore} of the saved file, timed; then the restore agent
 *       from the object store (download, sha256 and trailer checks, restore), timed, and the time
 *       until etcd started on the restored data answers healthy ("to Ready").
 * </ol>
 *
 * Run from the repository root, after {@code scripts/ensure-etcd} (it needs etcdctl):
 *
 * <pre>
 * mvn -B -q -pl operator -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test -Dspotless.check.skip=true
 * java -Xmx512m -cp operator/target/test-classes:operator/target/classes:$(cat \
 *     operator/target/test-classpath.txt) io.etcdoperator.operator.backup.BackupBenchmark 256 1024 2048
 * </pre>
 */
public final class BackupBenchmark {
  private static final int MIB = 1024 * 1024;

  private BackupBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = new ArrayList<>();
    for (String a : args) {
      sizes.add(Integer.parseInt(a));
    }
    if (sizes.isEmpty()) {
      sizes = List.of(256, 1024);
    }
    Path work =
        Files.createTempDirectory(Path.of("operator/target").toAbsolutePath(), "backup-bench");
    EtcdTools tools = EtcdTools.in(RestoreAgentIT.toolsDir());
    System.out.printf(
        "backup/restore benchmark: %s, %d cores, heap max %d MiB, work dir %s%n",
        tools.binary(),
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() / MIB,
        work);
    System.out.printf(
        "%8s | %13s %13s %13s %6s | %12s | %13s %13s %6s %10s%n",
        "DB MiB",
        "etcdctl save",
        "agent->S3",
        "agent->dir",
        "ratio",
        "live heap+",
        "etcdctl rest.",
        "agent restore",
        "ratio",
        "to healthy");
    for (int mib : sizes) {
      run(mib, work, tools);
    }
  }

  static void run(int mib, Path work, EtcdTools tools) throws Exception {
    Path dir = Files.createDirectories(work.resolve(mib + "mib"));
    try (LocalEtcdCluster cluster =
            LocalEtcdCluster.builder()
                .members(1)
                .baseDir(dir)
                .extraArg("--quota-backend-bytes=8589934592")
                .start();
        JetcdEtcdService etcd = new JetcdEtcdService();
        EtcdKv kv = new EtcdKv(Duration.ofSeconds(30));
        S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), "bench");
        S3Store store =
            new S3Store(
                s3.endpoint(),
                null,
                true,
                "bench",
                S3ProxyServer.ACCESS_KEY,
                S3ProxyServer.SECRET_KEY)) {
      cluster.awaitHealthy(Duration.ofSeconds(30));
      String url = cluster.member(0).clientUrl();
      String value = "v".repeat(MIB - 64);
      for (int i = 0; i < mib; i++) {
        kv.put(url, String.format("bench/%06d", i), value);
      }
      long db = etcd.status("bench", url).dbSize();

      Path saved = dir.resolve("etcdctl.db");
      long t0 = System.nanoTime();
      run(
          Path.of(tools.binary()).resolveSibling("etcdctl").toString(),
          "--endpoints=" + url,
          "snapshot",
          "save",
          saved.toString());
      double save = seconds(t0);

      System.gc();
      long idle = liveHeap();
      AtomicLong peak = new AtomicLong(idle);
      ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
      sampler.scheduleAtFixedRate(
          () -> peak.accumulateAndGet(liveHeap(), Math::max), 0, 20, TimeUnit.MILLISECONDS);
      long t1 = System.nanoTime();
      Manifest m =
          new BackupAgent(etcd, Clock.systemUTC())
              .run(new BackupAgent.Request("bench", "b-0", url, "b.db"), store);
      double toS3 = seconds(t1);
      sampler.shutdownNow();
      long heap = Math.max(0, peak.get() - idle);
      long t2 = System.nanoTime();
      new BackupAgent(etcd, Clock.systemUTC())
          .run(
              new BackupAgent.Request("bench", "b-0", url, "b.db"),
              new FileStore(dir.resolve("claim"), "pvc://bench"));
      double toDir = seconds(t2);

      Path restoredByCtl = dir.resolve("ctl-restored");
      long t3 = System.nanoTime();
      run(tools.binary(), "snapshot", "restore", saved.toString(), "--data-dir=" + restoredByCtl);
      double ctlRestore = seconds(t3);

      LocalEtcdMember member = cluster.newMember("restored-0");
      long t4 = System.nanoTime();
      new RestoreAgent(Clock.systemUTC(), line -> {})
          .run(
              new RestoreAgent.Request(
                  member.dataDir(),
                  member.name(),
                  member.peerUrl(),
                  member.initialClusterEntry(),
                  "new",
                  "bench-restored",
                  "b.db"),
              store,
              tools);
      double agentRestore = seconds(t4);
      member.startExisting(member.initialClusterEntry());
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (!member.isHealthy(Duration.ofSeconds(1)) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      double ready = seconds(t4);
      System.out.printf(
          "%8d | %7.2fs %4.0fMB/s %7.2fs %4.0fMB/s %7.2fs %4.0fMB/s %5.2fx | %9d MiB | %12.2fs %12.2fs %5.2fx %9.2fs%n",
          db / MIB,
          save,
          mbps(m.sizeBytes(), save),
          toS3,
          mbps(m.sizeBytes(), toS3),
          toDir,
          mbps(m.sizeBytes(), toDir),
          save / toS3,
          heap / MIB,
          ctlRestore,
          agentRestore,
          agentRestore / ctlRestore,
          ready);
    }
  }

  /**
   * The heap that survived the last collection of each pool: what is live, not the garbage a stream
   * of 32 KiB messages leaves between collections (which says nothing of what grows).
   */
  static long liveHeap() {
    long live = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
        live += pool.getCollectionUsage().getUsed();
      }
    }
    return live;
  }

  static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  static double mbps(long bytes, double seconds) {
    return bytes / 1e6 / seconds;
  }

  static void run(String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("ETCDCTL_API", "3");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
    }
  }
}
