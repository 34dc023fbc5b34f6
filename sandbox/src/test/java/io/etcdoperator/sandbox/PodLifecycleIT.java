package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.sandbox.kubelet.PodHandle;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kubelet: restart policy, restart counts, probes, env and ConfigMaps, bare pods. */
class PodLifecycleIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static KubernetesClient k;

  @BeforeAll
  static void start() {
    sandbox = SandboxFixture.start(dir);
    k = sandbox.client();
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  private static Pod create(String name, String restartPolicy, Container c) {
    c.setVolumeMounts(
        List.of(
            new VolumeMountBuilder()
                .withName("work")
                .withMountPath("/var/run/sandbox-it/work")
                .build()));
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .withLabels(Map.of("app", name))
            .endMetadata()
            .withNewSpec()
            .withRestartPolicy(restartPolicy)
            .withTerminationGracePeriodSeconds(2L)
            .withContainers(c)
            .addNewVolume()
            .withName("work")
            .withEmptyDir(new EmptyDirVolumeSource())
            .endVolume()
            .endSpec()
            .build();
    return k.pods().resource(p).create();
  }

  private static Pod get(String name) {
    return k.pods().inNamespace("default").withName(name).get();
  }

  private static String phase(String name) {
    Pod p = get(name);
    return p == null || p.getStatus() == null ? null : p.getStatus().getPhase();
  }

  private static ContainerStatus status(String name) {
    Pod p = get(name);
    return p == null || p.getStatus() == null || p.getStatus().getContainerStatuses().isEmpty()
        ? null
        : p.getStatus().getContainerStatuses().get(0);
  }

  @Test
  void alwaysRestartsACrashingContainerAndCountsRestarts() {
    create("crash", "Always", Manifests.shell("main", "sleep 0.2; exit 3"));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              ContainerStatus s = status("crash");
              assertThat(s).isNotNull();
              assertThat(s.getRestartCount()).isGreaterThanOrEqualTo(3);
              assertThat(s.getLastState().getTerminated()).isNotNull();
              assertThat(s.getLastState().getTerminated().getExitCode()).isEqualTo(3);
              assertThat(get("crash").getStatus().getPhase()).isEqualTo("Running");
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () ->
                assertThat(status("crash").getState().getWaiting())
                    .isNotNull()
                    .extracting(w -> w.getReason())
                    .isEqualTo("CrashLoopBackOff"));
  }

  @Test
  void fallbackToLogsOnErrorPutsTheTailOfTheOutputInTheTerminationMessage() {
    Container failing =
        Manifests.shell(
            "main", "for i in $(seq 1 100); do echo line $i; done; echo boom >&2; exit 2");
    failing.setTerminationMessagePolicy("FallbackToLogsOnError");
    create("last-words", "Never", failing);
    Container quiet = Manifests.shell("main", "echo fine; exit 0");
    quiet.setTerminationMessagePolicy("FallbackToLogsOnError");
    create("no-last-words", "Never", quiet);
    Container file = Manifests.shell("main", "echo boom; exit 2");
    create("file-policy", "Never", file);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              for (String pod : List.of("last-words", "no-last-words", "file-policy")) {
                assertThat(status(pod)).isNotNull();
                assertThat(status(pod).getState().getTerminated()).isNotNull();
              }
              String message = status("last-words").getState().getTerminated().getMessage();
              assertThat(message).endsWith("boom").contains("line 100").doesNotContain("line 20\n");
              assertThat(message.lines().count()).isEqualTo(80);
              assertThat(status("no-last-words").getState().getTerminated().getMessage()).isNull();
              assertThat(status("file-policy").getState().getTerminated().getMessage()).isNull();
            });
  }

  @Test
  void onFailureAndNeverFollowTheirPolicies() {
    create("ok-once", "OnFailure", Manifests.shell("main", "exit 0"));
    create("fail-once", "Never", Manifests.shell("main", "exit 7"));
    create("fail-retry", "OnFailure", Manifests.shell("main", "exit 1"));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              assertThat(phase("ok-once")).isEqualTo("Succeeded");
              assertThat(status("ok-once").getRestartCount()).isZero();
              assertThat(status("fail-retry")).isNotNull();
              assertThat(phase("fail-once")).isEqualTo("Failed");
              assertThat(status("fail-once").getState().getTerminated().getExitCode()).isEqualTo(7);
              assertThat(status("fail-retry").getRestartCount()).isGreaterThanOrEqualTo(1);
            });
  }

  /**
   * Each container's last notice of its status comes from its runner's thread while that thread is
   * still alive; the container must count as finished by then, or the status computed for that
   * notice says Running and nothing tells it again (a backup's delete pod stayed Running so in a
   * full run, and its EtcdBackup was never deleted). The window is short: many short pods, so that
   * it is hit if it opens again.
   */
  @Test
  void everyPodWhoseContainersExitedEndsSucceededOrFailed() {
    List<String> names = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String name = "short-" + i;
      names.add(name);
      create(name, i % 2 == 0 ? "Never" : "OnFailure", Manifests.shell("main", "exit 0"));
    }
    create("short-failed", "Never", Manifests.shell("main", "exit 4"));
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              for (String name : names) {
                assertThat(phase(name)).as(name).isEqualTo("Succeeded");
              }
              assertThat(phase("short-failed")).isEqualTo("Failed");
            });
    names.forEach(n -> k.pods().inNamespace("default").withName(n).delete());
    k.pods().inNamespace("default").withName("short-failed").delete();
  }

  @Test
  void readinessProbeDrivesTheReadyCondition() throws Exception {
    Container c = Manifests.shell("main", "exec sleep 3600");
    c.setReadinessProbe(
        new ProbeBuilder()
            .withNewExec()
            .withCommand("cat", "/var/run/sandbox-it/work/ready")
            .endExec()
            .withPeriodSeconds(1)
            .withFailureThreshold(1)
            .build());
    create("gate", "Always", c);
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                sandbox.kubelet().pod("default", "gate") != null
                    && sandbox.kubelet().pod("default", "gate").pid("main") > 0);
    Thread.sleep(1500);
    assertThat(StatefulSetIT.ready(get("gate"))).isFalse();
    assertThat(get("gate").getStatus().getPhase()).isEqualTo("Running");
    Path work = sandbox.kubelet().pod("default", "gate").volume("work");
    Files.writeString(work.resolve("ready"), "1");
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> StatefulSetIT.ready(get("gate")));
    Files.delete(work.resolve("ready"));
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !StatefulSetIT.ready(get("gate")));
    assertThat(status("gate").getRestartCount()).isZero();
  }

  @Test
  void failingLivenessProbeRestartsTheContainer() throws Exception {
    Container c = Manifests.shell("main", "touch /var/run/sandbox-it/work/alive; exec sleep 3600");
    c.setLivenessProbe(
        new ProbeBuilder()
            .withNewExec()
            .withCommand("cat", "/var/run/sandbox-it/work/alive")
            .endExec()
            .withPeriodSeconds(1)
            .withFailureThreshold(2)
            .build());
    create("live", "Always", c);
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> StatefulSetIT.ready(get("live")));
    long pid = sandbox.kubelet().pod("default", "live").pid("main");
    Path alive = sandbox.kubelet().pod("default", "live").volume("work").resolve("alive");
    await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(alive));
    Files.delete(alive);
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              assertThat(status("live").getRestartCount()).isGreaterThanOrEqualTo(1);
              assertThat(sandbox.kubelet().pod("default", "live").pid("main"))
                  .isPositive()
                  .isNotEqualTo(pid);
            });
    // the restarted container touched the file again and stays alive
    Thread.sleep(3000);
    assertThat(status("live").getRestartCount()).isEqualTo(1);
  }

  @Test
  void probesOfHostsOutsideTheSandboxFailWithoutLeavingTheMachine() throws Exception {
    Container c = Manifests.shell("main", "exec sleep 3600");
    c.setReadinessProbe(
        new ProbeBuilder()
            .withNewHttpGet()
            .withHost("ifconfig.me")
            .withPath("/")
            .withPort(new IntOrString(80))
            .withScheme("HTTP")
            .endHttpGet()
            .withPeriodSeconds(1)
            .build());
    create("outside", "Always", c);
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                sandbox.kubelet().pod("default", "outside") != null
                    && sandbox.kubelet().pod("default", "outside").pid("main") > 0);
    Thread.sleep(2500);
    assertThat(StatefulSetIT.ready(get("outside"))).isFalse();
    Path log = dir.resolve("logs/default_outside_main.log");
    assertThat(Files.readString(log)).contains("host ifconfig.me is unreachable from the sandbox");
  }

  @Test
  void httpAndTcpProbesReachThePodAddress() {
    Container c =
        new io.fabric8.kubernetes.api.model.ContainerBuilder()
            .withName("etcd")
            .withImage("etcd")
            .withArgs(
                "--data-dir=/var/run/sandbox-it/work/etcd",
                "--listen-client-urls=http://0.0.0.0:2379",
                "--advertise-client-urls=http://localhost:2379")
            .build();
    c.setReadinessProbe(
        new ProbeBuilder()
            .withNewHttpGet()
            .withPath("/health")
            .withPort(new IntOrString(2379))
            .endHttpGet()
            .withPeriodSeconds(1)
            .build());
    c.setLivenessProbe(
        new ProbeBuilder()
            .withNewTcpSocket()
            .withPort(new IntOrString(2380))
            .endTcpSocket()
            .withPeriodSeconds(1)
            .build());
    create("single", "Always", c);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> StatefulSetIT.ready(get("single")));
    String ip = get("single").getStatus().getPodIP();
    assertThat(ip).startsWith("127.2");
    assertThat(status("single").getRestartCount()).isZero();
  }

  @Test
  void envFromConfigMapsFieldRefsAndExpansion() throws Exception {
    k.configMaps()
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("settings")
                .withNamespace("default")
                .endMetadata()
                .withData(Map.of("COLOR", "blue", "SIZE", "3"))
                .build())
        .create();
    Container c =
        Manifests.shell(
            "main",
            "echo \"$COLOR $SIZE $ME $GREETING $(NOT_EXPANDED_BY_SH)\" > /var/run/sandbox-it/work/out; exec sleep 3600");
    c.setCommand(
        List.of(
            "/bin/sh",
            "-c",
            "echo \"$COLOR $SIZE $ME $GREETING\" > /var/run/sandbox-it/work/out; exec sleep 3600"));
    c.setEnvFrom(
        List.of(
            new io.fabric8.kubernetes.api.model.EnvFromSourceBuilder()
                .withNewConfigMapRef("settings", false)
                .build()));
    c.setEnv(
        List.of(
            new io.fabric8.kubernetes.api.model.EnvVarBuilder()
                .withName("ME")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .build(),
            new io.fabric8.kubernetes.api.model.EnvVarBuilder()
                .withName("GREETING")
                .withValue("hello-$(ME)-$(COLOR)-$$(ME)")
                .build()));
    create("envy", "Always", c);
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> StatefulSetIT.ready(get("envy")));
    PodHandle h = sandbox.kubelet().pod("default", "envy");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> Files.exists(h.volume("work").resolve("out")));
    assertThat(Files.readString(h.volume("work").resolve("out")))
        .isEqualTo("blue 3 envy hello-envy-blue-$(ME)\n");
  }

  @Test
  void missingConfigMapKeepsTheContainerWaitingUntilItAppears() {
    Container c = Manifests.shell("main", "exec sleep 3600");
    c.setEnvFrom(
        List.of(
            new io.fabric8.kubernetes.api.model.EnvFromSourceBuilder()
                .withNewConfigMapRef("later", false)
                .build()));
    create("waits", "Always", c);
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              ContainerStatus s = status("waits");
              assertThat(s).isNotNull();
              assertThat(s.getState().getWaiting()).isNotNull();
              assertThat(s.getState().getWaiting().getReason())
                  .isEqualTo("CreateContainerConfigError");
              assertThat(get("waits").getStatus().getPhase()).isEqualTo("Pending");
            });
    k.configMaps()
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("later")
                .withNamespace("default")
                .endMetadata()
                .withData(Map.of("A", "1"))
                .build())
        .create();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> StatefulSetIT.ready(get("waits")));
  }

  @Test
  void initContainersRunToCompletionFirst() throws Exception {
    Container main =
        Manifests.shell(
            "main",
            "cat /var/run/sandbox-it/work/init-done > /var/run/sandbox-it/work/seen; exec sleep 3600");
    main.setVolumeMounts(
        List.of(
            new VolumeMountBuilder()
                .withName("work")
                .withMountPath("/var/run/sandbox-it/work")
                .build()));
    Container init =
        Manifests.shell("prepare", "sleep 0.5; echo prepared > /var/run/sandbox-it/work/init-done");
    init.setVolumeMounts(main.getVolumeMounts());
    k.pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("inits")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withInitContainers(init)
                .withContainers(main)
                .addNewVolume()
                .withName("work")
                .withEmptyDir(new EmptyDirVolumeSource())
                .endVolume()
                .endSpec()
                .build())
        .create();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> StatefulSetIT.ready(get("inits")));
    Pod p = get("inits");
    assertThat(p.getStatus().getInitContainerStatuses()).hasSize(1);
    assertThat(
            p.getStatus()
                .getInitContainerStatuses()
                .get(0)
                .getState()
                .getTerminated()
                .getExitCode())
        .isZero();
    assertThat(p.getStatus().getConditions())
        .anyMatch(c -> c.getType().equals("Initialized") && c.getStatus().equals("True"));
    Path work = sandbox.kubelet().pod("default", "inits").volume("work");
    await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(work.resolve("seen")));
    assertThat(Files.readString(work.resolve("seen"))).isEqualTo("prepared\n");
  }

  @Test
  void aFailedInitContainerWithRestartPolicyNeverFailsThePod() {
    k.pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("badinit")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withInitContainers(Manifests.shell("prepare", "exit 4"))
                .withContainers(Manifests.shell("main", "exec sleep 3600"))
                .endSpec()
                .build())
        .create();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> "Failed".equals(phase("badinit")));
    assertThat(
            get("badinit")
                .getStatus()
                .getInitContainerStatuses()
                .get(0)
                .getState()
                .getTerminated()
                .getExitCode())
        .isEqualTo(4);
    assertThat(sandbox.kubelet().pod("default", "badinit").pid("main")).isEqualTo(-1);
  }

  @Test
  void deletionIsGracefulThePodStaysTerminatingUntilItsProcessesAreGone() throws Exception {
    create(
        "slow",
        "Always",
        Manifests.shell(
            "main", "trap 'echo bye; sleep 1; exit 0' TERM; while true; do sleep 0.1; done"));
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> StatefulSetIT.ready(get("slow")));
    k.pods().inNamespace("default").withName("slow").delete();
    Pod terminating = get("slow");
    assertThat(terminating).isNotNull();
    assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> get("slow") == null);
    assertThat(Files.readString(dir.resolve("logs/default_slow_main.log"))).contains("bye");

    create(
        "forced",
        "Always",
        Manifests.shell("main", "trap '' TERM; while true; do sleep 0.1; done"));
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> StatefulSetIT.ready(get("forced")));
    k.pods().inNamespace("default").withName("forced").withGracePeriod(0).delete();
    assertThat(get("forced")).isNull();
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> sandbox.kubelet().pod("default", "forced") == null);
  }
}
