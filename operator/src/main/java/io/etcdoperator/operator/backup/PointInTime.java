package io.etcdoperator.operator.backup;

import io.etcdoperator.operator.etcd.ChangeEvent;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.EtcdStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A snapshot as of a revision or a time: a full backup, then the change log replayed over it.
 *
 * <h2>The algorithm</h2>
 *
 * <ol>
 *   <li>Restore the full backup (already verified) into a scratch directory as a one-member
 *       cluster, and start etcd on it on loopback ports (etcd's own binary, from the tools
 *       directory). Its revision B is exactly the backup's.
 *   <li>The chunks of the log that reach past B, in order: refused unless they follow each other
 *       without gap from at most B+1 to at least the target (a compacted gap, a missing chunk, a
 *       log that stops short are named). Each chunk's sha256 is checked as it is read, and so is
 *       its cluster: a chunk read from another etcd cluster than the full backup's (its manifest
 *       says which) is refused, since replaying one cluster's changes over another's data would
 *       make a cluster that never existed.
 *   <li>Replay every revision after B up to the target, one transaction per revision: etcd gives it
 *       the next revision, which must be the one it had (anything else is refused as a replay that
 *       diverged). A time target stops before the first chunk the archiver finished after that
 *       time, so it is honoured to within one flush interval.
 *   <li>Snapshot that etcd (the same stream as a backup, its sha256 checked) and stop it. The
 *       result is restored like any snapshot: every member of the new cluster gets the same data.
 * </ol>
 *
 * Leases are not replayed: a key put with a lease after the full backup comes back without it.
 */
final class PointInTime {
  private final EtcdService etcd;
  private final Consumer<String> progress;

  PointInTime(EtcdService etcd, Consumer<String> progress) {
    this.etcd = etcd;
    this.progress = progress;
  }

  /** Where to stop: a revision, or a time (whichever is given). */
  record Target(long revision, Optional<Instant> time) {}

  /** The snapshot file as of the target, and its revision. */
  record Result(Path snapshot, long revision) {}

  /**
   * @param baseClusterId the cluster ID (hex) of the full backup, from its manifest; empty without
   *     one
   */
  Result replay(
      Path base,
      Optional<String> baseClusterId,
      SnapshotStore store,
      String log,
      Target target,
      EtcdTools tools,
      Path work)
      throws IOException {
    int client = freePort();
    int peer = freePort();
    String peerUrl = "http://127.0.0.1:" + peer;
    String clientUrl = "http://127.0.0.1:" + client;
    Path data = work.resolve("pitr.etcd");
    tools.restore(base, data, "pitr", "pitr=" + peerUrl, "pitr", peerUrl);
    ProcessBuilder builder =
        new ProcessBuilder(
                tools.etcd(),
                "--name=pitr",
                "--data-dir=" + data,
                "--listen-client-urls=" + clientUrl,
                "--advertise-client-urls=" + clientUrl,
                "--listen-peer-urls=" + peerUrl,
                "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=pitr=" + peerUrl)
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("pitr-etcd.log").toFile());
    // etcd takes ETCD_* variables for flags: the member's own (from the cluster-state ConfigMap)
    // would clash with this scratch etcd's flags, and etcd refuses to start on a clash
    builder.environment().keySet().removeIf(k -> k.startsWith("ETCD_"));
    Process etcdProcess = builder.start();
    String key = "pitr/" + client;
    try {
      long b = awaitRevision(key, clientUrl, etcdProcess);
      long reached = replayChunks(key, clientUrl, b, baseClusterId, store, log, target);
      Path out = work.resolve("pitr.db");
      try (OutputStream o = Files.newOutputStream(out)) {
        etcd.snapshot(key, clientUrl, o, Duration.ofSeconds(30), Duration.ofMinutes(30));
      }
      progress.accept("replayed the change log from revision " + (b + 1) + " to " + reached);
      return new Result(out, reached);
    } finally {
      etcdProcess.destroy();
      try {
        if (!etcdProcess.waitFor(10, TimeUnit.SECONDS)) {
          etcdProcess.destroyForcibly();
        }
      } catch (InterruptedException e) {
        etcdProcess.destroyForcibly();
        Thread.currentThread().interrupt();
      }
      etcd.closeCluster(key);
    }
  }

  private long awaitRevision(String key, String url, Process p) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IOException("etcd on the full backup exited with " + p.exitValue());
      }
      EtcdStatus s = etcd.status(key, url);
      if (s.reachable() && s.leaderId() != 0) {
        return s.revision();
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    throw new IOException("etcd on the full backup did not start within 2 minutes");
  }

  private long replayChunks(
      String key,
      String url,
      long base,
      Optional<String> baseClusterId,
      SnapshotStore store,
      String log,
      Target target)
      throws IOException {
    List<String> chunks = new ArrayList<>();
    for (String k : store.list(log)) {
      long[] range = ChangeChunk.range(k);
      if (range != null && range[1] > base) {
        chunks.add(k);
      }
    }
    long reached = base;
    List<ChangeEvent> group = new ArrayList<>();
    for (String k : chunks) {
      long[] range = ChangeChunk.range(k);
      if (range[0] > reached + 1) {
        if (target.time().isEmpty() && reached >= target.revision()) {
          break;
        }
        throw new RestoreAgent.Refused(
            "the change log "
                + store.uri(log)
                + " has no changes from revision "
                + (reached + 1)
                + " to "
                + (range[0] - 1)
                + " (a gap: compacted before it was recorded?)",
            null);
      }
      if (target.time().isEmpty() && range[0] > target.revision()) {
        break;
      }
      ChangeChunk c;
      try (InputStream in = store.open(k)) {
        c = ChangeChunk.decode(in.readAllBytes(), store.uri(k));
      } catch (RestoreAgent.Refused e) {
        throw e;
      } catch (IOException e) {
        throw new RestoreAgent.Refused(e.getMessage(), e);
      }
      if (baseClusterId.isPresent()
          && !c.clusterId().isEmpty()
          && !sameCluster(c.clusterId(), baseClusterId.get())) {
        throw new RestoreAgent.Refused(
            store.uri(k)
                + " holds changes of etcd cluster "
                + c.clusterId()
                + ", but the full backup is of cluster "
                + baseClusterId.get()
                + ": a change log is replayed only over a backup of its own cluster",
            null);
      }
      if (target.time().isPresent() && c.lastSeen().isAfter(target.time().get())) {
        break;
      }
      for (ChangeEvent e : c.events()) {
        if (e.revision() <= reached
            || (target.time().isEmpty() && e.revision() > target.revision())) {
          continue;
        }
        if (!group.isEmpty() && group.get(0).revision() != e.revision()) {
          reached = apply(key, url, group);
          group = new ArrayList<>();
        }
        group.add(e);
      }
      if (!group.isEmpty()) {
        reached = apply(key, url, group);
        group = new ArrayList<>();
      }
      reached =
          Math.max(reached, Math.min(c.to(), target.time().isEmpty() ? target.revision() : c.to()));
    }
    if (target.time().isEmpty() && reached < target.revision()) {
      throw new RestoreAgent.Refused(
          "the change log "
              + store.uri(log)
              + " reaches revision "
              + reached
              + " only, short of the target "
              + target.revision(),
          null);
    }
    return reached;
  }

  /** Two cluster IDs in hex, whatever their leading zeros. */
  static boolean sameCluster(String a, String b) {
    try {
      return Long.parseUnsignedLong(a, 16) == Long.parseUnsignedLong(b, 16);
    } catch (NumberFormatException e) {
      return a.equalsIgnoreCase(b);
    }
  }

  private long apply(String key, String url, List<ChangeEvent> oneRevision) throws IOException {
    long want = oneRevision.get(0).revision();
    long got = etcd.applyChanges(key, url, oneRevision);
    if (got != want) {
      throw new RestoreAgent.Refused(
          "the replay diverged: revision " + want + " came out as " + got, null);
    }
    return got;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
