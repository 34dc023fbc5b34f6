package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.SecuritySpec;
import io.etcdoperator.api.v1alpha1.TlsSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

/** The backup agent's pod, with and without the cluster's client TLS. */
class BackupPodsTest {
  static EtcdBackup backup() {
    return new KubernetesSerialization()
        .unmarshal(
            """
            apiVersion: etcd.aenix.io/v1alpha1
            kind: EtcdBackup
            metadata:
              name: nightly
              namespace: default
              uid: 7
            spec:
              clusterRef:
                name: test
              destination:
                pvc:
                  claimName: backups
            """,
            EtcdBackup.class);
  }

  static Security tls(String serverCa) {
    TlsSpec t = new TlsSpec();
    t.setServerSecret("test-server");
    t.setServerTrustedCASecret(serverCa);
    t.setClientSecret("test-operator");
    t.setClientTrustedCASecret("test-client-ca");
    SecuritySpec s = new SecuritySpec();
    s.setTls(t);
    return Security.of(s);
  }

  @Test
  void withoutTlsTheAgentCallsPlainHttpAndMountsNoSecret() {
    Pod pod =
        BackupPods.backup(
            backup(),
            "test-1",
            "http://test-1.test-headless.default.svc:2379",
            2,
            "img",
            Security.NONE);
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(Names.BACKUP_ATTEMPT_ANNOTATION, "2");
    assertThat(pod.getSpec().getContainers().get(0).getArgs())
        .noneMatch(a -> a.startsWith("--tls-"));
    assertThat(pod.getSpec().getVolumes()).noneMatch(v -> v.getSecret() != null);
  }

  @Test
  void withServerTlsTheAgentTrustsTheOperatorsCaAndPresentsItsCertificate() {
    Pod pod =
        BackupPods.backup(
            backup(),
            "test-1",
            "https://test-1.test-headless.default.svc:2379",
            1,
            "img",
            tls("test-server-ca"));
    assertThat(pod.getSpec().getContainers().get(0).getArgs())
        .contains(
            "--tls-ca=/etc/etcd-operator/trust/ca.crt",
            "--tls-cert=/etc/etcd-operator/client/tls.crt",
            "--tls-key=/etc/etcd-operator/client/tls.key");
    assertThat(pod.getSpec().getVolumes())
        .filteredOn(v -> v.getSecret() != null)
        .extracting(Volume::getName, v -> v.getSecret().getSecretName())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("etcd-trust", "test-server-ca"),
            org.assertj.core.groups.Tuple.tuple("etcd-client", "test-operator"));
    assertThat(pod.getSpec().getContainers().get(0).getVolumeMounts())
        .filteredOn(m -> m.getMountPath().startsWith("/etc/etcd-operator"))
        .allMatch(m -> Boolean.TRUE.equals(m.getReadOnly()))
        .hasSize(2);
  }

  @Test
  void withoutAServerCaSecretTheServerSecretsCaIsTrusted() {
    Pod pod = BackupPods.backup(backup(), "test-1", "https://x:2379", 1, "img", tls(null));
    assertThat(pod.getSpec().getVolumes())
        .filteredOn(v -> "etcd-trust".equals(v.getName()))
        .singleElement()
        .extracting(v -> v.getSecret().getSecretName())
        .isEqualTo("test-server");
  }

  static io.etcdoperator.api.v1alpha1.EtcdBackupSchedule schedule(String destination) {
    return new KubernetesSerialization()
        .unmarshal(
            """
            apiVersion: etcd.aenix.io/v1alpha1
            kind: EtcdBackupSchedule
            metadata:
              name: pitr
              namespace: default
              uid: 8
            spec:
              clusterRef:
                name: test
              schedule: "0 * * * *"
              continuous:
                enabled: true
              destination:
            %s
            """
                .formatted(destination.indent(4)),
            io.etcdoperator.api.v1alpha1.EtcdBackupSchedule.class);
  }

  /**
   * Every agent pod of a claim (a backup, its deletion, a schedule's archiver) is labelled with the
   * claim and requires a node where a pod with that label runs: a ReadWriteOnce volume attaches to
   * one node, and the archiver holds it for as long as it runs. Without a claim, no constraint.
   */
  @Test
  void podsOfOneClaimRequireEachOthersNode() {
    EtcdBackup b = backup();
    var s = schedule("pvc: {claimName: backups}");
    for (Pod pod :
        java.util.List.of(
            BackupPods.backup(b, "test-1", "http://x:2379", 1, "img", Security.NONE),
            BackupPods.delete(b, "img"),
            BackupPods.archiver(s, "img", Security.NONE))) {
      assertThat(pod.getMetadata().getLabels())
          .as(pod.getMetadata().getName())
          .containsEntry("etcd.aenix.io/backup-claim", "backups");
      var terms =
          pod.getSpec()
              .getAffinity()
              .getPodAffinity()
              .getRequiredDuringSchedulingIgnoredDuringExecution();
      assertThat(terms)
          .as(pod.getMetadata().getName())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                assertThat(t.getLabelSelector().getMatchLabels())
                    .isEqualTo(java.util.Map.of("etcd.aenix.io/backup-claim", "backups"));
                // the pod matches its own term: the first of a claim may go anywhere
                assertThat(pod.getMetadata().getLabels())
                    .containsAllEntriesOf(t.getLabelSelector().getMatchLabels());
              });
    }
    Pod toS3 =
        BackupPods.archiver(
            schedule(
                "s3: {endpoint: 'http://s3:9000', bucket: b, credentialsSecretRef: {name: c}}"),
            "img",
            Security.NONE);
    assertThat(toS3.getSpec().getAffinity()).isNull();
    assertThat(toS3.getMetadata().getLabels()).doesNotContainKey("etcd.aenix.io/backup-claim");
  }

  @Test
  void aClaimNameTooLongForALabelIsCutAndHashed() {
    assertThat(Names.claimLabelValue("backups")).isEqualTo("backups");
    String a = "b".repeat(63);
    assertThat(Names.claimLabelValue(a)).isEqualTo(a);
    String long1 = "backups-" + "x".repeat(80) + "-one";
    String long2 = "backups-" + "x".repeat(80) + "-two";
    assertThat(Names.claimLabelValue(long1))
        .hasSizeLessThanOrEqualTo(63)
        .matches("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
        .startsWith("backups-xxx")
        .isNotEqualTo(Names.claimLabelValue(long2));
    // a cut that would end on a dash ends on the character before it
    String dashed = "a".repeat(45) + "--" + "c".repeat(30);
    assertThat(Names.claimLabelValue(dashed)).startsWith("a".repeat(45) + "-").doesNotContain("--");
  }
}
