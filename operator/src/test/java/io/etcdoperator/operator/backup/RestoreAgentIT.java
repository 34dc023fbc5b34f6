package io.etcdoperator.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.model.Manifest;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.FaultyHttpProxy;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import io.etcdoperator.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restore agent against a real backup in a real S3-compatible server, and real etcd tools: a
 * member restored from it starts as a new cluster (another cluster ID) holding every key, at the
 * revision the backup reported; and every bad source is refused, naming what is wrong, with no data
 * directory left behind (so etcd cannot start empty in its place).
 */
class RestoreAgentIT {
  static final String BUCKET = "backups";
  @TempDir static Path dir;
  static LocalEtcdCluster cluster;
  static JetcdEtcdService etcd;
  static EtcdKv kv;
  static S3ProxyServer s3;
  static S3Store store;
  static Manifest backup;
  static EtcdTools tools;
  static final List<String> KEYS = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    tools = EtcdTools.in(toolsDir());
    cluster = LocalEtcdCluster.builder().members(1).start();
    cluster.awaitHealthy(Duration.ofSeconds(30));
    etcd = new JetcdEtcdService();
    kv = new EtcdKv(Duration.ofSeconds(5));
    for (int i = 0; i < 50; i++) {
      kv.put(cluster.member(0).clientUrl(), "key-" + i, "value-" + i);
      KEYS.add("key-" + i);
    }
    s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
    store =
        new S3Store(
            s3.endpoint(), null, true, BUCKET, S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY);
    backup =
        new BackupAgent(etcd, Clock.systemUTC())
            .run(
                new BackupAgent.Request("it/c", "c-0", cluster.member(0).clientUrl(), "good.db"),
                store);
    // bad sources, made from the good one
    byte[] good = Files.readAllBytes(s3.bucketDir(BUCKET).resolve("good.db"));
    byte[] manifest = Files.readAllBytes(s3.bucketDir(BUCKET).resolve("good.db.manifest.json"));
    byte[] corrupt = good.clone();
    corrupt[good.length / 2] ^= 0x5a;
    store.put("corrupt.db", corrupt);
    store.put("corrupt.db.manifest.json", manifest);
    store.put("corrupt-no-manifest.db", corrupt);
    store.put("truncated.db", java.util.Arrays.copyOf(good, good.length - 4096));
  }

  /**
   * The tools of the etcd the tests run (scripts/ensure-etcd unpacks them beside it: 3.5's etcdutl,
   * 3.4's etcdctl).
   */
  static Path toolsDir() {
    return io.etcdoperator.testing.EtcdBinaries.bin(io.etcdoperator.testing.EtcdBinaries.DEFAULT);
  }

  @AfterAll
  static void stop() throws Exception {
    store.close();
    s3.close();
    kv.close();
    etcd.close();
    cluster.close();
  }

  RestoreAgent.Request request(LocalEtcdMember m, String key, String state) {
    return new RestoreAgent.Request(
        m.dataDir(), m.name(), m.peerUrl(), m.initialClusterEntry(), state, "restored-token", key);
  }

  @Test
  void aRestoredMemberIsANewClusterWithEveryKeyAtTheBackupsRevision() throws Exception {
    LocalEtcdMember m = cluster.newMember("restored-0");
    RestoreAgent.Result r =
        new RestoreAgent(Clock.systemUTC(), line -> {})
            .run(request(m, "good.db", "new"), store, tools);
    assertThat(r.restored()).isTrue();
    assertThat(r.sha256()).isEqualTo(backup.sha256());
    assertThat(r.revision()).isEqualTo(backup.revision());
    assertThat(m.dataDir().resolveSibling(m.dataDir().getFileName() + ".restore")).doesNotExist();
    m.startExisting(m.initialClusterEntry());
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> m.isHealthy(Duration.ofSeconds(1)));
    for (String k : KEYS) {
      assertThat(kv.get(m.clientUrl(), k, false))
          .map(e -> e.value())
          .contains("value-" + k.substring(4));
    }
    long original = etcd.status("it/c", cluster.member(0).clientUrl()).clusterId();
    long restored = etcd.status("it/r", m.clientUrl()).clusterId();
    assertThat(restored).isNotEqualTo(original);
    assertThat(etcd.status("it/r", m.clientUrl()).revision()).isEqualTo(backup.revision());

    // the pod restarts: its init container finds the data and leaves it alone
    RestoreAgent.Result again =
        new RestoreAgent(Clock.systemUTC(), line -> {})
            .run(request(m, "good.db", "new"), store, tools);
    assertThat(again.restored()).isFalse();
    assertThat(again.why()).contains("has data");
  }

  @Test
  void aMemberJoiningAFormedClusterStartsEmpty() throws Exception {
    LocalEtcdMember m = cluster.newMember("joining-0");
    RestoreAgent.Result r =
        new RestoreAgent(Clock.systemUTC(), line -> {})
            .run(request(m, "good.db", "existing"), store, tools);
    assertThat(r.restored()).isFalse();
    assertThat(m.dataDir()).doesNotExist();
  }

  void assertRefused(String key, String... says) throws Exception {
    LocalEtcdMember m = cluster.newMember("refused-" + key.replace('.', '-'));
    assertThatThrownBy(
            () ->
                new RestoreAgent(Clock.systemUTC(), line -> {})
                    .run(request(m, key, "new"), store, tools))
        .isInstanceOf(RestoreAgent.Refused.class)
        .hasMessageContainingAll(says);
    assertThat(m.dataDir()).doesNotExist();
  }

  /**
   * The store answers 500 to every read of the snapshot (s3proxy behind {@link FaultyHttpProxy}):
   * refused, naming the source and the answer, after the SDK's own retries; nothing left where the
   * member's data goes.
   */
  @Test
  void aStoreThatAnswers500IsRefusedNamingIt() throws Exception {
    try (FaultyHttpProxy proxy = FaultyHttpProxy.in(s3.endpoint());
        S3Store behind =
            new S3Store(
                proxy.endpoint(),
                null,
                true,
                BUCKET,
                S3ProxyServer.ACCESS_KEY,
                S3ProxyServer.SECRET_KEY,
                Duration.ofSeconds(5))) {
      proxy.fail("^GET /backups/good\\.db[ ?]", FaultyHttpProxy.Fault.ERROR_500, 0);
      LocalEtcdMember m = cluster.newMember("refused-500");
      assertThatThrownBy(
              () ->
                  new RestoreAgent(Clock.systemUTC(), line -> {})
                      .run(request(m, "good.db", "new"), behind, tools))
          .isInstanceOf(RestoreAgent.Refused.class)
          .hasMessageContaining("cannot read the source")
          .hasMessageContaining("500");
      assertThat(proxy.faulted()).isPositive();
      assertThat(m.dataDir()).doesNotExist();
    }
  }

  /**
   * The store sends the first half of the snapshot and then nothing, the connection left open: the
   * restore fails once the socket timeout passes (5 s here, 60 s in the product), refused naming
   * the source; nothing left where the member's data goes, so etcd cannot start on half a snapshot
   * or empty in its place.
   */
  @Test
  void aStoreThatStallsMidDownloadIsRefusedAfterTheTimeout() throws Exception {
    try (FaultyHttpProxy proxy = FaultyHttpProxy.in(s3.endpoint());
        S3Store behind =
            new S3Store(
                proxy.endpoint(),
                null,
                true,
                BUCKET,
                S3ProxyServer.ACCESS_KEY,
                S3ProxyServer.SECRET_KEY,
                Duration.ofSeconds(5))) {
      proxy.fail(
          "^GET /backups/good\\.db[ ?]", FaultyHttpProxy.Fault.STALL, (int) backup.sizeBytes() / 2);
      LocalEtcdMember m = cluster.newMember("refused-stall");
      long start = System.nanoTime();
      assertThatThrownBy(
              () ->
                  new RestoreAgent(Clock.systemUTC(), line -> {})
                      .run(request(m, "good.db", "new"), behind, tools))
          .isInstanceOf(RestoreAgent.Refused.class)
          .hasMessageContaining("cannot read the source s3://backups/good.db")
          .hasMessageContaining("broke off");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
      assertThat(proxy.faulted()).isPositive();
      assertThat(m.dataDir()).doesNotExist();
      assertThat(m.dataDir().resolveSibling(m.dataDir().getFileName() + ".restore"))
          .as("the part fetched is dropped")
          .doesNotExist();
    }
  }

  @Test
  void aMissingObjectIsRefused() throws Exception {
    assertRefused(
        "nothing-here.db",
        "cannot read the source",
        "s3://backups/nothing-here.db",
        "does not exist");
  }

  @Test
  void aCorruptedObjectIsRefusedNamingTheHashMismatch() throws Exception {
    assertRefused("corrupt.db", "sha256 mismatch", "s3://backups/corrupt.db", backup.sha256());
  }

  @Test
  void aCorruptedObjectWithoutManifestIsRefusedByEtcdsOwnHash() throws Exception {
    assertRefused("corrupt-no-manifest.db", "not a whole etcd snapshot");
  }

  @Test
  void aTruncatedObjectIsRefused() throws Exception {
    assertRefused("truncated.db", "not a whole etcd snapshot", "truncated");
  }

  @Test
  void wrongCredentialsAreRefusedNamingThem() throws Exception {
    try (S3Store wrong =
        new S3Store(s3.endpoint(), null, true, BUCKET, S3ProxyServer.ACCESS_KEY, "wrong")) {
      LocalEtcdMember m = cluster.newMember("refused-creds");
      assertThatThrownBy(
              () ->
                  new RestoreAgent(Clock.systemUTC(), line -> {})
                      .run(request(m, "good.db", "new"), wrong, tools))
          .isInstanceOf(RestoreAgent.Refused.class)
          .hasMessageContaining("refused the credentials");
      assertThat(m.dataDir()).doesNotExist();
    }
  }

  @Test
  void aClaimSourceWorksToo() throws Exception {
    Path claim = dir.resolve("claim");
    Files.createDirectories(claim);
    Files.write(
        claim.resolve("snapshot.db"),
        Files.readAllBytes(s3.bucketDir(BUCKET).resolve("good.db")),
        StandardOpenOption.CREATE);
    LocalEtcdMember m = cluster.newMember("from-claim-0");
    RestoreAgent.Result r =
        new RestoreAgent(Clock.systemUTC(), line -> {})
            .run(
                request(m, "snapshot.db", "new"),
                new FileStore(claim, "pvc://restore-claim"),
                tools);
    assertThat(r.restored()).isTrue();
    assertThat(r.uri()).isEqualTo("pvc://restore-claim/snapshot.db");
    assertThat(m.dataDir().resolve("member")).isDirectory();
  }
}
