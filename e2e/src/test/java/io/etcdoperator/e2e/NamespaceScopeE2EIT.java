package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.sandbox.EtcdOperatorLauncher;
import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator as {@code deploy/namespace-scope.yaml} runs it: two replicas under that manifest's
 * RBAC (Roles in its own namespace, no ClusterRole), watching its own namespace, electing a leader
 * on a Lease. The leader makes a cluster Ready; when it stops, the other takes the Lease over and
 * carries on (a scale-up).
 */
class NamespaceScopeE2EIT {
  static final String NS = "etcd-operator";
  static final String LEASE = "etcd-operator-leader";
  @TempDir Path dir;

  static OperatorSettings replica(String identity) {
    return OperatorSettings.defaults()
        .withNamespaces(Set.of(NS))
        .withLeaderElection(
            new OperatorSettings.LeaderElection(NS, LEASE, identity, Duration.ofSeconds(4), false));
  }

  @Test
  void twoReplicasUnderTheNamespacedRbacElectALeaderThatRunsTheCluster() throws Exception {
    EtcdOperatorLauncher launcher =
        EtcdOperatorLauncher.replicas(List.of(replica("replica-a"), replica("replica-b")));
    try (Sandbox sandbox =
        Sandbox.start(
            SandboxConfig.defaults(dir).withRbac(SandboxConfig.NAMESPACE_SCOPE), launcher)) {
      KubernetesClient k = sandbox.client();
      assertThat(sandbox.operatorIdentity().name())
          .isEqualTo("system:serviceaccount:etcd-operator:etcd-operator");
      assertThat(k.rbac().clusterRoles().withName("etcd-operator").get()).isNull();
      k.resource(
              k.getKubernetesSerialization()
                  .unmarshal(
                      "apiVersion: etcd.aenix.io/v1alpha1\n"
                          + "kind: EtcdCluster\n"
                          + "metadata: {name: test, namespace: "
                          + NS
                          + "}\n"
                          + "spec: {replicas: 3}\n",
                      EtcdCluster.class))
          .create();
      await().atMost(Duration.ofMinutes(2)).until(() -> ready(k, 3));
      String leader = holder(k);
      assertThat(leader).isIn("replica-a", "replica-b");

      launcher.running().get(leader.equals("replica-a") ? 0 : 1).close();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !leader.equals(holder(k)) && holder(k) != null);
      k.resources(EtcdCluster.class)
          .inNamespace(NS)
          .withName("test")
          .edit(
              c -> {
                c.getSpec().setReplicas(4);
                return c;
              });
      await().atMost(Duration.ofMinutes(2)).until(() -> ready(k, 4));
      assertThat(sandbox.operatorUsage().uses()).allMatch(u -> u.allowed(), "allowed");
    }
  }

  static String holder(KubernetesClient k) {
    Lease l = k.leases().inNamespace(NS).withName(LEASE).get();
    return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
  }

  static boolean ready(KubernetesClient k, int members) {
    EtcdCluster c = k.resources(EtcdCluster.class).inNamespace(NS).withName("test").get();
    return c != null
        && c.getStatus() != null
        && c.getStatus().getReadyMembers() != null
        && c.getStatus().getReadyMembers() == members
        && c.getStatus().getConditions().stream()
            .filter(x -> x.getType().equals("Ready"))
            .map(Condition::getStatus)
            .anyMatch("True"::equals);
  }
}
