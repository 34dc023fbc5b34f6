package io.etcdoperator.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What {@code kubectl etcd} prints, from objects as the API server returns them. */
class KubectlTablesTest {
  static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");

  static EtcdCluster cluster(String namespace, String name, String status) {
    return Serialization.unmarshal(
        """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdCluster
        metadata: {name: %s, namespace: %s, creationTimestamp: "2026-12-06T09:00:00Z"}
        spec: {replicas: 3}
        status: %s
        """
            .formatted(name, namespace, status),
        EtcdCluster.class);
  }

  static final String HEALTHY =
      """
      {clusterID: "cdf8", clusterVersion: "3.5.0", leader: test-0,
       conditions: [{type: Ready, status: "True", reason: Ready, message: "3 of 3 ready"},
                    {type: Available, status: "True", reason: QuorumHeld, message: "quorum"}],
       members: [{name: test-0, id: "a1", role: Voter, healthy: true, leader: true,
                  version: "3.5.30", node: node-0},
                 {name: test-1, id: "b2", role: Voter, healthy: true, version: "3.5.30"},
                 {name: test-2, id: "c3", role: Voter, healthy: false,
                  unhealthySince: "2026-12-06T11:59:15Z", version: "3.5.30"}],
       certificates: [{use: peer, secret: test-peer, subject: "CN=test",
                       notAfter: "2027-01-05T12:00:00Z"}]}
      """;

  static EtcdBackup backup(
      String namespace, String cluster, String name, String phase, String done) {
    return Serialization.unmarshal(
        """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdBackup
        metadata: {name: %s, namespace: %s}
        spec:
          clusterRef: {name: %s}
          destination: {pvc: {claimName: backups, subPath: nightly/}}
        status: {phase: %s, completionTime: %s}
        """
            .formatted(name, namespace, cluster, phase, done),
        EtcdBackup.class);
  }

  @Test
  void listShowsVotersLeaderVersionReadyAndTheLastCompleteBackup() {
    List<EtcdCluster> clusters =
        List.of(
            cluster("default", "test", HEALTHY),
            cluster(
                "prod",
                "main",
                "{conditions: [{type: Ready, status: \"False\", reason: QuorumLost}]}"));
    List<EtcdBackup> backups =
        List.of(
            backup("default", "test", "b1", "Complete", "2026-12-06T11:00:00Z"),
            backup("default", "test", "b2", "Complete", "2026-12-06T11:55:00Z"),
            backup("default", "test", "b3", "Failed", "2026-12-06T11:59:00Z"),
            backup("prod", "test", "b4", "Complete", "2026-12-06T11:59:30Z"));
    assertThat(
            KubectlTables.format(
                KubectlTables.list(clusters, backups, Map.of("default/test", 20480L), NOW, true)))
        .isEqualTo(
            """
            NAMESPACE   NAME   REPLICAS   VOTERS   LEADER   VERSION   DB SIZE   READY        LAST BACKUP   AGE
            default     test   3          2/3      test-0   3.5.0     20 KiB    True         5m ago        3h
            prod        main   3          0/0      -        -         ?         QuorumLost   -             3h
            """);
    assertThat(
            KubectlTables.format(
                KubectlTables.list(clusters.subList(0, 1), backups, Map.of(), NOW, false)))
        .startsWith("NAME   REPLICAS");
  }

  @Test
  void statusShowsEachMemberItsFiguresAndHowLongCertificatesLast() {
    Map<String, KubectlMembers.Figures> figures =
        Map.of(
            "test-0",
            new KubectlMembers.Figures(2_097_152, 1_048_576, 120, List.of(), null),
            "test-1",
            new KubectlMembers.Figures(2_097_152, 1_048_576, 117, List.of("NOSPACE"), null),
            "test-2",
            KubectlMembers.Figures.failed("test-2: no answer (timed out)"));
    String out = KubectlTables.status(cluster("default", "test", HEALTHY), figures, NOW);
    assertThat(out)
        .contains("Cluster ID:   cdf8")
        .contains("Ready:        True (Ready): 3 of 3 ready")
        .contains("Available:    True (QuorumHeld): quorum")
        .contains("Voters:       2/3 healthy")
        .containsPattern(
            "test-0 +a1 +Voter +true +\\* +3\\.5\\.30 +node-0 +2\\.0 MiB +1\\.0 MiB +0 +- +-")
        .containsPattern("test-1 +b2 +Voter +true +3\\.5\\.30 +- +2\\.0 MiB +1\\.0 MiB +3 +NOSPACE")
        .containsPattern("test-2 +c3 +Voter +false \\(45s\\) +3\\.5\\.30 +- +\\? +\\? +\\? +\\?")
        .contains("  ? test-2: no answer (timed out)\n")
        .contains("peer   test-peer   CN=test   2027-01-05T12:00:00Z (in 30d)");
  }

  @Test
  void maintenanceWaitsForEveryMemberAndGoesLeaderLast() {
    EtcdCluster c = cluster("default", "test", HEALTHY);
    assertThat(KubectlMaintenance.unfit(c))
        .contains("test-2 not a healthy voter", "kubectl etcd status test");
    assertThat(KubectlMaintenance.defragmentOrder(c, null).stream().map(m -> m.getName()))
        .containsExactly("test-1", "test-2", "test-0");
    assertThat(KubectlMaintenance.defragmentOrder(c, "test-0")).hasSize(1);
    assertThatThrownBy(() -> KubectlMaintenance.defragmentOrder(c, "test-9"))
        .hasMessageContaining("--member test-9: no such member");
    c.getStatus().getMembers().get(2).setHealthy(true);
    assertThat(KubectlMaintenance.unfit(c)).isNull();
  }

  @ParameterizedTest
  @CsvSource({"-1, ?", "812, 812 B", "20480, 20 KiB", "1572864, 1.5 MiB", "2147483648, 2.0 GiB"})
  void sizesReadAsPeopleReadThem(long n, String printed) {
    assertThat(KubectlTables.bytes(n)).isEqualTo(printed);
  }

  @ParameterizedTest
  @CsvSource({
    "PT45S, 45s",
    "PT119S, 119s",
    "PT2M, 2m",
    "PT2H59M, 179m",
    "PT3H, 3h",
    "PT47H, 47h",
    "PT48H, 2d",
    "PT-5S, 0s"
  })
  void agesAreKubectls(Duration d, String printed) {
    assertThat(KubectlTables.age(d)).isEqualTo(printed);
  }

  @Test
  void anExpiredCertificateSaysSo() {
    assertThat(KubectlTables.expires("2026-12-05T12:00:00Z", NOW)).endsWith("(expired 24h ago)");
  }

  @Test
  void aRestoreReadsTheSnapshotTheBackupWrote() {
    EtcdBackup onClaim = backup("default", "test", "b1", "Complete", "2026-12-06T11:00:00Z");
    assertThat(KubectlTables.restoreSource(onClaim).getPvc().getSubPath())
        .isEqualTo("nightly/b1.db");
    assertThat(KubectlTables.restoreSource(onClaim).getPvc().getClaimName()).isEqualTo("backups");
    EtcdBackup inBucket =
        Serialization.unmarshal(
            """
            apiVersion: etcd.aenix.io/v1alpha1
            kind: EtcdBackup
            metadata: {name: b2, namespace: default}
            spec:
              clusterRef: {name: test}
              destination:
                s3: {endpoint: "http://127.0.0.1:9000", bucket: etcd, key: prod/,
                     credentialsSecretRef: {name: keys}, forcePathStyle: true}
            """,
            EtcdBackup.class);
    var s3 = KubectlTables.restoreSource(inBucket).getS3();
    assertThat(s3.getKey()).isEqualTo("prod/b2.db");
    assertThat(s3.getBucket()).isEqualTo("etcd");
    assertThat(s3.getCredentialsSecretRef().getName()).isEqualTo("keys");
    assertThat(s3.getForcePathStyle()).isTrue();
  }

  @Test
  void snapshotDestinationsAreReadFromTheirUri() {
    var pvc = KubectlBackups.destination("pvc://backups/nightly", null, null, null, false);
    assertThat(pvc.getPvc().getClaimName()).isEqualTo("backups");
    assertThat(pvc.getPvc().getSubPath()).isEqualTo("nightly");
    assertThat(
            KubectlBackups.destination("pvc://backups", null, null, null, false)
                .getPvc()
                .getSubPath())
        .isNull();
    var s3 = KubectlBackups.destination("s3://etcd/prod", "http://s3:9000", "keys", null, true);
    assertThat(s3.getS3().getBucket()).isEqualTo("etcd");
    assertThat(s3.getS3().getKey()).isEqualTo("prod");
    assertThat(s3.getS3().getForcePathStyle()).isTrue();
    assertThatThrownBy(() -> KubectlBackups.destination("s3://etcd", null, null, null, false))
        .hasMessageContaining("--endpoint")
        .hasMessageContaining("--credentials");
    assertThatThrownBy(() -> KubectlBackups.destination("ftp://x", null, null, null, false))
        .hasMessageContaining("pvc://CLAIM[/DIRECTORY] or s3://BUCKET[/PREFIX]");
  }
}
