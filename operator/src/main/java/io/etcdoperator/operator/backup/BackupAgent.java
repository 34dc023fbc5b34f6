package io.etcdoperator.operator.backup;

import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.SnapshotResult;
import io.etcdoperator.operator.model.Manifest;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * Takes one backup: what the agent pod of an EtcdBackup runs.
 *
 * <h2>Where the work runs, and why</h2>
 *
 * In a pod the operator starts ({@code etcd-operator backup-agent}, the operator's own image), not
 * in the operator: a claim is reachable only from a pod that mounts it; the operator's memory must
 * not depend on database sizes, and a pod's does not either (it holds three 8 MiB parts, see {@link
 * S3Store}); and a backup must survive the operator being killed, which a pod does by not knowing
 * the operator exists. The operator only watches the pod and records its result.
 *
 * <h2>The algorithm</h2>
 *
 * <ol>
 *   <li>Ask the member its status: cluster ID, member ID, version, revision R. Every write up to R
 *       is in the snapshot taken after it.
 *   <li>Open an upload under the snapshot's key: nothing is visible under that key until step 4.
 *   <li>Stream {@code Maintenance.Snapshot} into it; etcd's trailing sha256 is checked when the
 *       stream ends, and the file's own sha256 comes from the same pass ({@link
 *       EtcdService#snapshot}).
 *   <li>Commit the upload (complete the multipart upload, or rename the file into place).
 *   <li>Write the manifest last. A snapshot without its manifest may come from a backup that died
 *       before this step; the operator calls a backup Complete only from the manifest the agent
 *       reports after writing it.
 * </ol>
 *
 * Any failure aborts the upload and is reported with what went wrong; the pod then fails. A failure
 * of the member (steps 1 and 3: it does not answer, its stream breaks, stalls for {@link
 * #IDLE_TIMEOUT} while the agent waits for it, or fails etcd's checksum: {@link #memberFailed}) is
 * a {@link MemberFailedException}: the operator tries again on another member. Any other failure
 * (the store's, the claim's, a refusal every member would give, the overall limit) makes the backup
 * Failed. A failure to abort (the store went away) leaves an invisible incomplete upload or a
 * {@code .part} file, never an object under the snapshot's key.
 */
public final class BackupAgent {

  /** The snapshot stream may stall this long (a frozen member) before the backup fails. */
  public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);

  /** A snapshot that takes longer than this fails (2 GiB at 2 MB/s). */
  public static final Duration MAX_DURATION = Duration.ofMinutes(30);

  private final EtcdService etcd;
  private final Clock clock;
  private final Consumer<String> progress;

  /**
   * @param progress where to say what it does (the agent's output: its pod's log)
   */
  public BackupAgent(EtcdService etcd, Clock clock, Consumer<String> progress) {
    this.etcd = etcd;
    this.clock = clock;
    this.progress = progress;
  }

  public BackupAgent(EtcdService etcd, Clock clock) {
    this(etcd, clock, line -> {});
  }

  /**
   * What to back up.
   *
   * @param cluster namespace/name of the EtcdCluster
   * @param member the member's name
   * @param clientUrl the member's client URL
   * @param snapshotKey the key to write the snapshot under
   */
  public record Request(String cluster, String member, String clientUrl, String snapshotKey) {}

  /** Takes the backup; returns the manifest it wrote. */
  public Manifest run(Request request, SnapshotStore store) throws IOException {
    Instant start = clock.instant();
    EtcdStatus status = etcd.status(request.cluster(), request.clientUrl());
    if (!status.reachable()) {
      throw new MemberFailedException(
          "member "
              + request.member()
              + " ("
              + request.clientUrl()
              + ") does not answer: "
              + status.failure().map(Object::toString).orElse("?"),
          null);
    }
    store.check();
    progress.accept(
        "streaming the snapshot of "
            + request.cluster()
            + " from "
            + request.member()
            + " ("
            + request.clientUrl()
            + ", revision "
            + status.revision()
            + ") to "
            + store.uri(request.snapshotKey()));
    SnapshotResult result;
    try (SnapshotStore.Upload upload = store.upload(request.snapshotKey())) {
      try {
        result =
            etcd.snapshot(
                request.cluster(), request.clientUrl(), upload, IDLE_TIMEOUT, MAX_DURATION);
      } catch (EtcdException e) {
        String what =
            "member " + request.member() + " (" + request.clientUrl() + ") failed the snapshot: ";
        if (!memberFailed(e, Duration.between(start, clock.instant()))) {
          throw new IOException(what + e.getMessage(), e);
        }
        throw new MemberFailedException(what + e.getMessage(), e);
      }
      upload.commit();
    }
    Instant done = clock.instant();
    Manifest manifest =
        new Manifest(
            Manifest.FORMAT,
            request.cluster(),
            request.snapshotKey(),
            store.uri(request.snapshotKey()),
            result.sizeBytes(),
            result.fileSha256(),
            result.databaseSha256(),
            status.revision(),
            Long.toHexString(status.clusterId()),
            Long.toHexString(status.memberId()),
            request.member(),
            status.version(),
            start.toString(),
            done.toString(),
            Duration.between(start, done).toMillis());
    store.put(Manifest.keyFor(request.snapshotKey()), manifest.toJson());
    progress.accept(
        "wrote "
            + result.sizeBytes()
            + " bytes (sha256 "
            + result.fileSha256()
            + ") and the manifest in "
            + manifest.durationMillis()
            + " ms");
    return manifest;
  }

  /**
   * Whether another member may cure {@code e}: the member went away or stalled, or its data failed
   * etcd's own checksum. Not a refusal every member would give, nor the stream's overall limit
   * ({@link #MAX_DURATION}: a database too big or a store too slow fails again anywhere).
   */
  static boolean memberFailed(EtcdException e, Duration elapsed) {
    return switch (e.failure()) {
      case UNREACHABLE, BAD_SNAPSHOT -> true;
      case DEADLINE_EXCEEDED -> elapsed.compareTo(MAX_DURATION) < 0;
      default -> false;
    };
  }

  /** Deletes a backup's snapshot and manifest (the manifest first: it says "complete"). */
  public static void delete(SnapshotStore store, String snapshotKey) throws IOException {
    store.delete(Manifest.keyFor(snapshotKey));
    store.delete(snapshotKey);
  }
}
