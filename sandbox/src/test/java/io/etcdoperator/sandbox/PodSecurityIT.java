package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pod Security Admission for a namespace that enforces "restricted", and containers that run as the
 * uid and groups their security context names, with fsGroup applied to their volumes.
 */
class PodSecurityIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static KubernetesClient k;

  @BeforeAll
  static void start() {
    sandbox = SandboxFixture.start(dir);
    k = sandbox.client();
    k.namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName("secure")
                .withLabels(Map.of("pod-security.kubernetes.io/enforce", "restricted"))
                .endMetadata()
                .build())
        .create();
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  static Pod pod(String ns, String name, Container c, boolean restrictedPod) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(ns)
            .endMetadata()
            .withNewSpec()
            .withContainers(c)
            .addNewVolume()
            .withName("data")
            .withNewEmptyDir()
            .endEmptyDir()
            .endVolume()
            .endSpec();
    if (restrictedPod) {
      b.editSpec()
          .withSecurityContext(
              new PodSecurityContextBuilder()
                  .withRunAsNonRoot(true)
                  .withRunAsUser(65532L)
                  .withRunAsGroup(65532L)
                  .withFsGroup(65533L)
                  .withNewSeccompProfile()
                  .withType("RuntimeDefault")
                  .endSeccompProfile()
                  .build())
          .endSpec();
    }
    return b.build();
  }

  static Container shell(String script, boolean restricted) {
    Container c = Manifests.shell("main", script);
    c.setVolumeMounts(
        java.util.List.of(
            new io.fabric8.kubernetes.api.model.VolumeMountBuilder()
                .withName("data")
                .withMountPath("/data")
                .build()));
    if (restricted) {
      c.setSecurityContext(
          new SecurityContextBuilder()
              .withAllowPrivilegeEscalation(false)
              .withNewCapabilities()
              .withDrop("ALL")
              .endCapabilities()
              .build());
    }
    return c;
  }

  @Test
  void aPodThatIsNotRestrictedIsRefusedAsTheApiServerSaysIt() {
    assertThatThrownBy(
            () -> k.resource(pod("secure", "loose", shell("sleep 3600", false), false)).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getStatus().getReason()).isEqualTo("Forbidden");
              assertThat(e.getStatus().getMessage())
                  .isEqualTo(
                      "pods \"loose\" is forbidden: violates PodSecurity \"restricted:latest\":"
                          + " allowPrivilegeEscalation != false (container \"main\" must set"
                          + " securityContext.allowPrivilegeEscalation=false), unrestricted"
                          + " capabilities (container \"main\" must set"
                          + " securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true"
                          + " (pod or container \"main\" must set"
                          + " securityContext.runAsNonRoot=true), seccompProfile (pod or container"
                          + " \"main\" must set securityContext.seccompProfile.type to"
                          + " \"RuntimeDefault\" or \"Localhost\")");
            });
    Pod hostPath = pod("secure", "hostpath", shell("sleep 3600", true), true);
    hostPath.getSpec().getVolumes().get(0).setEmptyDir(null);
    hostPath
        .getSpec()
        .getVolumes()
        .get(0)
        .setHostPath(new io.fabric8.kubernetes.api.model.HostPathVolumeSource("/tmp", null));
    assertThatThrownBy(() -> k.resource(hostPath).create())
        .hasMessageContaining("hostPath volumes (volume \"data\")")
        .hasMessageContaining(
            "restricted volume types (volume \"data\" uses restricted volume type \"hostPath\")");
  }

  @Test
  void aRestrictedPodRunsAsItsUidWithItsGroupsAndOwnsItsVolume() throws Exception {
    k.resource(
            pod(
                "secure",
                "tight",
                shell("id > /data/id; touch /data/made; exec sleep 3600", true),
                true))
        .create();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                sandbox.kubelet().pod("secure", "tight") != null
                    && sandbox.kubelet().pod("secure", "tight").volume("data") != null
                    && Files.exists(
                        sandbox.kubelet().pod("secure", "tight").volume("data").resolve("made")));
    var h = sandbox.kubelet().pod("secure", "tight");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                Files.readString(Path.of("/proc", String.valueOf(h.pid("main")), "status"))
                    .contains("Uid:\t65532"));
    String status = Files.readString(Path.of("/proc", String.valueOf(h.pid("main")), "status"));
    assertThat(status).contains("Uid:\t65532\t65532\t65532\t65532");
    assertThat(status).contains("Gid:\t65532\t65532\t65532\t65532");
    assertThat(status).containsPattern("Groups:\t65533\\s*\n");
    assertThat(status).contains("NoNewPrivs:\t1");
    Path data = h.volume("data");
    assertThat(Files.readString(data.resolve("id"))).contains("uid=65532").contains("65533");
    assertThat(Files.getAttribute(data, "unix:gid")).isEqualTo(65533);
    assertThat((Integer) Files.getAttribute(data, "unix:mode") & 02070).isEqualTo(02070);
    assertThat(Files.getAttribute(data.resolve("made"), "unix:gid"))
        .as("setgid: new files get the fsGroup")
        .isEqualTo(65533);
  }

  @Test
  void withoutRunAsUserAContainerRunsAsRootAndRunAsNonRootThenRefusesToStart() throws Exception {
    k.resource(pod("default", "rooted", shell("exec sleep 3600", false), false)).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                sandbox.kubelet().pod("default", "rooted") != null
                    && sandbox.kubelet().pod("default", "rooted").pid("main") > 0);
    String status =
        Files.readString(
            Path.of(
                "/proc",
                String.valueOf(sandbox.kubelet().pod("default", "rooted").pid("main")),
                "status"));
    assertThat(status).contains("Uid:\t0\t0\t0\t0");

    Container c = shell("exec sleep 3600", false);
    c.setSecurityContext(new SecurityContextBuilder().withRunAsNonRoot(true).build());
    k.resource(pod("default", "nonroot", c, false)).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              var s = k.pods().inNamespace("default").withName("nonroot").get().getStatus();
              assertThat(s.getContainerStatuses()).isNotEmpty();
              var waiting = s.getContainerStatuses().get(0).getState().getWaiting();
              assertThat(waiting).isNotNull();
              assertThat(waiting.getReason()).isEqualTo("CreateContainerConfigError");
              assertThat(waiting.getMessage())
                  .startsWith("container has runAsNonRoot and image will run as root");
            });
  }
}
