package io.etcdoperator.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.etcd.ChangeEvent;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.model.Manifest;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.S3ProxyServer;
import io.etcdoperator.testing.WriterReport;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Continuous backup and point-in-time restore against real etcd and a real S3-compatible server: a
 * full backup, the archiver recording every change while a writer writes, the cluster's only member
 * killed (its data taken to be gone); then the recovery point is measured (acknowledged writes the
 * newest restorable point lacks), and restores to a revision in the middle, to the newest point and
 * to a time hold exactly the acknowledged writes up to it, checked against the writer's log. Every
 * chunk names the cluster it was read from; a chunk of another cluster in the log, and a target the
 * log does not reach, are refused.
 */
class ContinuousBackupIT {
  @TempDir Path dir;

  @Test
  void restoresToARevisionOrTimeHoldExactlyTheWritesUpToItAndTheRecoveryPointIsMeasured()
      throws Exception {
    EtcdTools tools = EtcdTools.in(RestoreAgentIT.toolsDir());
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(1).start();
        JetcdEtcdService etcd = new JetcdEtcdService();
        EtcdKv kv = new EtcdKv(Duration.ofSeconds(5));
        S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), "backups");
        S3Store store =
            new S3Store(
                s3.endpoint(),
                null,
                true,
                "backups",
                S3ProxyServer.ACCESS_KEY,
                S3ProxyServer.SECRET_KEY)) {
      cluster.awaitHealthy(Duration.ofSeconds(30));
      String url = cluster.member(0).clientUrl();
      WriterReport report;
      ChangeArchiver.Request archive =
          new ChangeArchiver.Request(
              "it/c", url, "test", "nightly-", "test/nightly.changes", Duration.ofSeconds(1));
      AtomicBoolean stop = new AtomicBoolean();
      Thread archiver;
      Instant middleTime;
      Manifest full;
      try (RecordingWriter w =
          RecordingWriter.builder(List.of(url))
              .rate(100)
              .maxDuration(Duration.ofMinutes(1))
              .start()) {
        await().atMost(Duration.ofSeconds(10)).until(() -> w.acknowledgedCount() > 50);
        full =
            new BackupAgent(etcd, Clock.systemUTC())
                .run(new BackupAgent.Request("it/c", "c-0", url, "test/nightly-1.db"), store);
        archiver =
            new Thread(
                () -> {
                  try {
                    new ChangeArchiver(etcd, Clock.systemUTC(), System.out::println)
                        .run(archive, store, stop::get);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "archiver");
        archiver.start();
        int before = w.acknowledgedCount();
        await().atMost(Duration.ofSeconds(20)).until(() -> w.acknowledgedCount() > before + 300);
        middleTime = Instant.now();
        int middle = w.acknowledgedCount();
        await().atMost(Duration.ofSeconds(20)).until(() -> w.acknowledgedCount() > middle + 300);
        // the majority's data is gone: the only member dies with the writer still writing
        cluster.member(0).kill();
        w.stop();
        report = w.report();
      }
      // the archiver writes what it received, then finds nothing more to read
      await().atMost(Duration.ofSeconds(10)).until(() -> newest(store) > 0);
      Thread.sleep(1500);
      stop.set(true);
      archiver.join(10_000);

      long newestPoint = newest(store);
      List<WriterReport.Write> acked = report.acknowledged();
      WriterReport.Write last = acked.get(acked.size() - 1);
      List<WriterReport.Write> lacking =
          acked.stream().filter(x -> x.revision() > newestPoint).toList();
      Duration rpo =
          lacking.isEmpty()
              ? Duration.ZERO
              : Duration.between(
                  acked.stream()
                      .filter(x -> x.revision() <= newestPoint)
                      .reduce((a, b) -> b)
                      .orElseThrow()
                      .at(),
                  last.at());
      System.out.printf(
          "recovery point: %d of %d acknowledged writes lack from the newest restorable point (revision %d"
              + " of %d), %d ms of writes at 100/s%n",
          lacking.size(), acked.size(), newestPoint, last.revision(), rpo.toMillis());

      long target = acked.get(acked.size() / 2).revision();
      assertRestored(
          cluster, etcd, kv, store, tools, "to-revision", target, Optional.empty(), acked, target);
      assertRestored(
          cluster,
          etcd,
          kv,
          store,
          tools,
          "to-newest",
          newestPoint,
          Optional.empty(),
          acked,
          newestPoint);
      long atTime =
          assertRestored(
              cluster, etcd, kv, store, tools, "to-time", 0, Optional.of(middleTime), acked, -1);
      assertThat(atTime).isLessThan(newestPoint);

      // every chunk names the cluster it was read from: the full backup's
      String clusterId = full.clusterId();
      for (String k : store.list("test/nightly.changes")) {
        try (var in = store.open(k)) {
          assertThat(ChangeChunk.decode(in.readAllBytes(), k).clusterId())
              .as(k)
              .isEqualTo(clusterId);
        }
      }
      LocalEtcdMember m = cluster.newMember("too-far");
      assertThatThrownBy(
              () ->
                  new RestoreAgent(Clock.systemUTC(), line -> {}, etcd)
                      .run(request(m, newestPoint + 1000, Optional.empty()), store, tools))
          .isInstanceOf(RestoreAgent.Refused.class)
          .hasMessageContaining("short of the target " + (newestPoint + 1000));
      // another cluster's changes in this log (a log path reused by a cluster created again under
      // the same name): a restore that would replay them over this backup is refused
      ChangeChunk foreign =
          new ChangeChunk(
              newestPoint + 1,
              newestPoint + 1,
              Instant.now(),
              Instant.now(),
              "deadbeef00c0ffee",
              List.of(
                  new ChangeEvent(
                      newestPoint + 1,
                      false,
                      "foreign".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                      "x".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                      0)));
      store.put(foreign.key("test/nightly.changes"), foreign.encode());
      LocalEtcdMember f = cluster.newMember("foreign");
      assertThatThrownBy(
              () ->
                  new RestoreAgent(Clock.systemUTC(), line -> {}, etcd)
                      .run(request(f, newestPoint + 1, Optional.empty()), store, tools))
          .isInstanceOf(RestoreAgent.Refused.class)
          .hasMessageContaining("holds changes of etcd cluster deadbeef00c0ffee")
          .hasMessageContaining("the full backup is of cluster " + clusterId);
      assertThat(f.dataDir()).doesNotExist();
    }
  }

  static RestoreAgent.Request request(LocalEtcdMember m, long revision, Optional<Instant> time) {
    return new RestoreAgent.Request(
        m.dataDir(),
        m.name(),
        m.peerUrl(),
        m.initialClusterEntry(),
        "new",
        "pitr-" + m.name(),
        "test/nightly-1.db",
        "test/nightly.changes",
        revision,
        time);
  }

  /**
   * Restores to the target, starts the member, checks every acknowledged write; returns the
   * revision.
   */
  static long assertRestored(
      LocalEtcdCluster cluster,
      JetcdEtcdService etcd,
      EtcdKv kv,
      S3Store store,
      EtcdTools tools,
      String name,
      long revision,
      Optional<Instant> time,
      List<WriterReport.Write> acked,
      long expected)
      throws Exception {
    LocalEtcdMember m = cluster.newMember(name);
    RestoreAgent.Result r =
        new RestoreAgent(Clock.systemUTC(), System.out::println, etcd)
            .run(request(m, revision, time), store, tools);
    if (expected >= 0) {
      assertThat(r.revision()).isEqualTo(expected);
    }
    m.startExisting(m.initialClusterEntry());
    await().atMost(Duration.ofSeconds(30)).until(() -> m.isHealthy(Duration.ofSeconds(1)));
    assertThat(etcd.status("it/" + name, m.clientUrl()).revision()).isEqualTo(r.revision());
    for (WriterReport.Write w : acked) {
      var entry = kv.get(m.clientUrl(), w.key(), false);
      if (w.revision() <= r.revision()) {
        assertThat(entry).as("%s: %s at %d", name, w.key(), w.revision()).isPresent();
        assertThat(entry.get().modRevision()).isEqualTo(w.revision());
      } else {
        assertThat(entry)
            .as("%s: %s at %d is after %d", name, w.key(), w.revision(), r.revision())
            .isEmpty();
      }
    }
    m.stop();
    return r.revision();
  }

  static long newest(S3Store store) throws Exception {
    long newest = 0;
    for (String k : store.list("test/nightly.changes")) {
      long[] range = ChangeChunk.range(k);
      if (range != null) {
        newest = Math.max(newest, range[1]);
      }
    }
    return newest;
  }
}
