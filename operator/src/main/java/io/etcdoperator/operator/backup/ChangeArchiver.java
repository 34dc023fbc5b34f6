package io.etcdoperator.operator.backup;

import io.etcdoperator.operator.etcd.ChangeEvent;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.model.Manifest;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Continuous backup: records every change of a cluster after its newest full backup, as ordered
 * chunks of a change log ({@link ChangeChunk}), so that a restore can replay them up to a revision
 * or a time. What the archiver pod of an EtcdBackupSchedule with {@code continuous} runs.
 *
 * <h2>The algorithm</h2>
 *
 * <ol>
 *   <li>Resume: the log's last chunk ends at revision T: watch from T+1. A log without chunks
 *       starts after the newest full backup under {@code backups} (its manifest's revision R: every
 *       write up to R is in it): watch from R+1. No full backup yet: wait for one.
 *   <li>Watch every key from there, through the cluster's client Service (any member that serves).
 *       Changes come as whole revisions, in order; they are kept in memory until the next flush, at
 *       most {@code flushEvery} (1 s) later.
 *   <li>Flush: one chunk of the revisions seen since the last one, {@code from} = the previous
 *       chunk's end + 1, written as one small object (whole, or not at all). No change, no chunk.
 *       Memory is what one interval brings.
 *   <li>The watch ends (the member went away, a roll) or a chunk cannot be written (the store is
 *       down): drop what was not written and go back to 1 a second later: the watch re-reads the
 *       changes from etcd's history. History compacted past the resume point: that gap can never be
 *       filled; wait for a full backup newer than it and start after it (a restore to a point in
 *       the gap is refused as such).
 * </ol>
 *
 * The newest restorable point is the end of the last chunk: at most one flush interval (plus the
 * store's latency) behind the last acknowledged write.
 */
public final class ChangeArchiver {
  private final EtcdService etcd;
  private final Clock clock;
  private final Consumer<String> progress;

  public ChangeArchiver(EtcdService etcd, Clock clock, Consumer<String> progress) {
    this.etcd = etcd;
    this.clock = clock;
    this.progress = progress;
  }

  /**
   * @param cluster namespace/name
   * @param endpoint a client URL of the cluster (its client Service)
   * @param backups the key prefix of the schedule's full backups ({@code <backup>.db} and their
   *     manifests)
   * @param backupPrefix only full backups whose file name starts with this count
   * @param log the key prefix of the change log
   * @param flushEvery how often buffered changes are written
   */
  public record Request(
      String cluster,
      String endpoint,
      String backups,
      String backupPrefix,
      String log,
      Duration flushEvery) {}

  /** Runs until {@code stopped} says so; returns the revision the log reaches. */
  public long run(Request r, SnapshotStore store, BooleanSupplier stopped)
      throws InterruptedException {
    long next = 0;
    while (!stopped.getAsBoolean()) {
      try {
        if (next == 0) {
          next = resume(r, store);
          if (next == 0) {
            progress.accept("no full backup under " + store.uri(r.backups()) + " yet; waiting");
            sleep(stopped, Duration.ofSeconds(5));
            continue;
          }
          progress.accept("recording changes from revision " + next + " to " + store.uri(r.log()));
        }
        next = follow(r, store, next, stopped);
      } catch (IOException | RuntimeException e) {
        progress.accept("change log: " + e.getMessage() + "; again in 1 s");
      }
      sleep(stopped, Duration.ofSeconds(1));
    }
    return next - 1;
  }

  /** Where to go on: after the last chunk, else after the newest full backup, else 0. */
  long resume(Request r, SnapshotStore store) throws IOException {
    long last = 0;
    for (String key : store.list(r.log())) {
      long[] range = ChangeChunk.range(key);
      if (range != null) {
        last = Math.max(last, range[1]);
      }
    }
    long base = newestBackupRevision(r, store);
    // a full backup newer than the log (after a compacted gap) is where the log goes on
    return Math.max(last, base) == 0 ? 0 : Math.max(last, base) + 1;
  }

  private long newestBackupRevision(Request r, SnapshotStore store) throws IOException {
    long newest = 0;
    for (String key : store.list(r.backups())) {
      String name = key.substring(key.lastIndexOf('/') + 1);
      if (name.startsWith(r.backupPrefix()) && name.endsWith(".db.manifest.json")) {
        try (var in = store.open(key)) {
          newest = Math.max(newest, Manifest.read(in.readAllBytes()).revision());
        } catch (IOException e) {
          progress.accept("skipping " + store.uri(key) + ": " + e.getMessage());
        }
      }
    }
    return newest;
  }

  /** One watch: flushes chunks until it ends; returns the next revision to record. */
  private long follow(Request r, SnapshotStore store, long from, BooleanSupplier stopped)
      throws IOException, InterruptedException {
    LinkedBlockingQueue<List<ChangeEvent>> queue = new LinkedBlockingQueue<>();
    AtomicReference<String> ended = new AtomicReference<>();
    long next = from;
    // Each chunk names the cluster it was read from: a point-in-time restore replays a log only
    // over a full backup of the same cluster.
    EtcdStatus status = etcd.status(r.cluster(), r.endpoint());
    if (!status.reachable() || status.clusterId() == 0) {
      throw new IOException("cannot read the cluster ID at " + r.endpoint());
    }
    String clusterId = Long.toHexString(status.clusterId());
    try (AutoCloseable watch =
        etcd.watchChanges(
            r.cluster(), r.endpoint(), from, (events, rev) -> queue.add(events), ended::set)) {
      List<ChangeEvent> buffer = new ArrayList<>();
      Instant first = null;
      long flushAt = System.nanoTime() + r.flushEvery().toNanos();
      while (!stopped.getAsBoolean() && ended.get() == null) {
        List<ChangeEvent> got =
            queue.poll(Math.max(1, flushAt - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (got != null && !got.isEmpty()) {
          if (first == null) {
            first = clock.instant();
          }
          buffer.addAll(got);
        }
        if (System.nanoTime() >= flushAt) {
          next = flush(r, store, next, buffer, first, clusterId);
          buffer = new ArrayList<>();
          first = null;
          flushAt = System.nanoTime() + r.flushEvery().toNanos();
        }
      }
      // what was received before the watch ended is as good as the rest
      for (List<ChangeEvent> got = queue.poll(); got != null; got = queue.poll()) {
        buffer.addAll(got);
      }
      next = flush(r, store, next, buffer, first == null ? clock.instant() : first, clusterId);
    } catch (IOException | InterruptedException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("the watch failed: " + e.getMessage(), e);
    }
    String why = ended.get();
    if (why != null) {
      progress.accept("the watch ended at revision " + next + ": " + why);
      if (why.contains("compacted")) {
        return 0;
      }
    }
    return next;
  }

  /** Writes the buffered revisions as one chunk; returns the next revision to record. */
  private long flush(
      Request r,
      SnapshotStore store,
      long next,
      List<ChangeEvent> buffer,
      Instant first,
      String clusterId)
      throws IOException {
    if (buffer.isEmpty()) {
      return next;
    }
    ChangeChunk c =
        new ChangeChunk(
            next,
            buffer.get(buffer.size() - 1).revision(),
            first,
            clock.instant(),
            clusterId,
            buffer);
    store.put(c.key(r.log()), c.encode());
    return c.to() + 1;
  }

  private static void sleep(BooleanSupplier stopped, Duration d) throws InterruptedException {
    long end = System.nanoTime() + d.toNanos();
    while (!stopped.getAsBoolean() && System.nanoTime() < end) {
      Thread.sleep(Math.min(100, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
    }
  }
}
