package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.sandbox.SandboxConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a contributor tries a change, as with kind and {@code make run}: the sandbox with no operator
 * inside ({@code ./etcd-operator sandbox --no-operator}), and the product jar started on its own
 * with {@code run --kubeconfig <dir>/kubeconfig}, as {@code ./etcd-operator run} starts it (the
 * image's JVM settings), the members' names resolving through the sandbox's hosts file. Its calls
 * go through the kubeconfig's address, the front kubectl uses, its watches as WebSockets (which the
 * front once answered 400: the operator never reconciled). The cluster it is given becomes Ready.
 */
class RunYourOwnBuildE2EIT {

  @TempDir Path dir;

  @Test
  void theProductJarRunWithTheSandboxsKubeconfigReconciles() throws Exception {
    assertThat(ProductOperator.JAR).as("the product jar, built before this module").exists();
    SandboxConfig config = SandboxConfig.defaults(dir.resolve("sandbox"));
    try (E2E e2e = E2E.withoutOperator(config);
        Cluster one = new Cluster(e2e, "one")) {
      Path log = dir.resolve("operator.log");
      try (ProductOperator operator = ProductOperator.start(e2e.sandbox(), log)) {
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
        long start = System.nanoTime();
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> one.converged(1, 1) || !operator.isAlive());
        assertThat(operator.isAlive()).as(Files.readString(log)).isTrue();
        System.out.printf(
            "the product jar, run with the sandbox's kubeconfig: one Ready in %d ms%n",
            (System.nanoTime() - start) / 1_000_000);
        // A refused call reads "code=400" or "400 Bad Request"; a bare "400" is also the
        // milliseconds of a timestamp (08:53:21.400Z), which once failed this test.
        assertThat(Files.readString(log))
            .doesNotContainPattern("code=400|HTTP 400|\\b400 Bad Request")
            .doesNotContain("Bad Request");
      }
    }
  }
}
