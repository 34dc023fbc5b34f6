package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcdoperator.sandbox.OperatorLauncher;
import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 000 end to end with the real operator: the fixed manifest becomes a working 3-member cluster
 * whose status says Ready; the nginx manifest is refused naming its command and args, creating
 * nothing, and the fix that follows becomes a working cluster too. Runs only when an {@link
 * OperatorLauncher} is registered on the class path (the operator module plugs it in); skipped, not
 * passed, until then.
 */
class SeedManifestsE2EIT {
  static final ResourceDefinitionContext ETCD =
      new ResourceDefinitionContext.Builder()
          .withGroup("etcd.aenix.io")
          .withVersion("v1alpha1")
          .withPlural("etcdclusters")
          .withKind("EtcdCluster")
          .withNamespaced(true)
          .build();
  static final Path EXAMPLES = Path.of("..", "examples");

  @TempDir Path dir;

  static OperatorLauncher operator() {
    OperatorLauncher l = OperatorLauncher.onClassPath();
    assumeTrue(l != null, "no OperatorLauncher on the class path yet");
    return l;
  }

  /**
   * Creates or replaces each object, as {@code kubectl apply} would. A replacement reads the live
   * resourceVersion first; when the operator writes the status in between, the server answers 409
   * and the replacement is tried again (at most 5 times), as kubectl's retry does.
   */
  static void apply(KubernetesClient k, Path manifest) throws Exception {
    try (InputStream in = Files.newInputStream(manifest)) {
      for (HasMetadata o : k.load(in).items()) {
        for (int attempt = 1; ; attempt++) {
          o.getMetadata().setResourceVersion(null);
          try {
            k.resource(o).createOr(r -> r.update());
            break;
          } catch (KubernetesClientException e) {
            if (e.getCode() != 409 || attempt == 5) {
              throw e;
            }
          }
        }
      }
    }
  }

  static java.util.Optional<Map<?, ?>> readyCondition(KubernetesClient k) {
    GenericKubernetesResource c =
        k.genericKubernetesResources(ETCD).inNamespace("default").withName("test").get();
    if (c == null
        || !(c.getAdditionalProperties().get("status") instanceof Map<?, ?> status)
        || !(status.get("conditions") instanceof List<?> conditions)) {
      return java.util.Optional.empty();
    }
    return conditions.stream()
        .filter(o -> o instanceof Map<?, ?> m && "Ready".equals(m.get("type")))
        .<Map<?, ?>>map(o -> (Map<?, ?>) o)
        .findFirst();
  }

  static boolean ready(KubernetesClient k) {
    GenericKubernetesResource c =
        k.genericKubernetesResources(ETCD).inNamespace("default").withName("test").get();
    if (c == null
        || !(c.getAdditionalProperties().get("status") instanceof Map<?, ?> status)
        || !(status.get("conditions") instanceof List<?> conditions)) {
      return false;
    }
    return conditions.stream()
        .anyMatch(
            o ->
                o instanceof Map<?, ?> m
                    && "Ready".equals(m.get("type"))
                    && "True".equals(m.get("status")));
  }

  static void putAndGetThroughTheClientService() throws Exception {
    try (Client etcd = Client.builder().endpoints("http://test.default.svc:2379").build()) {
      ByteSequence key = ByteSequence.from("seed-000", StandardCharsets.UTF_8);
      etcd.getKVClient()
          .put(key, ByteSequence.from("works", StandardCharsets.UTF_8))
          .get(10, TimeUnit.SECONDS);
      assertThat(
              etcd.getKVClient()
                  .get(key)
                  .get(10, TimeUnit.SECONDS)
                  .getKvs()
                  .get(0)
                  .getValue()
                  .toString(StandardCharsets.UTF_8))
          .isEqualTo("works");
      assertThat(etcd.getClusterClient().listMember().get(10, TimeUnit.SECONDS).getMembers())
          .hasSize(3);
    }
  }

  @Test
  void theFixedManifestBecomesAWorkingCluster() throws Exception {
    try (Sandbox sandbox = Sandbox.start(SandboxConfig.defaults(dir), operator())) {
      apply(sandbox.client(), EXAMPLES.resolve("seed-000-fixed.yaml"));
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> ready(sandbox.client()));
      putAndGetThroughTheClientService();
    }
  }

  @Test
  void theNginxManifestThenTheFixBecomesAWorkingCluster() throws Exception {
    try (Sandbox sandbox = Sandbox.start(SandboxConfig.defaults(dir), operator())) {
      apply(sandbox.client(), EXAMPLES.resolve("seed-000-nginx.yaml"));
      // "sh -c sleep" in place of etcd: refused before anything is created, naming the fields.
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  readyCondition(sandbox.client())
                      .filter(m -> "InvalidSpec".equals(m.get("reason")))
                      .isPresent());
      String message = (String) readyCondition(sandbox.client()).orElseThrow().get("message");
      assertThat(message)
          .contains("spec.podTemplate.spec.containers[0].args")
          .contains("spec.podTemplate.spec.containers[0].command");
      assertThat(sandbox.client().pods().inNamespace("default").list().getItems()).isEmpty();
      assertThat(sandbox.client().apps().statefulSets().inNamespace("default").list().getItems())
          .isEmpty();
      apply(sandbox.client(), EXAMPLES.resolve("seed-000-fixed.yaml"));
      await()
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> ready(sandbox.client()));
      putAndGetThroughTheClientService();
    }
  }

  /**
   * The fixed manifest in a namespace that enforces Pod Security "restricted": the operator's
   * default member pod must pass it (issue 10, A7: fixed non-root uid, fsGroup, seccomp
   * RuntimeDefault, no privilege escalation, all capabilities dropped, no service-account token),
   * and etcd runs as that uid on a volume the fsGroup owns.
   */
  @Test
  void theFixedManifestBecomesReadyInANamespaceThatEnforcesRestricted() throws Exception {
    try (Sandbox sandbox = Sandbox.start(SandboxConfig.defaults(dir), operator())) {
      sandbox
          .client()
          .namespaces()
          .withName("default")
          .edit(
              n -> {
                n.getMetadata()
                    .setLabels(Map.of("pod-security.kubernetes.io/enforce", "restricted"));
                return n;
              });
      apply(sandbox.client(), EXAMPLES.resolve("seed-000-fixed.yaml"));
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> ready(sandbox.client()));
      putAndGetThroughTheClientService();
      var pod = sandbox.kubelet().pod("default", "test-0");
      String status = Files.readString(Path.of("/proc", String.valueOf(pod.pid("etcd")), "status"));
      assertThat(status).doesNotContain("Uid:\t0\t");
    }
  }
}
