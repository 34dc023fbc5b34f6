package io.etcdoperator.operator.backup;

import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.model.Manifest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Restores one member's data from a snapshot: what the {@code restore} init container of every
 * member pod runs before etcd starts, when the cluster's spec says {@code bootstrap.restore}.
 *
 * <h2>The algorithm</h2>
 *
 * <ol>
 *   <li>The member has data (its data directory holds {@code member/}), or the cluster already
 *       formed (the cluster-state ConfigMap says {@code existing}: a member joining later starts
 *       empty and gets the data from the others): nothing to do.
 *   <li>Read the manifest beside the snapshot, if there is one (a backup of this operator wrote
 *       it): the size and sha256 the file must have.
 *   <li>Copy the snapshot to a file on the member's volume, computing the sha256 of the file and
 *       checking etcd's trailer (the last 32 bytes are the sha256 of the rest). Refuse, naming what
 *       is wrong, when the object is missing or unreadable (credentials), the size or the sha256
 *       differ from the manifest, or the trailer does not match (a truncated or corrupted file).
 *   <li>{@code etcdutl snapshot restore} (or 3.4's {@code etcdctl}, see {@link EtcdTools}) into a
 *       new directory beside the data directory, as this member of the new cluster: the names, peer
 *       URLs and token of the cluster-state ConfigMap, so every member gets the same new member IDs
 *       and a new cluster ID. Then rename it into place: a member never starts on half a restore.
 *       The copy is deleted.
 * </ol>
 *
 * A refusal leaves the data directory absent, so the init container fails, etcd never starts, and
 * no empty cluster is bootstrapped in the snapshot's place; the kubelet retries with back-off and
 * the operator reports the reason from the container's termination message.
 */
public final class RestoreAgent {
  private final Clock clock;
  private final Consumer<String> progress;
  private final EtcdService etcd;

  public RestoreAgent(Clock clock, Consumer<String> progress) {
    this(clock, progress, null);
  }

  /**
   * @param etcd for a point-in-time restore (it runs etcd on the full backup and replays)
   */
  public RestoreAgent(Clock clock, Consumer<String> progress, EtcdService etcd) {
    this.clock = clock;
    this.progress = progress;
    this.etcd = etcd;
  }

  /**
   * One member's restore.
   *
   * @param dataDir the member's data directory ({@code --data-dir})
   * @param member the member's name
   * @param peerUrl its peer URL
   * @param initialCluster {@code ETCD_INITIAL_CLUSTER}
   * @param clusterState {@code ETCD_INITIAL_CLUSTER_STATE}
   * @param token {@code ETCD_INITIAL_CLUSTER_TOKEN}
   * @param key the snapshot's key in the store
   * @param changeLog the key prefix of a change log to replay over the snapshot ("" for none)
   * @param targetRevision replay up to this revision (with a change log; 0 with a time)
   * @param targetTime or up to this time
   */
  public record Request(
      Path dataDir,
      String member,
      String peerUrl,
      String initialCluster,
      String clusterState,
      String token,
      String key,
      String changeLog,
      long targetRevision,
      Optional<Instant> targetTime) {
    public Request(
        Path dataDir,
        String member,
        String peerUrl,
        String initialCluster,
        String clusterState,
        String token,
        String key) {
      this(
          dataDir,
          member,
          peerUrl,
          initialCluster,
          clusterState,
          token,
          key,
          "",
          0,
          Optional.empty());
    }
  }

  /** What happened: restored (with what), or nothing to do (why). */
  public record Result(boolean restored, String uri, long revision, String sha256, String why) {
    public String toJsonLine() {
      return "{\"restored\":"
          + restored
          + ",\"uri\":\""
          + uri
          + "\",\"revision\":"
          + revision
          + ",\"sha256\":\""
          + sha256
          + "\",\"why\":\""
          + why.replace("\"", "'")
          + "\"}";
    }
  }

  /** A restore refused: the source is not a good snapshot, or cannot be read. */
  public static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    public Refused(String message, Throwable cause) {
      super(message, cause);
    }
  }

  public Result run(Request r, SnapshotStore store, EtcdTools tools) throws IOException {
    String uri = store.uri(r.key());
    if (Files.isDirectory(r.dataDir().resolve("member"))) {
      return new Result(false, uri, 0, "", "the member has data: nothing to restore");
    }
    if ("existing".equals(r.clusterState())) {
      return new Result(false, uri, 0, "", "the cluster formed already: the member joins it empty");
    }
    Optional<Manifest> manifest = manifest(store, r.key());
    Path work = r.dataDir().resolveSibling(r.dataDir().getFileName() + ".restore");
    deleteTree(work);
    Files.createDirectories(work);
    Path file = work.resolve("snapshot.db");
    progress.accept(
        "fetching "
            + uri
            + manifest
                .map(m -> " (manifest: revision " + m.revision() + ")")
                .orElse(" (no manifest)"));
    SnapshotCheck.Result got;
    try (InputStream in = open(store, r.key());
        OutputStream out = Files.newOutputStream(file)) {
      got = SnapshotCheck.copy(in, out);
    } catch (Refused e) {
      deleteTree(work);
      throw e;
    } catch (IOException e) {
      // The store failed mid-download (a read timed out, the connection broke): the part fetched
      // is dropped, nothing is restored, and the message names the source.
      deleteTree(work);
      throw new Refused(
          "cannot read the source " + uri + ": the download broke off: " + e.getMessage(), e);
    }
    if (manifest.isPresent()) {
      Manifest m = manifest.get();
      if (got.size() != m.sizeBytes()) {
        throw new Refused(
            uri
                + " is "
                + got.size()
                + " bytes but its manifest says "
                + m.sizeBytes()
                + " (truncated?)",
            null);
      }
      if (!got.sha256().equals(m.sha256())) {
        throw new Refused(
            "sha256 mismatch: "
                + uri
                + " hashes to "
                + got.sha256()
                + " but its manifest says "
                + m.sha256(),
            null);
      }
    }
    if (!got.trailerMatches()) {
      throw new Refused(
          uri
              + " is not a whole etcd snapshot: its last 32 bytes are not the sha256 of the rest"
              + " (truncated or corrupted, "
              + got.size()
              + " bytes)",
          null);
    }
    long revision = tools.revision(file);
    if (!r.changeLog().isEmpty()) {
      PointInTime.Result pit =
          new PointInTime(etcd, progress)
              .replay(
                  file,
                  manifest.map(Manifest::clusterId).filter(id -> id != null && !id.isEmpty()),
                  store,
                  r.changeLog(),
                  new PointInTime.Target(r.targetRevision(), r.targetTime()),
                  tools,
                  work);
      file = pit.snapshot();
      revision = pit.revision();
    }
    Path restored = work.resolve("data");
    tools.restore(file, restored, r.member(), r.initialCluster(), r.token(), r.peerUrl());
    Files.move(restored, r.dataDir(), StandardCopyOption.ATOMIC_MOVE);
    deleteTree(work);
    progress.accept("restored revision " + revision + " from " + uri + " as " + r.member());
    return new Result(true, uri, revision, got.sha256(), "restored at " + clock.instant());
  }

  private static Optional<Manifest> manifest(SnapshotStore store, String key) throws IOException {
    try (InputStream in = store.open(Manifest.keyFor(key))) {
      return Optional.of(Manifest.read(in.readAllBytes()));
    } catch (StoreException e) {
      if (e.kind() == StoreException.Kind.NOT_FOUND) {
        return Optional.empty();
      }
      throw new Refused("cannot read the source: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new Refused(
          "the manifest beside " + store.uri(key) + " is not readable: " + e.getMessage(), e);
    }
  }

  private static InputStream open(SnapshotStore store, String key) throws Refused {
    try {
      return store.open(key);
    } catch (IOException e) {
      throw new Refused("cannot read the source: " + e.getMessage(), e);
    }
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> all = Files.walk(p)) {
      for (Path q : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
