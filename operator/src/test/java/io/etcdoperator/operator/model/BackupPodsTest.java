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
            "img",
            Security.NONE);
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
    Pod pod = BackupPods.backup(backup(), "test-1", "https://x:2379", "img", tls(null));
    assertThat(pod.getSpec().getVolumes())
        .filteredOn(v -> "etcd-trust".equals(v.getName()))
        .singleElement()
        .extracting(v -> v.getSecret().getSecretName())
        .isEqualTo("test-server");
  }
}
