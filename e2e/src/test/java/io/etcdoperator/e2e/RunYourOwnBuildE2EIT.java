package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.sandbox.SandboxConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a contributor tries a change, as with kind and {@code make run}: the sandbox with no operator
 * inside ({@code ./etcd-operator sandbox --no-operator}), and the product jar started on its own
 * with {@code run --kubeconfig <dir>/kubeconfig}, as {@code ./etcd-operator run} starts it (the
 * image's JVM settings), the members' names resolving through the sandbox's hosts file. Its calls
 * go through the kubeconfig's address, the front kubectl uses, its watches as WebSockets (which the
 * front once answered 400: the operator never reconciled). The 10 clusters it is given become
 * Ready, and its JVM has loaded at most 5 % more classes than the figure recorded here.
 */
class RunYourOwnBuildE2EIT {
  /**
   * Classes the product jar's JVM had loaded once these 10 single-member clusters were Ready, as
   * this test measured it on 2026-12-06 (9,808; the scale benchmark's 10-cluster run, whose
   * operator also met failures, counted 9,981). More than 5 % over it fails this test: the fixed
   * cost of the operator is mostly its classes (docs/performance.md). When a change brings more on
   * purpose, measure again and record the new figure here with the reason in the commit.
   */
  static final long RECORDED_CLASSES = 9_808;

  @TempDir Path dir;

  @Test
  void theProductJarRunWithTheSandboxsKubeconfigReconciles() throws Exception {
    assertThat(ProductOperator.JAR).as("the product jar, built before this module").exists();
    SandboxConfig config = SandboxConfig.defaults(dir.resolve("sandbox"));
    try (E2E e2e = E2E.withoutOperator(config);
        Cluster one = new Cluster(e2e, "one")) {
      Path log = dir.resolve("operator.log");
      try (ProductOperator operator = ProductOperator.start(e2e.sandbox(), log)) {
        List<Cluster> others = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
          String name = i == 0 ? "one" : "c" + i;
          e2e.apply(
              """
              apiVersion: etcd.aenix.io/v1alpha1
              kind: EtcdCluster
              metadata:
                name: %s
                namespace: default
              spec:
                replicas: 1
                storage:
                  emptyDir: {}
              """
                  .formatted(name));
          if (i > 0) {
            others.add(new Cluster(e2e, name));
          }
        }
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () ->
                    !operator.isAlive()
                        || one.converged(1, 1) && others.stream().allMatch(c -> c.converged(1, 1)));
        assertThat(operator.isAlive()).as(Files.readString(log)).isTrue();
        long classes = operator.classesLoaded();
        System.out.printf(
            "the product jar, run with the sandbox's kubeconfig: 10 clusters Ready in %d ms, %d"
                + " classes loaded (recorded %d, %+.1f %%)%n",
            (System.nanoTime() - start) / 1_000_000,
            classes,
            RECORDED_CLASSES,
            (classes - RECORDED_CLASSES) * 100.0 / RECORDED_CLASSES);
        assertThat(classes)
            .as(
                "classes loaded with 10 clusters Ready, at most 5 %% over the recorded %d (see"
                    + " RECORDED_CLASSES)",
                RECORDED_CLASSES)
            .isLessThanOrEqualTo(RECORDED_CLASSES * 105 / 100);
        // A refused call reads "code=400" or "400 Bad Request"; a bare "400" is also the
        // milliseconds of a timestamp (08:53:21.400Z), which once failed this test.
        assertThat(Files.readString(log))
            .doesNotContainPattern("code=400|HTTP 400|\\b400 Bad Request")
            .doesNotContain("Bad Request");
      }
    }
  }
}
