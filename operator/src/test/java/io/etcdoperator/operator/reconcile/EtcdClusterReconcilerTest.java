package io.etcdoperator.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.operator.EtcdOperator;
import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.testing.MockApi;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller, running for real on the Java Operator SDK, against fabric8's mock API server in
 * CRUD mode (no real API server can run here). No pod ever runs: every member is unreachable, so
 * the clusters stay in bootstrap, which is what these tests look at: which objects are written, how
 * often, and what status says.
 */
class EtcdClusterReconcilerTest {
  private MockApi api;
  private KubernetesClient client;
  private EtcdOperator operator;

  @BeforeEach
  void start() {
    api = new MockApi();
    client = api.client();
    operator =
        EtcdOperator.start(
            client, OperatorSettings.defaults().withEtcdDeadline(Duration.ofMillis(300)));
  }

  @AfterEach
  void stop() {
    operator.close();
    api.close();
  }

  private static String manifest(String file) throws IOException {
    return Files.readString(Path.of("../examples", file));
  }

  private Resource<EtcdCluster> test() {
    return client.resources(EtcdCluster.class).inNamespace("default").withName("test");
  }

  private EtcdCluster apply(String yaml) {
    EtcdCluster cluster = client.getKubernetesSerialization().unmarshal(yaml, EtcdCluster.class);
    return client.resource(cluster).createOr(r -> r.update());
  }

  private static String condition(EtcdClusterStatus status, String type) {
    if (status == null) {
      return null;
    }
    return status.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .map(c -> c.getStatus() + "/" + c.getReason())
        .findFirst()
        .orElse(null);
  }

  /** Waits until the controller has reconciled at least {@code n} more times. */
  private void reconciles(int n) {
    double start = operator.successfulReconciles();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> operator.successfulReconciles() >= start + n);
  }

  private void steady() {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "False/Bootstrapping".equals(condition(test().get().getStatus(), "Ready")));
    reconciles(1);
    api.drainRequests();
  }

  @Test
  void createsEveryObjectAndBootstrapsANewCluster() throws IOException {
    apply(manifest("seed-000-fixed.yaml"));

    await().atMost(Duration.ofSeconds(20)).until(() -> test().get().getStatus() != null);
    StatefulSet sts = client.apps().statefulSets().inNamespace("default").withName("test").get();
    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
    assertThat(sts.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
    assertThat(client.services().inNamespace("default").withName("test").get()).isNotNull();
    assertThat(
            client
                .services()
                .inNamespace("default")
                .withName("test-headless")
                .get()
                .getSpec()
                .getPublishNotReadyAddresses())
        .isTrue();
    assertThat(
            client
                .policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace("default")
                .withName("test")
                .get()
                .getSpec()
                .getMinAvailable()
                .getIntVal())
        .isEqualTo(2);
    ConfigMap cm = client.configMaps().inNamespace("default").withName("test-cluster-state").get();
    assertThat(cm.getData())
        .containsEntry("ETCD_INITIAL_CLUSTER_STATE", "new")
        .containsEntry(
            "ETCD_INITIAL_CLUSTER",
            "test-0=http://test-0.test-headless.default.svc:2380,"
                + "test-1=http://test-1.test-headless.default.svc:2380,"
                + "test-2=http://test-2.test-headless.default.svc:2380");
    for (var owned : List.of(sts, cm)) {
      assertThat(owned.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(o -> assertThat(o.getKind()).isEqualTo("EtcdCluster"));
      assertThat(owned.getMetadata().getLabels())
          .containsEntry(Names.LABEL_MANAGED_BY, Names.MANAGER);
    }

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              EtcdClusterStatus status = test().get().getStatus();
              assertThat(condition(status, "Available")).isEqualTo("False/Bootstrapping");
              assertThat(condition(status, "Ready")).isEqualTo("False/Bootstrapping");
              assertThat(condition(status, "Progressing")).isEqualTo("True/Bootstrapping");
              assertThat(status.getObservedGeneration()).isEqualTo(1L);
              assertThat(status.getMembers())
                  .extracting(MemberStatus::getName)
                  .containsExactly("test-0", "test-1", "test-2");
              assertThat(status.getMembers()).allSatisfy(m -> assertThat(m.getHealthy()).isFalse());
            });
    assertThat(events("BootstrapStarted")).isNotEmpty();
  }

  @Test
  void anUnchangedClusterIsNotWrittenAgain() throws IOException {
    apply(manifest("seed-000-fixed.yaml"));
    steady();

    reconciles(3);

    assertThat(api.drainWrites()).isEmpty();
  }

  @Test
  void anOptionChangeUpdatesOnlyTheStatefulSet() throws IOException {
    apply(manifest("seed-000-fixed.yaml"));
    steady();

    test()
        .edit(
            c -> {
              c.getSpec().setOptions(Map.of("quota-backend-bytes", "8589934592"));
              return c;
            });
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> Long.valueOf(2).equals(test().get().getStatus().getObservedGeneration()));
    reconciles(2);

    List<String> writes = api.drainWrites();
    assertThat(writes)
        .filteredOn(w -> !w.contains("/etcdclusters/"))
        .containsExactly("PUT /apis/apps/v1/namespaces/default/statefulsets/test");
    assertThat(
            client
                .apps()
                .statefulSets()
                .inNamespace("default")
                .withName("test")
                .get()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getArgs())
        .contains("--quota-backend-bytes=8589934592");
  }

  @Test
  void aReplicaChangeBeforeTheClusterFormedRewritesConfigMapStatefulSetAndBudget()
      throws IOException {
    apply(manifest("seed-000-fixed.yaml"));
    steady();

    test()
        .edit(
            c -> {
              c.getSpec().setReplicas(5);
              return c;
            });
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> Long.valueOf(2).equals(test().get().getStatus().getObservedGeneration()));
    reconciles(2);

    assertThat(api.drainWrites())
        .filteredOn(w -> !w.contains("/etcdclusters/") && !w.contains("/events"))
        .containsExactlyInAnyOrder(
            "PUT /api/v1/namespaces/default/configmaps/test-cluster-state",
            "PUT /apis/apps/v1/namespaces/default/statefulsets/test",
            "PUT /apis/policy/v1/namespaces/default/poddisruptionbudgets/test");
    assertThat(
            client
                .configMaps()
                .inNamespace("default")
                .withName("test-cluster-state")
                .get()
                .getData()
                .get("ETCD_INITIAL_CLUSTER"))
        .contains("test-4=");
  }

  @Test
  void anInvalidSpecIsReportedAndNothingIsCreated() throws IOException {
    apply(
        manifest("seed-000-fixed.yaml")
            .replace("replicas: 3", "replicas: 3\n  options:\n    data-dir: /elsewhere"));

    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "False/InvalidSpec".equals(condition(test().get().getStatus(), "Ready")));
    Condition ready =
        test().get().getStatus().getConditions().stream()
            .filter(c -> c.getType().equals("Ready"))
            .findFirst()
            .orElseThrow();
    assertThat(ready.getMessage()).contains("spec.options.data-dir");
    assertThat(events("InvalidSpec"))
        .singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("spec.options.data-dir"));

    api.drainRequests();
    double before = operator.successfulReconciles();
    await().pollDelay(Duration.ofSeconds(3)).until(() -> true);
    assertThat(operator.successfulReconciles() - before)
        .as("no hot retry loop")
        .isLessThanOrEqualTo(1);
    assertThat(api.drainWrites()).isEmpty();
    assertThat(client.apps().statefulSets().inNamespace("default").list().getItems()).isEmpty();
    assertThat(client.services().inNamespace("default").list().getItems()).isEmpty();
    assertThat(client.configMaps().inNamespace("default").withName("test-cluster-state").get())
        .isNull();
  }

  @Test
  void aStatusEditedByHandIsCorrectedAndChangesNoDecision() throws IOException {
    apply(manifest("seed-000-fixed.yaml"));
    steady();

    EtcdCluster tampered = test().get();
    EtcdClusterStatus status = tampered.getStatus();
    status.setConditions(
        new ArrayList<>(
            List.of(
                new ConditionBuilder()
                    .withType("Ready")
                    .withStatus("True")
                    .withReason("AllMembersReady")
                    .withLastTransitionTime("2020-01-01T00:00:00Z")
                    .build(),
                new ConditionBuilder()
                    .withType("Available")
                    .withStatus("True")
                    .withReason("QuorumHeld")
                    .withLastTransitionTime("2020-01-01T00:00:00Z")
                    .build())));
    MemberStatus bogus = new MemberStatus();
    bogus.setName("test-9");
    bogus.setHealthy(true);
    status.setMembers(new ArrayList<>(List.of(bogus)));
    status.setClusterID("deadbeef");
    client.resource(tampered).updateStatus();

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              EtcdClusterStatus now = test().get().getStatus();
              assertThat(condition(now, "Ready")).isEqualTo("False/Bootstrapping");
              assertThat(condition(now, "Available")).isEqualTo("False/Bootstrapping");
              assertThat(now.getClusterID()).isNull();
              assertThat(now.getMembers())
                  .extracting(MemberStatus::getName)
                  .containsExactly("test-0", "test-1", "test-2");
            });
    assertThat(
            client
                .configMaps()
                .inNamespace("default")
                .withName("test-cluster-state")
                .get()
                .getData())
        .containsEntry("ETCD_INITIAL_CLUSTER_STATE", "new");
    assertThat(api.drainWrites())
        .filteredOn(w -> !w.contains("/etcdclusters/") && !w.contains("/events"))
        .isEmpty();
  }

  @Test
  void deletingAClusterClosesItsConnectionsToEtcd() throws IOException {
    apply(manifest("seed-000-fixed.yaml"));
    steady();
    // The members' names resolve to silent loopback addresses (src/test/resources/unit-hosts):
    // the probes fail, but each opens a channel bound to its member's address. A member is probed
    // once a reconcile sees its ordinal (the StatefulSet in the cache): awaited, not assumed.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(operator.etcdChannels())
                    .as("one channel per probed member")
                    .isEqualTo(3));

    test().delete();

    await().atMost(Duration.ofSeconds(20)).until(() -> test().get() == null);
    // The delete event reaches the reconciler (no finalizer: it is called for deletes too).
    await().atMost(Duration.ofSeconds(10)).until(() -> operator.etcdChannels() == 0);
  }

  private List<Event> events(String reason) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }
}
