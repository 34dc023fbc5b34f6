package io.etcdoperator.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.testing.MockApi;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator as a process runs it: health and metrics over HTTP, and leader election between two
 * replicas, against fabric8's mock API server (no real API server can run here).
 */
class EtcdOperatorTest {
  private MockApi api;

  @BeforeEach
  void start() {
    api = new MockApi();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private void applySeed() throws IOException {
    String yaml = Files.readString(Path.of("../examples/seed-000-fixed.yaml"));
    api.client()
        .resource(api.client().getKubernetesSerialization().unmarshal(yaml, EtcdCluster.class))
        .create();
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesHealthAndReconcileMetrics() throws Exception {
    OperatorSettings settings =
        OperatorSettings.defaults()
            .withHttp(new OperatorSettings.Http("127.0.0.1", 0))
            .withEtcdDeadline(Duration.ofMillis(200));
    try (EtcdOperator operator = EtcdOperator.start(api.client(), settings)) {
      int port = operator.httpPort().orElseThrow();
      applySeed();
      await().atMost(Duration.ofSeconds(20)).until(() -> operator.successfulReconciles() >= 1);

      assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(port, "/readyz").statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = get(port, "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body())
          .contains("operator_sdk_reconciliations_success_total")
          .contains("jvm_memory_used_bytes");
    }
  }

  @Test
  void onlyTheLeaderReconcilesAndAnotherTakesOverWhenItStops() throws Exception {
    Duration lease = Duration.ofSeconds(2);
    OperatorSettings base = OperatorSettings.defaults().withEtcdDeadline(Duration.ofMillis(200));
    EtcdOperator first =
        replica(
            base,
            new OperatorSettings.LeaderElection("default", "etcd-operator", "first", lease, false));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> holder() != null && holder().equals("first"));
    EtcdOperator second =
        replica(
            base,
            new OperatorSettings.LeaderElection(
                "default", "etcd-operator", "second", lease, false));
    try {
      applySeed();
      await().atMost(Duration.ofSeconds(20)).until(() -> first.successfulReconciles() >= 2);
      assertThat(second.successfulReconciles())
          .as("the replica without the Lease does nothing")
          .isZero();

      first.close();
      await().atMost(Duration.ofSeconds(30)).until(() -> "second".equals(holder()));
      await().atMost(Duration.ofSeconds(20)).until(() -> second.successfulReconciles() >= 1);
    } finally {
      first.close();
      second.close();
    }
  }

  /**
   * As the Deployment runs it (exit when the Lease is lost, a 15 s lease): a leader that is stopped
   * does not take its stop for a lost Lease (the framework's exit in a shutdown hook blocked until
   * the pod's grace period ran out; here it would end the test's JVM), and gives the Lease up, so
   * that the other replica leads within its retry period, not the lease's 15 s.
   */
  @Test
  void aStoppedLeaderReleasesItsLeaseAndDoesNotExit() throws Exception {
    OperatorSettings base = OperatorSettings.defaults().withEtcdDeadline(Duration.ofMillis(200));
    EtcdOperator first =
        replica(base, new OperatorSettings.LeaderElection("default", "etcd-operator", "first"));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> holder() != null && holder().equals("first"));
    EtcdOperator second =
        replica(base, new OperatorSettings.LeaderElection("default", "etcd-operator", "second"));
    try {
      long stopped = System.nanoTime();
      first.close();
      await().atMost(Duration.ofSeconds(10)).until(() -> "second".equals(holder()));
      assertThat(Duration.ofNanos(System.nanoTime() - stopped))
          .as("from the leader's stop to the other replica leading")
          .isLessThan(Duration.ofSeconds(15));
    } finally {
      first.close();
      second.close();
    }
  }

  private EtcdOperator replica(OperatorSettings base, OperatorSettings.LeaderElection election) {
    return EtcdOperator.start(api.client(), base.withLeaderElection(election));
  }

  private String holder() {
    Lease lease = api.client().leases().inNamespace("default").withName("etcd-operator").get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }
}
