package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deployments and what every pod of one gets: the Deployment and ReplicaSet controllers (first
 * rollout, a rolling update to a new template, a scale down), and the ServiceAccount's token,
 * namespace and the cluster's CA at the in-cluster path with the API server's address in the
 * environment, used from outside the pod exactly as an in-cluster client uses them (the CA checks
 * the server's certificate for that address, the token authenticates as the ServiceAccount).
 */
class DeploymentIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static KubernetesClient k;

  @BeforeAll
  static void start() {
    sandbox = SandboxFixture.start(dir.resolve("sandbox"));
    k = sandbox.client();
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  private static Deployment deployment(String name, int replicas, String script, Path out) {
    Container c = Manifests.shell("main", script);
    c.setVolumeMounts(
        List.of(new VolumeMountBuilder().withName("out").withMountPath("/out").build()));
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .withMatchLabels(Map.of("app", name))
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Map.of("app", name))
        .endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(1L)
        .withContainers(c)
        .addNewVolume()
        .withName("out")
        .withHostPath(new HostPathVolumeSource(out.toString(), "DirectoryOrCreate"))
        .endVolume()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static Deployment get(String name) {
    return k.apps().deployments().inNamespace("default").withName(name).get();
  }

  private static List<ReplicaSet> sets(String app) {
    return k.apps().replicaSets().inNamespace("default").withLabel("app", app).list().getItems();
  }

  private static void awaitRolledOut(String name, int replicas) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              Deployment d = get(name);
              assertThat(d.getStatus()).isNotNull();
              assertThat(d.getStatus().getObservedGeneration())
                  .isEqualTo(d.getMetadata().getGeneration());
              assertThat(d.getStatus().getUpdatedReplicas()).isEqualTo(replicas);
              assertThat(d.getStatus().getReplicas()).isEqualTo(replicas);
              assertThat(d.getStatus().getAvailableReplicas()).isEqualTo(replicas);
              assertThat(k.pods().inNamespace("default").withLabel("app", name).list().getItems())
                  .filteredOn(p -> p.getMetadata().getDeletionTimestamp() == null)
                  .hasSize(replicas);
            });
  }

  @Test
  void aDeploymentRollsOutScalesAndRollsToANewTemplate() {
    Path out = dir.resolve("roll");
    k.resource(deployment("roll", 2, "echo one; exec sleep 3600", out)).create();
    awaitRolledOut("roll", 2);
    assertThat(sets("roll")).hasSize(1);
    ReplicaSet first = sets("roll").get(0);
    assertThat(first.getMetadata().getName()).startsWith("roll-");
    assertThat(first.getMetadata().getAnnotations())
        .containsEntry("deployment.kubernetes.io/revision", "1");

    k.apps()
        .deployments()
        .inNamespace("default")
        .withName("roll")
        .edit(
            d -> {
              d.getSpec()
                  .getTemplate()
                  .getSpec()
                  .getContainers()
                  .get(0)
                  .setCommand(List.of("/bin/sh", "-c", "echo two; exec sleep 3600"));
              return d;
            });
    awaitRolledOut("roll", 2);
    List<ReplicaSet> sets = sets("roll");
    assertThat(sets).hasSize(2);
    ReplicaSet second =
        sets.stream()
            .filter(s -> !s.getMetadata().getName().equals(first.getMetadata().getName()))
            .findFirst()
            .orElseThrow();
    assertThat(second.getMetadata().getAnnotations())
        .containsEntry("deployment.kubernetes.io/revision", "2");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        k.apps()
                            .replicaSets()
                            .inNamespace("default")
                            .withName(first.getMetadata().getName())
                            .get()
                            .getSpec()
                            .getReplicas())
                    .isZero());
    assertThat(k.pods().inNamespace("default").withLabel("app", "roll").list().getItems())
        .filteredOn(p -> p.getMetadata().getDeletionTimestamp() == null)
        .allMatch(p -> p.getMetadata().getName().startsWith(second.getMetadata().getName()));

    k.apps().deployments().inNamespace("default").withName("roll").scale(1);
    awaitRolledOut("roll", 1);
  }

  @Test
  void everyPodGetsItsServiceAccountsTokenTheClustersCaAndTheApiAddress() throws Exception {
    Path out = dir.resolve("token");
    String script =
        "d=/out/$(hostname); mkdir -p $d; cp /var/run/secrets/kubernetes.io/serviceaccount/*"
            + " $d/; env > $d/env.tmp; mv $d/env.tmp $d/env; exec sleep 3600";
    k.resource(deployment("token", 1, script, out)).create();
    awaitRolledOut("token", 1);
    Path files;
    try (Stream<Path> s = Files.list(out)) {
      files = s.findFirst().orElseThrow();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(files.resolve("env")));
    assertThat(Files.readString(files.resolve("namespace"))).isEqualTo("default");
    Properties env = new Properties();
    env.load(Files.newBufferedReader(files.resolve("env")));
    String host = env.getProperty("KUBERNETES_SERVICE_HOST");
    String port = env.getProperty("KUBERNETES_SERVICE_PORT");
    assertThat(host).isNotBlank();
    try (KubernetesClient inCluster =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("https://" + host + ":" + port)
                    .withCaCertData(
                        Base64.getEncoder()
                            .encodeToString(Files.readAllBytes(files.resolve("ca.crt"))))
                    .withOauthToken(Files.readString(files.resolve("token")))
                    .withRequestTimeout(10_000)
                    .build())
            .build()) {
      // authenticated as the ServiceAccount (not 401), which no role allows to list secrets
      assertThatThrownBy(() -> inCluster.secrets().inNamespace("default").list())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("system:serviceaccount:default:default")
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
    }
  }

  @Test
  void aPodWhoseServiceAccountDoesNotExistIsRefused() {
    assertThatThrownBy(
            () ->
                k.pods()
                    .resource(
                        new PodBuilder()
                            .withNewMetadata()
                            .withName("no-account")
                            .withNamespace("default")
                            .endMetadata()
                            .withNewSpec()
                            .withServiceAccountName("nobody")
                            .withContainers(Manifests.shell("main", "exec sleep 3600"))
                            .endSpec()
                            .build())
                    .create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("error looking up service account default/nobody");
  }
}
