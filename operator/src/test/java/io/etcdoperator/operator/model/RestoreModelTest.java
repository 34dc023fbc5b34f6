package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

/** What spec.bootstrap.restore adds to the member pod, and what it refuses. */
class RestoreModelTest {
  static EtcdCluster cluster(String source) {
    EtcdCluster c =
        Serialization.unmarshal(
            """
            apiVersion: etcd.aenix.io/v1alpha1
            kind: EtcdCluster
            metadata: {name: restored, namespace: ns, uid: u1}
            spec:
              replicas: 3
              bootstrap:
                restore:
                  source:
            """
                + source.indent(8),
            EtcdCluster.class);
    return c;
  }

  /** An S3 source, as a user writes it. */
  static final String NIGHTLY =
      """
      s3:
        endpoint: https://s3.example.com
        bucket: backups
        key: prod/nightly.db
        credentialsSecretRef: {name: s3}
      """;

  static Container restoreContainer(EtcdClusterModel m) {
    return m.podTemplate().getSpec().getInitContainers().stream()
        .filter(c -> c.getName().equals(Names.RESTORE_CONTAINER))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aNewOperatorImageChangesTheStatefulSetButRollsNoMember() throws Exception {
    EtcdCluster restored = cluster(NIGHTLY);
    EtcdClusterModel before = EtcdClusterModel.of(restored, "example.com/etcd-operator:1.0");
    EtcdClusterModel after = EtcdClusterModel.of(restored, "example.com/etcd-operator:1.1");

    assertThat(restoreContainer(after).getImage()).isEqualTo("example.com/etcd-operator:1.1");
    assertThat(after.statefulSet(3)).isNotEqualTo(before.statefulSet(3));
    assertThat(after.podTemplateHash()).isEqualTo(before.podTemplateHash());
    // anything else about the restore still rolls the members
    EtcdClusterModel otherKey =
        EtcdClusterModel.of(
            cluster(NIGHTLY.replace("nightly", "weekly")), "example.com/etcd-operator:1.0");
    assertThat(otherKey.podTemplateHash()).isNotEqualTo(before.podTemplateHash());
  }

  @Test
  void anS3SourceRestoresEveryMemberBeforeEtcdStarts() throws Exception {
    EtcdClusterModel m =
        EtcdClusterModel.of(cluster(NIGHTLY), "registry.example.com/etcd-operator:1.0");
    Container c = restoreContainer(m);
    assertThat(c.getImage()).isEqualTo("registry.example.com/etcd-operator:1.0");
    assertThat(c.getArgs())
        .contains(
            "agent",
            "restore",
            "--data-dir=/var/run/etcd/default.etcd",
            "--key=prod/nightly.db",
            "--s3-endpoint=https://s3.example.com",
            "--s3-bucket=backups",
            "--peer-url=http://$(POD_NAME).restored-headless.$(POD_NAMESPACE).svc:2380");
    assertThat(c.getEnvFrom().get(0).getConfigMapRef().getName())
        .isEqualTo("restored-cluster-state");
    assertThat(c.getEnv())
        .extracting(e -> e.getName())
        .contains("POD_NAME", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
    assertThat(c.getVolumeMounts())
        .extracting(v -> v.getMountPath())
        .containsExactly("/var/run/etcd");
    assertThat(
            DesiredCluster.of(
                    cluster(
                        """
        s3:
          endpoint: https://s3.example.com
          bucket: backups
          key: prod/nightly.db
          credentialsSecretRef: {name: s3}
        """))
                .target()
                .desired()
                .orElseThrow()
                .restoreFrom())
        .contains("s3://backups/prod/nightly.db");
  }

  @Test
  void aClaimSourceIsMountedReadOnly() throws Exception {
    EtcdClusterModel m =
        EtcdClusterModel.of(cluster("pvc: {claimName: old-backups, subPath: nightly/b1.db}"));
    Container c = restoreContainer(m);
    assertThat(c.getArgs())
        .contains("--key=nightly/b1.db", "--dir=/backup/source", "--uri-prefix=pvc://old-backups");
    assertThat(m.podTemplate().getSpec().getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("old-backups");
              assertThat(v.getPersistentVolumeClaim().getReadOnly()).isTrue();
            });
  }

  @Test
  void aSourceWithoutTheSnapshotsKeyIsRefusedNamingTheField() {
    assertThatThrownBy(
            () ->
                EtcdClusterModel.of(
                    cluster(
                        """
                        s3:
                          endpoint: s3.example.com
                          bucket: backups
                          credentialsSecretRef: {name: s3}
                        """)))
        .isInstanceOf(InvalidSpecException.class)
        .hasMessageContaining("spec.bootstrap.restore.source.s3.endpoint")
        .hasMessageContaining("spec.bootstrap.restore.source.s3.key");
    assertThatThrownBy(() -> EtcdClusterModel.of(cluster("pvc: {claimName: c, subPath: ../x.db}")))
        .hasMessageContaining("spec.bootstrap.restore.source.pvc.subPath");
  }
}
