package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSchedule;
import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.S3ProxyServer;
import io.etcdoperator.testing.WriterReport;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups end to end: the operator in the sandbox, a real 3-member etcd cluster, a real
 * S3-compatible server (s3proxy on loopback) and a claim; the agent pods run the operator's own
 * classes. Every backup is checked against the bytes it wrote, every failure against what it says
 * and what it left behind, and a writer through the client Service checks the cluster lost nothing
 * while it was backed up.
 */
class BackupE2EIT {
  static final String BUCKET = "backups";

  /**
   * How long a backup may take to finish here. Two full runs under load had a backup not finished
   * after 90 s (each passes alone in seconds); on a timeout the test now prints what the backup,
   * its agent pod and the cluster said, to find out why.
   */
  static final Duration BACKUP = Duration.ofMinutes(3);

  @TempDir static Path dir;
  static S3ProxyServer s3;
  static E2E e2e;
  static Cluster test;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
    e2e =
        E2E.start(
            SandboxConfig.defaults(dir.resolve("sandbox"))
                .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5)));
    e2e.apply(Cluster.THREE_MEMBERS);
    test = new Cluster(e2e, "test");
    e2e.awaitReady("test", Duration.ofMinutes(2));
    secret("s3-credentials", S3ProxyServer.SECRET_KEY);
    secret("s3-wrong", "not-the-secret");
    claim("backup-claim", "ReadWriteOnce");
  }

  @AfterAll
  static void stop() throws Exception {
    if (test != null) {
      test.close();
    }
    if (e2e != null) {
      e2e.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  static void secret(String name, String secretKey) {
    e2e.createS3Credentials(name, secretKey);
  }

  static String s3Backup(String name, String secret) {
    return """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdBackup
        metadata:
          name: %s
          namespace: default
        spec:
          clusterRef:
            name: test
          destination:
            s3:
              endpoint: %s
              bucket: backups
              key: test
              forcePathStyle: true
              credentialsSecretRef:
                name: %s
        """
        .formatted(name, s3.endpoint(), secret);
  }

  static EtcdBackup apply(String yaml) {
    EtcdBackup b = e2e.client().getKubernetesSerialization().unmarshal(yaml, EtcdBackup.class);
    return e2e.client().resource(b).create();
  }

  static EtcdBackupStatus status(String name) {
    EtcdBackup b =
        e2e.client().resources(EtcdBackup.class).inNamespace(E2E.NS).withName(name).get();
    return b == null ? null : b.getStatus();
  }

  static EtcdBackupStatus awaitPhase(String name, String phase) {
    try {
      await()
          .atMost(BACKUP)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  status(name) != null
                      && (phase.equals(status(name).getPhase()) || finished(status(name))));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      EtcdBackupStatus s = status(name);
      var pod =
          e2e.client()
              .pods()
              .inNamespace(E2E.NS)
              .withName(io.etcdoperator.operator.model.Names.backupPod(name))
              .get();
      throw new AssertionError(
          name
              + " not "
              + phase
              + " after "
              + BACKUP
              + ": status "
              + (s == null ? "none" : s.getPhase() + " " + s.getConditions())
              + "; agent pod "
              + (pod == null ? "none" : pod.getStatus())
              + "; cluster "
              + e2e.status("test").getConditions()
              + " members "
              + e2e.status("test").getMembers(),
          e);
    }
    EtcdBackupStatus s = status(name);
    assertThat(s.getPhase()).as("%s: %s", name, s.getConditions()).isEqualTo(phase);
    return s;
  }

  static boolean finished(EtcdBackupStatus s) {
    return "Complete".equals(s.getPhase()) || "Failed".equals(s.getPhase());
  }

  static Condition condition(EtcdBackupStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  static String sha256(Path file) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  static Path s3Object(String key) {
    return s3.bucketDir(BUCKET).resolve(key);
  }

  @Test
  void backupToS3IsEtcdsSnapshotTakenFromAFollowerAndTheClusterLosesNothing() throws Exception {
    String leader = test.status().getLeader();
    WriterReport report;
    try (RecordingWriter w = test.writer(Duration.ofMinutes(2))) {
      apply(s3Backup("to-s3", "s3-credentials"));
      EtcdBackupStatus s = awaitPhase("to-s3", "Complete");
      w.stop();
      report = w.report();
      var snap = s.getSnapshot();
      assertThat(snap.getUri()).isEqualTo("s3://backups/test/to-s3.db");
      assertThat(snap.getMember()).startsWith("test-").isNotEqualTo(leader);
      assertThat(snap.getClusterID()).isEqualTo(test.clusterId());
      assertThat(snap.getRevision()).isPositive();
      assertThat(snap.getEtcdVersion()).isNotBlank();
      assertThat(snap.getChecksum()).isEqualTo("sha256:" + sha256(s3Object("test/to-s3.db")));
      assertThat(Files.size(s3Object("test/to-s3.db"))).isEqualTo(snap.getSizeBytes());
      assertThat(s3Object("test/to-s3.db.manifest.json")).exists();
      assertThat(s.getDuration()).endsWith("s");
      assertThat(condition(s, "Started").getStatus()).isEqualTo("True");
      assertThat(condition(s, "Complete").getStatus()).isEqualTo("True");
      assertThat(condition(s, "Failed").getStatus()).isEqualTo("False");
    }
    assertThat(report.ok()).as(report.toString()).isTrue();
    assertThat(e2e.ready("test")).isTrue();
  }

  @Test
  void backupToAClaimIsRenamedIntoPlaceWithItsManifest() throws Exception {
    apply(
        """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdBackup
        metadata:
          name: to-claim
          namespace: default
        spec:
          clusterRef:
            name: test
          destination:
            pvc:
              claimName: backup-claim
              subPath: nightly
        """);
    EtcdBackupStatus s = awaitPhase("to-claim", "Complete");
    assertThat(s.getSnapshot().getUri()).isEqualTo("pvc://backup-claim/nightly/to-claim.db");
    Path claim = claimDir("backup-claim");
    assertThat(s.getSnapshot().getChecksum())
        .isEqualTo("sha256:" + sha256(claim.resolve("nightly/to-claim.db")));
    assertThat(claim.resolve("nightly/to-claim.db.manifest.json")).exists();
    assertThat(claim.resolve("nightly/to-claim.db.part")).doesNotExist();
  }

  /**
   * With a schedule naming the cluster, an upgrade waits for a backup to the schedule's
   * destination: a failed one holds it (nothing restarts, status names the backup and the ways on),
   * deleting it takes it again, and the member restarts onto 3.5 only once it is Complete. Scaling
   * to 0 is backed up the same way: the member runs until its backup is Complete.
   */
  @Test
  void anUpgradeAndAScaleToZeroWaitForABackupAndAFailedOneHoldsTheUpgrade() throws Exception {
    String name = "upgrading";
    e2e.apply(UpgradeE2EIT.manifest(name, 1, UpgradeE2EIT.V34));
    Cluster c = new Cluster(e2e, name);
    c.awaitConverged(1, 1, Duration.ofMinutes(2));
    EtcdBackupSchedule schedule =
        e2e.client()
            .getKubernetesSerialization()
            .unmarshal(
                """
                apiVersion: etcd.aenix.io/v1alpha1
                kind: EtcdBackupSchedule
                metadata:
                  name: upgrading-yearly
                  namespace: default
                spec:
                  clusterRef:
                    name: upgrading
                  schedule: "0 0 1 1 *"
                  destination:
                    s3:
                      endpoint: %s
                      bucket: backups
                      key: upgrading
                      forcePathStyle: true
                      credentialsSecretRef:
                        name: s3-wrong
                """
                    .formatted(s3.endpoint()),
                EtcdBackupSchedule.class);
    e2e.client().resource(schedule).create();
    String pod = name + "-0";
    String uid = e2e.client().pods().inNamespace(E2E.NS).withName(pod).get().getMetadata().getUid();

    long generation = c.patchSpec(UpgradeE2EIT.image(UpgradeE2EIT.V35));
    String backup = name + "-before-upgrade-3-5-30-g" + generation;
    EtcdBackupStatus failed = awaitPhase(backup, "Failed");
    assertThat(condition(failed, "Failed").getMessage()).contains("refused the credentials");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "True/BackupBeforeChangeFailed".equals(e2e.condition(name, "Degraded")));
    assertThat(E2E.condition(c.status(), "Degraded").orElseThrow().getMessage())
        .startsWith("EtcdBackup " + backup + ", taken before the upgrade to etcd 3.5.30, failed")
        .contains("delete EtcdBackup " + backup, "spec.backupBeforeChanges: BestEffort");
    // Held: several reconciles on, the member has not restarted and the template is the old one.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                uid.equals(
                    e2e.client()
                        .pods()
                        .inNamespace(E2E.NS)
                        .withName(pod)
                        .get()
                        .getMetadata()
                        .getUid()));
    assertThat(
            e2e.client()
                .apps()
                .statefulSets()
                .inNamespace(E2E.NS)
                .withName(name)
                .get()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getImage())
        .isEqualTo(UpgradeE2EIT.V34);

    // The way on: right credentials, the failed backup deleted; it is taken again, then the roll.
    e2e.client()
        .resources(EtcdBackupSchedule.class)
        .inNamespace(E2E.NS)
        .withName("upgrading-yearly")
        .edit(
            s -> {
              s.getSpec()
                  .getDestination()
                  .getS3()
                  .getCredentialsSecretRef()
                  .setName("s3-credentials");
              return s;
            });
    var backups = e2e.client().resources(EtcdBackup.class).inNamespace(E2E.NS);
    String failedUid = backups.withName(backup).get().getMetadata().getUid();
    backups.withName(backup).delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              EtcdBackup b = backups.withName(backup).get();
              return b != null && !b.getMetadata().getUid().equals(failedUid);
            });
    awaitPhase(backup, "Complete");
    c.awaitConverged(generation, 1, Duration.ofMinutes(3));
    Pod upgraded = e2e.client().pods().inNamespace(E2E.NS).withName(pod).get();
    assertThat(upgraded.getMetadata().getUid()).isNotEqualTo(uid);
    assertThat(java.time.Instant.parse(upgraded.getMetadata().getCreationTimestamp()))
        .as("the member restarted after its backup was complete")
        .isAfterOrEqualTo(
            java.time.Instant.parse(status(backup).getCompletionTime())
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    assertThat(c.status().getMembers().get(0).getVersion()).isEqualTo("3.5.30");
    assertThat(s3Object("upgrading/" + backup + ".db")).exists();

    // Scaling to 0: the member runs until the backup before it is Complete.
    long zero = c.scale(0);
    String hibernation = name + "-before-hibernation-g" + zero;
    java.util.concurrent.atomic.AtomicBoolean stoppedEarly =
        new java.util.concurrent.atomic.AtomicBoolean();
    await()
        .atMost(BACKUP)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              EtcdBackupStatus s = status(hibernation);
              boolean complete = s != null && "Complete".equals(s.getPhase());
              Pod p = e2e.client().pods().inNamespace(E2E.NS).withName(pod).get();
              if (!complete && (p == null || p.getMetadata().getDeletionTimestamp() != null)) {
                stoppedEarly.set(true);
              }
              return complete;
            });
    assertThat(stoppedEarly).as("the member stopped before its backup was complete").isFalse();
    await()
        .atMost(Duration.ofMinutes(1))
        .until(() -> "False/Hibernated".equals(e2e.condition(name, "Ready")));
    assertThat(
            e2e
                .client()
                .resources(EtcdBackup.class)
                .inNamespace(E2E.NS)
                .withLabel(Names.BEFORE_CHANGE_LABEL)
                .list()
                .getItems()
                .stream()
                .map(b -> b.getMetadata().getName())
                .sorted()
                .toList())
        .containsExactly(hibernation, backup);
    e2e.client().resource(schedule).delete();
  }

  @Test
  void wrongCredentialsFailNamingThem() {
    apply(s3Backup("wrong-creds", "s3-wrong"));
    EtcdBackupStatus s = awaitPhase("wrong-creds", "Failed");
    assertThat(condition(s, "Failed").getMessage())
        .contains("refused the credentials", "credentialsSecretRef");
    assertThat(s3Object("test/wrong-creds.db")).doesNotExist();
  }

  /**
   * A backup whose data cannot be deleted (its store now refuses the credentials) is not let go
   * with its data left behind unsaid: it stays, its status says why and the two ways on, and
   * removing the annotation lets it go with the data kept.
   */
  @Test
  void aBackupWhoseDataCannotBeDeletedSaysWhyAndGoesWhenTheAnnotationIs() {
    secret("s3-revoked", S3ProxyServer.SECRET_KEY);
    apply(s3Backup("undeletable", "s3-revoked"));
    awaitPhase("undeletable", "Complete");
    var backups = e2e.client().resources(EtcdBackup.class).inNamespace(E2E.NS);
    backups
        .withName("undeletable")
        .edit(
            b -> {
              Map<String, String> a = new java.util.HashMap<>();
              if (b.getMetadata().getAnnotations() != null) {
                a.putAll(b.getMetadata().getAnnotations());
              }
              a.put(Names.DELETE_DATA_ANNOTATION, "true");
              b.getMetadata().setAnnotations(a);
              return b;
            });
    e2e.client()
        .secrets()
        .inNamespace(E2E.NS)
        .withName("s3-revoked")
        .edit(
            x -> {
              x.setData(null);
              x.setStringData(
                  Map.of(
                      "AWS_ACCESS_KEY_ID",
                      S3ProxyServer.ACCESS_KEY,
                      "AWS_SECRET_ACCESS_KEY",
                      "revoked"));
              return x;
            });
    backups.withName("undeletable").delete();
    await()
        .atMost(BACKUP)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                status("undeletable").getConditions().stream()
                    .anyMatch(
                        c ->
                            c.getType().equals("DataDeleted")
                                && c.getStatus().equals("False")
                                && c.getMessage().contains("refused the credentials")
                                && c.getMessage().contains(Names.DELETE_DATA_ANNOTATION)));
    assertThat(backups.withName("undeletable").get()).isNotNull();
    assertThat(s3Object("test/undeletable.db")).exists();
    backups
        .withName("undeletable")
        .edit(
            b -> {
              b.getMetadata().getAnnotations().remove(Names.DELETE_DATA_ANNOTATION);
              return b;
            });
    await().atMost(BACKUP).until(() -> backups.withName("undeletable").get() == null);
    assertThat(s3Object("test/undeletable.db")).exists();
    assertThat(s3Object("test/undeletable.db.manifest.json")).exists();
  }

  @Test
  void aMissingSecretFailsNamingIt() {
    apply(s3Backup("no-secret", "no-such-secret"));
    EtcdBackupStatus s = awaitPhase("no-secret", "Failed");
    assertThat(condition(s, "Failed").getReason()).isEqualTo("CreateContainerConfigError");
    assertThat(condition(s, "Failed").getMessage()).contains("no-such-secret");
  }

  @Test
  void objectStoreDownFailsWithTheReasonAndTheNextBackupWorks() throws Exception {
    s3.pause();
    try {
      apply(s3Backup("store-down", "s3-credentials"));
      EtcdBackupStatus s = awaitPhase("store-down", "Failed");
      assertThat(condition(s, "Failed").getMessage())
          .contains("cannot reach the object store at " + s3.endpoint());
      assertThat(e2e.ready("test")).isTrue();
    } finally {
      s3.resume();
    }
    apply(s3Backup("store-back", "s3-credentials"));
    awaitPhase("store-back", "Complete");
  }

  @Test
  void operatorKilledMidBackupThenBackCompletesIt() throws Exception {
    apply(s3Backup("operator-away", "s3-credentials"));
    awaitPhase("operator-away", "Started");
    e2e.sandbox().faults().stopOperator();
    try {
      await()
          .atMost(BACKUP)
          .until(() -> "Succeeded".equals(podPhase(Names.backupPod("operator-away"))));
      assertThat(status("operator-away").getPhase()).isEqualTo("Started");
    } finally {
      e2e.sandbox().faults().startOperator();
    }
    EtcdBackupStatus s = awaitPhase("operator-away", "Complete");
    assertThat(s3Object("test/operator-away.db")).exists();
  }

  @Test
  void agentKilledWhileItsStreamIsOpenIsFailedAndLeavesNothing() throws Exception {
    assumeTrue(Boolean.getBoolean("long.all.cases"), "a case beyond one per feature: -Plong");
    apply(s3Backup("agent-killed", "s3-credentials"));
    String pod = Names.backupPod("agent-killed");
    // the agent says which member it streams from just before it opens the stream
    await()
        .atMost(BACKUP)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> log(pod).contains("streaming the snapshot"));
    String member =
        log(pod)
            .replaceAll("(?s).*streaming the snapshot of default/test from (test-[0-9]+).*", "$1");
    e2e.sandbox().faults().freeze(E2E.NS, member);
    try {
      e2e.sandbox().faults().kill(E2E.NS, pod, "backup-agent");
      EtcdBackupStatus s = awaitPhase("agent-killed", "Failed");
      assertThat(condition(s, "Failed").getReason()).isEqualTo("AgentFailed");
    } finally {
      e2e.sandbox().faults().thaw(E2E.NS, member);
    }
    // the manifest comes last: without it nothing the agent wrote counts (the snapshot itself may
    // be whole when the kill came between its commit and the manifest)
    assertThat(s3Object("test/agent-killed.db.manifest.json")).doesNotExist();
    assertThat(status("agent-killed").getPhase()).isEqualTo("Failed");
  }

  /**
   * The member the agent was started for stops answering (frozen, as a member whose node hangs)
   * before the agent reaches it: the agent fails naming it with the member's exit code, and the
   * operator starts a second attempt on a member that is healthy then, which completes. Without the
   * retry the backup ends Failed (robustness seed 31360: a wipe of the member mid-backup). {@code
   * -Plong} only, as the agent killed mid-stream: README's command keeps the operator killed
   * mid-backup and the robustness suite's backup action under faults.
   */
  @Test
  void aMemberThatFailsTheAgentIsLeftForAnotherAndTheBackupCompletes() throws Exception {
    assumeTrue(Boolean.getBoolean("long.all.cases"), "a case beyond one per feature: -Plong");
    apply(s3Backup("member-fails", "s3-credentials"));
    String pod = Names.backupPod("member-fails");
    // the member is in the pod's arguments; the agent's JVM takes a second to start
    String member =
        await()
            .atMost(BACKUP)
            .pollInterval(Duration.ofMillis(10))
            .until(
                () -> {
                  var p = e2e.client().pods().inNamespace(E2E.NS).withName(pod).get();
                  return p == null
                      ? ""
                      : p.getSpec().getContainers().get(0).getArgs().stream()
                          .filter(a -> a.startsWith("--member="))
                          .map(a -> a.substring("--member=".length()))
                          .findFirst()
                          .orElse("");
                },
                m -> !m.isEmpty());
    e2e.sandbox().faults().freeze(E2E.NS, member);
    EtcdBackupStatus s;
    try {
      s = awaitPhase("member-fails", "Complete");
    } finally {
      e2e.sandbox().faults().thaw(E2E.NS, member);
    }
    assertThat(s.getAttempts()).isEqualTo(2);
    assertThat(s.getSnapshot().getMember()).isNotEqualTo(member);
    assertThat(s.getNextAttemptTime()).isNull();
    assertThat(s3Object("test/member-fails.db.manifest.json")).exists();
    e2e.awaitReady("test", Duration.ofMinutes(1));
  }

  @Test
  void scheduleCreatesBackupsThatTakeTheirDataAlongWhenDeleted() throws Exception {
    EtcdBackupSchedule schedule =
        e2e.client()
            .getKubernetesSerialization()
            .unmarshal(
                """
                apiVersion: etcd.aenix.io/v1alpha1
                kind: EtcdBackupSchedule
                metadata:
                  name: every-minute
                  namespace: default
                spec:
                  clusterRef:
                    name: test
                  schedule: "* * * * *"
                  destination:
                    pvc:
                      claimName: backup-claim
                      subPath: scheduled
                """,
                EtcdBackupSchedule.class);
    e2e.client().resource(schedule).create();
    // The schedule's status names its newest complete backup: the first one, unless a slow run
    // saw the next minute's complete too (then that one is taken).
    String name;
    try {
      name =
          await()
              .atMost(Duration.ofSeconds(150))
              .pollInterval(Duration.ofMillis(250))
              .until(
                  () -> {
                    EtcdBackupSchedule s =
                        e2e.client()
                            .resources(EtcdBackupSchedule.class)
                            .inNamespace(E2E.NS)
                            .withName("every-minute")
                            .get();
                    String last =
                        s.getStatus() == null ? null : s.getStatus().getLastSuccessfulBackup();
                    boolean complete =
                        last != null
                            && scheduled()
                                .anyMatch(
                                    b ->
                                        b.getMetadata().getName().equals(last)
                                            && b.getStatus() != null
                                            && "Complete".equals(b.getStatus().getPhase()));
                    return complete ? last : null;
                  },
                  java.util.Objects::nonNull);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "no complete scheduled backup named by the schedule's status within 150 s: schedule "
              + json(
                  e2e.client()
                      .resources(EtcdBackupSchedule.class)
                      .inNamespace(E2E.NS)
                      .withName("every-minute")
                      .get()
                      .getStatus())
              + "; backups "
              + scheduled()
                  .map(b -> b.getMetadata().getName() + " " + json(b.getStatus()))
                  .toList(),
          e);
    }
    EtcdBackup first =
        scheduled().filter(b -> b.getMetadata().getName().equals(name)).findFirst().orElseThrow();
    assertThat(name).matches("every-minute-[0-9]{12}");
    Path file = claimDir("backup-claim").resolve("scheduled/" + name + ".db");
    assertThat(file).exists();
    e2e.client()
        .resources(EtcdBackupSchedule.class)
        .inNamespace(E2E.NS)
        .withName("every-minute")
        .delete();
    e2e.client().resource(first).delete();
    await()
        .atMost(BACKUP)
        .until(
            () ->
                e2e.client().resources(EtcdBackup.class).inNamespace(E2E.NS).withName(name).get()
                    == null);
    assertThat(file).doesNotExist();
    assertThat(file.resolveSibling(name + ".db.manifest.json")).doesNotExist();
  }

  static String restoredCluster(String name, int replicas, String key) {
    return """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdCluster
        metadata:
          name: %s
          namespace: default
        spec:
          replicas: %d
          bootstrap:
            restore:
              source:
                s3:
                  endpoint: %s
                  bucket: backups
                  key: %s
                  forcePathStyle: true
                  credentialsSecretRef:
                    name: s3-credentials
        """
        .formatted(name, replicas, s3.endpoint(), key);
  }

  @Test
  void restoreIntoANewClusterHoldsExactlyTheAcknowledgedWritesUpToItsRevision() throws Exception {
    WriterReport report;
    EtcdBackupStatus backup;
    try (RecordingWriter w = test.writer(Duration.ofMinutes(3))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> w.acknowledgedCount() > 30);
      apply(s3Backup("for-restore", "s3-credentials"));
      backup = awaitPhase("for-restore", "Complete");
      int after = w.acknowledgedCount();
      await().atMost(Duration.ofSeconds(30)).until(() -> w.acknowledgedCount() > after + 20);
      w.stop();
      report = w.report();
    }
    assertThat(report.ok()).as(report.toString()).isTrue();
    e2e.apply(restoredCluster("restored", 3, "test/for-restore.db"));
    e2e.awaitReady("restored", Duration.ofMinutes(3));
    var restore = e2e.status("restored").getRestore();
    assertThat(restore.getSource()).isEqualTo("s3://backups/test/for-restore.db");
    assertThat(restore.getChecksum()).isEqualTo(backup.getSnapshot().getChecksum());
    assertThat(restore.getRevision()).isGreaterThanOrEqualTo(backup.getSnapshot().getRevision());
    try (Cluster restored = new Cluster(e2e, "restored");
        io.etcdoperator.testing.EtcdKv kv =
            new io.etcdoperator.testing.EtcdKv(Duration.ofSeconds(5))) {
      assertThat(restored.clusterId()).isNotEqualTo(test.clusterId());
      assertThat(restored.memberList().orElseThrow().members())
          .extracting(m -> m.name())
          .containsExactlyInAnyOrder("restored-0", "restored-1", "restored-2");
      String url = Names.clientUrl(E2E.NS, "restored", 0);
      int present = 0;
      for (WriterReport.Write write : report.acknowledged()) {
        var entry = kv.get(url, write.key(), false);
        if (write.revision() <= restore.getRevision()) {
          assertThat(entry).as("%s at revision %d", write.key(), write.revision()).isPresent();
          assertThat(entry.get().modRevision()).isEqualTo(write.revision());
          present++;
        } else {
          assertThat(entry).as("%s written after the snapshot", write.key()).isEmpty();
        }
      }
      assertThat(present).isGreaterThan(30).isLessThan(report.acknowledged().size());
    }
    e2e.cluster("restored").delete();
  }

  static String claimRestoredCluster(String name, int replicas, String claim, String subPath) {
    return """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdCluster
        metadata:
          name: %s
          namespace: default
        spec:
          replicas: %d
          bootstrap:
            restore:
              source:
                pvc:
                  claimName: %s
                  subPath: %s
        """
        .formatted(name, replicas, claim, subPath);
  }

  static void claim(String name, String accessMode) {
    e2e.createClaim(name, accessMode);
  }

  /**
   * A restore from a claim: every member's pod mounts it. From a ReadWriteMany claim, 3 members
   * restore and hold the backup's keys. From a ReadWriteOnce claim, 3 members are refused naming
   * the field before anything is created (on a real cluster the pods on other nodes would wait on a
   * Multi-Attach error forever); one member restores, its scale-up to 3 is held while
   * spec.bootstrap.restore names the claim, and goes on once that is removed.
   */
  @Test
  void aRestoreFromAClaimNeedsAClaimSeveralNodesCanMount() throws Exception {
    claim("shared-claim", "ReadWriteMany");
    apply(
        """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdBackup
        metadata:
          name: to-shared
          namespace: default
        spec:
          clusterRef:
            name: test
          destination:
            pvc:
              claimName: shared-claim
              subPath: snapshots
        """);
    EtcdBackupStatus shared = awaitPhase("to-shared", "Complete");
    apply(
        """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdBackup
        metadata:
          name: to-single
          namespace: default
        spec:
          clusterRef:
            name: test
          destination:
            pvc:
              claimName: backup-claim
              subPath: single
        """);
    awaitPhase("to-single", "Complete");

    // ReadWriteMany: 3 members restore from it.
    e2e.apply(claimRestoredCluster("from-shared", 3, "shared-claim", "snapshots/to-shared.db"));
    e2e.awaitReady("from-shared", Duration.ofMinutes(3));
    assertThat(e2e.status("from-shared").getRestore().getChecksum())
        .isEqualTo(shared.getSnapshot().getChecksum());

    // ReadWriteOnce, 3 members: refused by the field, nothing created.
    e2e.apply(claimRestoredCluster("from-single", 3, "backup-claim", "single/to-single.db"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/RestoreSourceUnusable".equals(e2e.condition("from-single", "Ready")));
    assertThat(E2E.condition(e2e.status("from-single"), "Ready").orElseThrow().getMessage())
        .startsWith(
            "spec.bootstrap.restore.source.pvc.claimName: claim backup-claim is ReadWriteOnce,"
                + " so only one node can mount it");
    assertThat(e2e.client().apps().statefulSets().inNamespace(E2E.NS).withName("from-single").get())
        .isNull();

    // One member restores; the scale-up to 3 waits for spec.bootstrap.restore to go.
    Cluster single = new Cluster(e2e, "from-single");
    long one = single.scale(1);
    single.awaitConverged(one, 1, Duration.ofMinutes(2));
    long three = single.scale(3);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                "True/RestoreSourceUnusable".equals(e2e.condition("from-single", "Degraded"))
                    && e2e.status("from-single").getObservedGeneration() == three);
    assertThat(single.podNames(true)).containsExactly("from-single-0");
    long without = single.patchSpec("{\"bootstrap\":null}");
    single.awaitConverged(without, 3, Duration.ofMinutes(3));
    for (Pod p : single.pods()) {
      assertThat(p.getSpec().getVolumes())
          .as("%s mounts no restore claim", p.getMetadata().getName())
          .noneMatch(
              v ->
                  v.getPersistentVolumeClaim() != null
                      && v.getPersistentVolumeClaim().getClaimName().equals("backup-claim"));
    }
    e2e.cluster("from-shared").delete();
    e2e.cluster("from-single").delete();
  }

  @Test
  void aCorruptedSnapshotIsRefusedNamingTheHashMismatchAndNoEmptyClusterStarts() throws Exception {
    apply(s3Backup("for-corrupt", "s3-credentials"));
    awaitPhase("for-corrupt", "Complete");
    byte[] file = Files.readAllBytes(s3Object("test/for-corrupt.db"));
    file[file.length / 3] ^= 0x33;
    try (var store =
        new io.etcdoperator.operator.backup.S3Store(
            s3.endpoint(),
            null,
            true,
            BUCKET,
            S3ProxyServer.ACCESS_KEY,
            S3ProxyServer.SECRET_KEY)) {
      store.put("test/corrupt.db", file);
      store.put(
          "test/corrupt.db.manifest.json",
          Files.readAllBytes(s3Object("test/for-corrupt.db.manifest.json")));
    }
    e2e.apply(restoredCluster("refused", 1, "test/corrupt.db"));
    await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> "False/RestoreFailed".equals(e2e.condition("refused", "Ready")));
    String message = E2E.condition(e2e.status("refused"), "Ready").orElseThrow().getMessage();
    assertThat(message).contains("refused-0", "sha256 mismatch", "s3://backups/test/corrupt.db");
    Pod pod = e2e.client().pods().inNamespace(E2E.NS).withName("refused-0").get();
    var containers = pod.getStatus().getContainerStatuses();
    assertThat(
            containers == null
                ? List.<io.fabric8.kubernetes.api.model.ContainerStatus>of()
                : containers)
        .allSatisfy(c -> assertThat(c.getState().getRunning()).as("etcd never started").isNull());
    assertThat(e2e.status("refused").getClusterID()).isNull();
    e2e.cluster("refused").delete();
  }

  @Test
  void continuousBackupRestoresANewClusterToARevisionWithExactlyTheWritesUpToIt() throws Exception {
    e2e.client()
        .resource(
            e2e.client()
                .getKubernetesSerialization()
                .unmarshal(
                    """
                    apiVersion: etcd.aenix.io/v1alpha1
                    kind: EtcdBackupSchedule
                    metadata:
                      name: pitr
                      namespace: default
                    spec:
                      clusterRef:
                        name: test
                      schedule: "* * * * *"
                      continuous:
                        enabled: true
                      destination:
                        s3:
                          endpoint: %s
                          bucket: backups
                          key: pitr
                          forcePathStyle: true
                          credentialsSecretRef:
                            name: s3-credentials
                    """
                        .formatted(s3.endpoint()),
                    EtcdBackupSchedule.class))
        .create();
    WriterReport report;
    EtcdBackup base;
    long target;
    try (RecordingWriter w = test.writer(Duration.ofMinutes(4))) {
      await()
          .atMost(Duration.ofSeconds(150))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () ->
                  scheduledBy("pitr")
                      .anyMatch(
                          b ->
                              b.getStatus() != null
                                  && "Complete".equals(b.getStatus().getPhase())));
      base =
          scheduledBy("pitr")
              .filter(b -> "Complete".equals(b.getStatus().getPhase()))
              .findFirst()
              .orElseThrow();
      long baseRevision = base.getStatus().getSnapshot().getRevision();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> newestChunk("pitr/pitr.changes") > baseRevision + 100);
      w.stop();
      report = w.report();
      List<WriterReport.Write> after =
          report.acknowledged().stream().filter(x -> x.revision() > baseRevision + 20).toList();
      target = after.get(after.size() / 2).revision();
    }
    assertThat(report.ok()).as(report.toString()).isTrue();
    EtcdBackupSchedule schedule =
        e2e.client().resources(EtcdBackupSchedule.class).inNamespace(E2E.NS).withName("pitr").get();
    assertThat(schedule.getStatus().getChangeLog()).isEqualTo("s3://backups/pitr/pitr.changes");
    // deleting the schedule stops its archiver and keeps its backups and their data
    e2e.client().resources(EtcdBackupSchedule.class).inNamespace(E2E.NS).withName("pitr").delete();
    String restored =
        restoredCluster("pitr-restored", 1, "pitr/" + base.getMetadata().getName() + ".db")
            + """
                pointInTime:
                  changeLog: pitr/pitr.changes
                  revision: %d
            """
                .formatted(target)
                .indent(2);
    e2e.apply(restored);
    try {
      e2e.awaitReady("pitr-restored", Duration.ofMinutes(3));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("not Ready: " + e2e.status("pitr-restored").getConditions(), e);
    }
    assertThat(e2e.status("pitr-restored").getRestore().getRevision()).isEqualTo(target);
    try (io.etcdoperator.testing.EtcdKv kv =
        new io.etcdoperator.testing.EtcdKv(Duration.ofSeconds(5))) {
      String url = Names.clientUrl(E2E.NS, "pitr-restored", 0);
      for (WriterReport.Write write : report.acknowledged()) {
        var entry = kv.get(url, write.key(), false);
        if (write.revision() <= target) {
          assertThat(entry).as("%s at %d", write.key(), write.revision()).isPresent();
          assertThat(entry.get().modRevision()).isEqualTo(write.revision());
        } else {
          assertThat(entry)
              .as("%s at %d is after %d", write.key(), write.revision(), target)
              .isEmpty();
        }
      }
    }
    e2e.cluster("pitr-restored").delete();
  }

  static Stream<EtcdBackup> scheduledBy(String schedule) {
    return e2e
        .client()
        .resources(EtcdBackup.class)
        .inNamespace(E2E.NS)
        .withLabel(Names.SCHEDULE_LABEL, schedule)
        .list()
        .getItems()
        .stream();
  }

  static long newestChunk(String log) throws Exception {
    Path dir = s3Object(log);
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (var files = Files.list(dir)) {
      return files
          .map(f -> io.etcdoperator.operator.backup.ChangeChunk.range(f.getFileName().toString()))
          .filter(r -> r != null)
          .mapToLong(r -> r[1])
          .max()
          .orElse(0);
    }
  }

  static String json(Object o) {
    return e2e.client().getKubernetesSerialization().asJson(o);
  }

  static Stream<EtcdBackup> scheduled() {
    return e2e
        .client()
        .resources(EtcdBackup.class)
        .inNamespace(E2E.NS)
        .withLabel(Names.SCHEDULE_LABEL, "every-minute")
        .list()
        .getItems()
        .stream();
  }

  static String podPhase(String pod) {
    Pod p = e2e.client().pods().inNamespace(E2E.NS).withName(pod).get();
    return p == null || p.getStatus() == null ? null : p.getStatus().getPhase();
  }

  static String log(String pod) {
    try {
      return Optional.ofNullable(e2e.client().pods().inNamespace(E2E.NS).withName(pod).getLog())
          .orElse("");
    } catch (RuntimeException e) {
      return "";
    }
  }

  static Path claimDir(String claim) throws Exception {
    Path pvcs = dir.resolve("sandbox").resolve("pvc").resolve(E2E.NS);
    try (var files = Files.list(pvcs)) {
      return files
          .filter(p -> p.getFileName().toString().startsWith(claim + "."))
          .findFirst()
          .orElseThrow();
    }
  }
}
