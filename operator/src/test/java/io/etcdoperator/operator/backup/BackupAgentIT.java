package io.etcdoperator.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.model.Manifest;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.FaultyHttpProxy;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backup agent against a real etcd process and a real S3-compatible server (s3proxy on
 * loopback): what it writes is etcd's snapshot byte for byte (database, then its sha256), the
 * manifest comes last and says what is in it, and every failure (the store down mid-upload, wrong
 * credentials, a missing bucket, a member that does not answer) leaves nothing under the snapshot's
 * key.
 */
class BackupAgentIT {
  static final String BUCKET = "backups";
  static LocalEtcdCluster cluster;
  static JetcdEtcdService etcd;
  static EtcdKv kv;
  static long lastRevision;
  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    cluster = LocalEtcdCluster.builder().members(1).start();
    cluster.awaitHealthy(Duration.ofSeconds(30));
    etcd = new JetcdEtcdService();
    kv = new EtcdKv(Duration.ofSeconds(5));
    // 12 MiB of values: two parts of a multipart upload
    String value = "x".repeat(120 * 1024);
    for (int i = 0; i < 100; i++) {
      lastRevision = kv.put(cluster.member(0).clientUrl(), "k" + i, value + i);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    kv.close();
    etcd.close();
    cluster.close();
  }

  static BackupAgent.Request request(String key) {
    return new BackupAgent.Request("it/c", "c-0", cluster.member(0).clientUrl(), key);
  }

  static String sha256(byte[] b, int len) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    d.update(b, 0, len);
    return HexFormat.of().formatHex(d.digest());
  }

  /** The file is etcd's snapshot: the database, then the sha256 of the database. */
  static void assertIsSnapshot(byte[] file, Manifest m) throws Exception {
    assertThat((long) file.length).isEqualTo(m.sizeBytes());
    assertThat(sha256(file, file.length)).isEqualTo(m.sha256());
    String trailer =
        HexFormat.of().formatHex(Arrays.copyOfRange(file, file.length - 32, file.length));
    assertThat(sha256(file, file.length - 32)).isEqualTo(trailer).isEqualTo(m.databaseSha256());
    assertThat((file.length - 32) % 4096).as("bbolt pages").isZero();
  }

  @Test
  void snapshotToS3IsEtcdsSnapshotWithItsManifestLast() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3-ok"), BUCKET);
        S3Store store = store(s3, S3ProxyServer.SECRET_KEY)) {
      Manifest m = new BackupAgent(etcd, Clock.systemUTC()).run(request("p/b1.db"), store);

      byte[] file = store.open("p/b1.db").readAllBytes();
      assertIsSnapshot(file, m);
      assertThat(file.length).isGreaterThan(S3Store.PART_SIZE);
      assertThat(m.revision()).isEqualTo(lastRevision);
      assertThat(m.uri()).isEqualTo("s3://backups/p/b1.db");
      assertThat(m.clusterId())
          .isEqualTo(
              Long.toHexString(etcd.status("it/c", cluster.member(0).clientUrl()).clusterId()));
      assertThat(m.etcdVersion()).isNotBlank();
      Manifest stored = Manifest.read(store.open("p/b1.db.manifest.json").readAllBytes());
      assertThat(stored).isEqualTo(m);
    }
  }

  @Test
  void snapshotToADirectoryIsRenamedIntoPlaceThenTheManifest() throws Exception {
    Path claim = dir.resolve("claim");
    FileStore store = new FileStore(claim, "pvc://backup-claim");
    Manifest m = new BackupAgent(etcd, Clock.systemUTC()).run(request("nightly/b2.db"), store);

    assertIsSnapshot(Files.readAllBytes(claim.resolve("nightly/b2.db")), m);
    assertThat(m.uri()).isEqualTo("pvc://backup-claim/nightly/b2.db");
    assertThat(claim.resolve("nightly/b2.db.part")).doesNotExist();
    assertThat(Manifest.read(Files.readAllBytes(claim.resolve("nightly/b2.db.manifest.json"))))
        .isEqualTo(m);
  }

  @Test
  void objectStoreGoingDownMidUploadFailsAndLeavesNothingUnderTheKey() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3-down"), BUCKET);
        S3Store store = store(s3, S3ProxyServer.SECRET_KEY)) {
      AtomicLong written = new AtomicLong();
      java.util.concurrent.atomic.AtomicBoolean down =
          new java.util.concurrent.atomic.AtomicBoolean();
      SnapshotStore failing =
          new ForwardingStore(store) {
            @Override
            public Upload upload(String key) throws IOException {
              Upload real = store.upload(key);
              return new Upload() {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                  // the store goes down once the first part is on its way
                  if (written.addAndGet(len) > S3Store.PART_SIZE + 1024 * 1024
                      && down.compareAndSet(false, true)) {
                    pause(s3);
                  }
                  real.write(b, off, len);
                }

                @Override
                public void write(int b) throws IOException {
                  real.write(b);
                }

                @Override
                protected void doCommit() throws IOException {
                  real.commit();
                }

                @Override
                protected void doAbort() {
                  real.abort();
                }
              };
            }
          };
      assertThatThrownBy(
              () -> new BackupAgent(etcd, Clock.systemUTC()).run(request("down.db"), failing))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("cannot reach the object store at " + s3.endpoint())
          .satisfies(
              e ->
                  assertThat(((StoreException) e).kind())
                      .isEqualTo(StoreException.Kind.UNREACHABLE));
      s3.resume();
      assertThat(store.size("down.db")).isEmpty();
      assertThat(store.size("down.db.manifest.json")).isEmpty();
      // the next backup, with the store back, works
      Manifest m = new BackupAgent(etcd, Clock.systemUTC()).run(request("down.db"), store);
      assertIsSnapshot(store.open("down.db").readAllBytes(), m);
    }
  }

  @Test
  void aMemberThatDiesMidStreamFailsTheBackupAndLeavesNothing() throws Exception {
    // a member of its own, so that the other tests keep theirs
    try (LocalEtcdCluster other = LocalEtcdCluster.builder().members(1).start();
        S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3-member-dies"), BUCKET);
        S3Store store = store(s3, S3ProxyServer.SECRET_KEY)) {
      other.awaitHealthy(Duration.ofSeconds(30));
      String value = "y".repeat(120 * 1024);
      for (int i = 0; i < 100; i++) {
        kv.put(other.member(0).clientUrl(), "k" + i, value);
      }
      java.util.concurrent.atomic.AtomicBoolean killed =
          new java.util.concurrent.atomic.AtomicBoolean();
      SnapshotStore dying =
          new ForwardingStore(store) {
            @Override
            public Upload upload(String key) throws IOException {
              Upload real = store.upload(key);
              AtomicLong written = new AtomicLong();
              return new Upload() {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                  // the member dies (a roll, a crash) once a megabyte of its snapshot came
                  if (written.addAndGet(len) > 1024 * 1024 && killed.compareAndSet(false, true)) {
                    other.member(0).kill();
                  }
                  real.write(b, off, len);
                }

                @Override
                public void write(int b) throws IOException {
                  real.write(b);
                }

                @Override
                protected void doCommit() throws IOException {
                  real.commit();
                }

                @Override
                protected void doAbort() {
                  real.abort();
                }
              };
            }
          };
      var request =
          new BackupAgent.Request("it/other", "o-0", other.member(0).clientUrl(), "dies.db");
      // the member's failure, not the store's: the operator tries again on another member
      assertThatThrownBy(() -> new BackupAgent(etcd, Clock.systemUTC()).run(request, dying))
          .isInstanceOf(MemberFailedException.class)
          .hasMessageContaining("member o-0 (" + other.member(0).clientUrl() + ") failed the");
      assertThat(killed).isTrue();
      assertThat(store.size("dies.db")).isEmpty();
      assertThat(store.size("dies.db.manifest.json")).isEmpty();
    }
  }

  /**
   * A store that holds the agent longer than the idle timeout (a part upload to a slow store) is
   * not a stall of the member: the watchdog counts only the time spent waiting for the member's
   * data, so the snapshot completes instead of failing as the member's (which would retry it on
   * another member, each as slow).
   */
  @Test
  void timeTheOutputTakesIsNotAStallOfTheMember() throws Exception {
    java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
    java.util.concurrent.atomic.AtomicBoolean held =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.io.OutputStream slowStore =
        new java.io.OutputStream() {
          @Override
          public void write(int b) {
            sink.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            if (held.compareAndSet(false, true)) {
              try {
                Thread.sleep(2_500); // the fault itself: a store that takes 2.5 s for one write
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
              }
            }
            sink.write(b, off, len);
          }
        };
    var result =
        etcd.snapshot(
            "it/c",
            cluster.member(0).clientUrl(),
            slowStore,
            Duration.ofSeconds(1),
            Duration.ofMinutes(1));
    assertThat(held).isTrue();
    assertThat(result.sizeBytes()).isGreaterThan(12L * 1024 * 1024);
  }

  @Test
  void wrongCredentialsAreNamed() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3-creds"), BUCKET);
        S3Store store = store(s3, "not-the-secret")) {
      assertThatThrownBy(() -> new BackupAgent(etcd, Clock.systemUTC()).run(request("x.db"), store))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("refused the credentials")
          .hasMessageContaining("credentialsSecretRef");
    }
  }

  @Test
  void missingBucketIsNamed() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3-nobucket"));
        S3Store store = store(s3, S3ProxyServer.SECRET_KEY)) {
      assertThatThrownBy(() -> new BackupAgent(etcd, Clock.systemUTC()).run(request("x.db"), store))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("bucket backups does not exist");
    }
  }

  @Test
  void aMemberThatDoesNotAnswerFailsTheBackup() {
    FileStore store = new FileStore(dir.resolve("nobody"), "pvc://c");
    var nobody = new BackupAgent.Request("it/c", "c-9", "http://127.0.0.1:1", "b.db");
    assertThatThrownBy(() -> new BackupAgent(etcd, Clock.systemUTC()).run(nobody, store))
        .isInstanceOf(MemberFailedException.class)
        .hasMessageContaining("member c-9 (http://127.0.0.1:1) does not answer");
    assertThat(dir.resolve("nobody/b.db")).doesNotExist();
  }

  /**
   * An object store that answers 500 to every attempt at the second part of the upload (the client
   * tries it three times, in vain): the backup fails naming the object and what the store said, the
   * multipart upload is given up, nothing stands under the key, and with the store well again the
   * next backup works.
   */
  @Test
  void anObjectStoreAnswering500MidUploadFailsNamingItAndLeavesNothing() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3-500"), BUCKET);
        FaultyHttpProxy proxy = FaultyHttpProxy.in(s3.endpoint());
        S3Store store =
            new S3Store(
                proxy.endpoint(),
                null,
                true,
                BUCKET,
                S3ProxyServer.ACCESS_KEY,
                S3ProxyServer.SECRET_KEY)) {
      proxy.fail(
          "^PUT /backups/five-hundred\\.db\\?.*partNumber=2", FaultyHttpProxy.Fault.ERROR_500, 0);
      assertThatThrownBy(
              () -> new BackupAgent(etcd, Clock.systemUTC()).run(request("five-hundred.db"), store))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("s3://backups/five-hundred.db at " + proxy.endpoint())
          .hasMessageContaining("(HTTP 500)");
      assertThat(proxy.faulted()).isGreaterThan(0);
      assertThat(store.size("five-hundred.db")).isEmpty();
      assertThat(store.size("five-hundred.db.manifest.json")).isEmpty();
      proxy.fail("$^", FaultyHttpProxy.Fault.NONE, 0);
      Manifest m = new BackupAgent(etcd, Clock.systemUTC()).run(request("five-hundred.db"), store);
      assertIsSnapshot(store.open("five-hundred.db").readAllBytes(), m);
    }
  }

  /**
   * A claim with no room left: the file the snapshot is written to is {@code /dev/full}, whose
   * every write the kernel refuses with ENOSPC, exactly as a full file system does (a small file
   * system cannot be mounted in a test without privileges). The backup fails saying the claim is
   * full and what to do, and leaves neither the partial file nor anything under the key.
   */
  @Test
  void aFullClaimFailsSayingSoAndLeavesNothing() throws Exception {
    Path full = Path.of("/dev/full");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(full), "/dev/full is writable");
    Path claim = dir.resolve("full-claim");
    Files.createDirectories(claim.resolve("nightly"));
    Path part = claim.resolve("nightly/full.db.part");
    Files.createSymbolicLink(part, full);
    FileStore store = new FileStore(claim, "pvc://backup-claim");

    assertThatThrownBy(
            () -> new BackupAgent(etcd, Clock.systemUTC()).run(request("nightly/full.db"), store))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("the claim is full: writing pvc://backup-claim/nightly/full.db")
        .hasMessageContaining("No space left on device")
        .hasMessageContaining("delete old backups from the claim or give it more room");
    assertThat(Files.exists(part, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(claim.resolve("nightly/full.db")).doesNotExist();
    assertThat(claim.resolve("nightly/full.db.manifest.json")).doesNotExist();
  }

  static void pause(S3ProxyServer s3) {
    try {
      s3.pause();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static S3Store store(S3ProxyServer s3, String secret) {
    return new S3Store(s3.endpoint(), null, true, BUCKET, S3ProxyServer.ACCESS_KEY, secret);
  }
}
