package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.sandbox.SandboxConfig;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's memory does not grow with pods that are not its own: it watches pods only with its
 * managed-by label, so the API server never sends it the others (nodes it lists whole, but a
 * cluster has few; PersistentVolumes it only reads one at a time).
 *
 * <p>The product jar runs in a process of its own ({@link ProductOperator}), as in {@link
 * UnrelatedSecretsE2EIT}, with one single-member cluster. Then {@code unrelated.pods} pods (10,000
 * with {@code -Plong}, which alone runs this measurement; 1,000 run alone) are created in another
 * namespace, each for a scheduler that does not run here so that they stay Pending (the sandbox
 * would otherwise start a process for each, and its scheduler, unlike the real one, retries every
 * unschedulable pod at every pass); then the member's pod is deleted, and the cluster must be Ready
 * again (the operator still reacts). The live heap (after a full collection) grows by less than 5
 * MiB, and the operator holds no Pod object but its member's.
 */
class UnrelatedPodsE2EIT {
  static final int PODS = Integer.getInteger("unrelated.pods", 1000);
  static final long GROWTH_LIMIT = 5L * 1024 * 1024;
  static final String POD_CLASS = "io.fabric8.kubernetes.api.model.Pod";

  @TempDir Path dir;

  @Test
  void unrelatedPodsCostNothing() throws Exception {
    Path log = dir.resolve("operator.log");
    try (E2E e2e = E2E.withoutOperator(SandboxConfig.defaults(dir.resolve("sandbox")));
        ProductOperator operator = ProductOperator.start(e2e.sandbox(), log)) {
      e2e.apply(
          """
          apiVersion: etcd.aenix.io/v1alpha1
          kind: EtcdCluster
          metadata:
            name: one
            namespace: default
          spec:
            replicas: 1
          """);
      try (Cluster one = new Cluster(e2e, "one")) {
        await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> one.converged(1, 1) || !operator.isAlive());
        assertThat(operator.isAlive()).as(Files.readString(log)).isTrue();
        long before = operator.liveHeapBytes();

        e2e.client()
            .namespaces()
            .resource(
                new NamespaceBuilder().withNewMetadata().withName("apps").endMetadata().build())
            .create();
        long start = System.nanoTime();
        for (int i = 0; i < PODS; i++) {
          e2e.client()
              .pods()
              .inNamespace("apps")
              .resource(
                  new PodBuilder()
                      .withNewMetadata()
                      .withName("web-" + i)
                      .withLabels(Map.of("app", "web", "pod-template-hash", "5d8f7c9b4"))
                      .endMetadata()
                      .withNewSpec()
                      .withSchedulerName("batch-scheduler")
                      .addNewContainer()
                      .withName("web")
                      .withImage("nginx:1.27")
                      .endContainer()
                      .endSpec()
                      .build())
              .create();
        }
        long created = System.nanoTime();

        e2e.client().pods().inNamespace(E2E.NS).withName("one-0").delete();
        try {
          await()
              .atMost(Duration.ofMinutes(2))
              .pollInterval(Duration.ofMillis(200))
              .until(
                  () ->
                      e2e.client().pods().inNamespace(E2E.NS).withName("one-0").get() != null
                          && one.converged(1, 1));
        } catch (ConditionTimeoutException e) {
          var pod = e2e.client().pods().inNamespace(E2E.NS).withName("one-0").get();
          var lines = Files.readAllLines(log);
          throw new AssertionError(
              "one not Ready again: pod "
                  + (pod == null ? "absent" : pod.getStatus())
                  + "\nstatus "
                  + one.status()
                  + "\noperator log:\n"
                  + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())),
              e);
        }
        Map<String, long[]> heap = operator.liveHeap();
        long after = heap.get("Total")[1];
        long[] pods = heap.getOrDefault(POD_CLASS, new long[2]);
        System.out.printf(
            "%d unrelated pods (created in %d ms): the operator's live heap %.1f MiB -> %.1f MiB"
                + " (%+.2f MiB); it holds %d Pod objects (%d bytes)%n",
            PODS,
            (created - start) / 1_000_000,
            before / 1048576.0,
            after / 1048576.0,
            (after - before) / 1048576.0,
            pods[0],
            pods[1]);
        assertThat(pods[0]).as("Pod objects the operator holds").isLessThanOrEqualTo(2);
        assertThat(after - before).as("live heap growth in bytes").isLessThan(GROWTH_LIMIT);
        assertThat(operator.isAlive()).isTrue();
      }
    }
  }
}
