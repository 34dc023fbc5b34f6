package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.sandbox.process.ProcessSweeper;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing the sandbox started outlives it: not after a failed test, not after its JVM is killed.
 */
class NoLeftoversIT {
  @TempDir Path dir;

  /** Alive and not a zombie waiting to be reaped by init. */
  static boolean running(long pid) {
    try {
      String stat = java.nio.file.Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).charAt(0) != 'Z';
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void aTestThatFailsHalfWayLeavesNoProcess() {
    SandboxConfig config = SandboxFixture.fastConfig(dir);
    assertThatThrownBy(
            () -> {
              try (Sandbox sandbox = Sandbox.start(config, OperatorLauncher.NONE)) {
                sandbox
                    .client()
                    .pods()
                    .resource(
                        new PodBuilder()
                            .withNewMetadata()
                            .withName("p")
                            .withNamespace("default")
                            .endMetadata()
                            .withNewSpec()
                            .withContainers(Manifests.shell("main", "sleep 3600 & wait"))
                            .endSpec()
                            .build())
                    .create();
                await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> ProcessSweeper.find(config.tag()).size() >= 2);
                throw new IllegalStateException("the test fails half-way");
              }
            })
        .hasMessage("the test fails half-way");
    assertThat(ProcessSweeper.find(config.tag())).isEmpty();
  }

  @Test
  void aKilledJvmsProcessesAreSweptByTheNextSandboxInTheSameDirectory() throws Exception {
    SandboxConfig config = SandboxFixture.fastConfig(dir);
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Djdk.net.hosts.file=" + dir.resolve("child-hosts"),
                LeakyMain.class.getName(),
                dir.toString())
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line;
      long mainPid = -1;
      while ((line = out.readLine()) != null) {
        if (line.startsWith("READY ")) {
          mainPid = Long.parseLong(line.substring(6).trim());
          break;
        }
      }
      assertThat(mainPid).as("the child's pod started").isPositive();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ProcessSweeper.find(config.tag()).size() >= 2);

      child.destroyForcibly();
      assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();

      // the container's main process dies with the JVM (parent-death signal); its grandchild does
      // not
      long main = mainPid;
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ProcessHandle.of(main).map(p -> !p.isAlive()).orElse(true));
      List<Long> leftovers = ProcessSweeper.find(config.tag());
      assertThat(leftovers).as("an orphaned grandchild survives the killed JVM").isNotEmpty();

      try (Sandbox next = Sandbox.start(config, OperatorLauncher.NONE)) {
        assertThat(ProcessSweeper.find(config.tag())).isEmpty();
        for (long pid : leftovers) {
          await().atMost(Duration.ofSeconds(5)).until(() -> !running(pid));
        }
      }
    } finally {
      child.destroyForcibly();
      ProcessSweeper.sweep(config.tag());
    }
  }

  /**
   * {@code etcd-operator sandbox} in the background runs the sandbox in a child JVM of the one
   * started (the launcher); killing the launcher with SIGKILL passes nothing on, yet the sandbox
   * notices within seconds and stops every process it started.
   */
  @Test
  void aSandboxWhoseLauncherIsKilledStopsWithinSeconds() throws Exception {
    Path manifest = dir.resolve("pod.yaml");
    java.nio.file.Files.writeString(
        manifest,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: sleeper, namespace: default}\n"
            + "spec:\n  containers:\n  - name: main\n    image: busybox\n"
            + "    command: [/bin/sh, -c, 'sleep 3600 & wait']\n");
    Path state = dir.resolve("state");
    String tag = SandboxConfig.defaults(state).tag();
    Process launcher =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                io.etcdoperator.sandbox.cli.SandboxMain.class.getName(),
                "-f",
                manifest.toString(),
                "--dir",
                state.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("launcher.log").toFile())
            .start();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> ProcessSweeper.find(tag).size() >= 2);
      List<ProcessHandle> sandboxJvm = launcher.toHandle().children().toList();
      assertThat(sandboxJvm).as("the sandbox runs in a child JVM of the launcher").hasSize(1);

      launcher.destroyForcibly(); // SIGKILL
      assertThat(launcher.waitFor(10, TimeUnit.SECONDS)).isTrue();

      long killed = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> ProcessSweeper.find(tag).isEmpty() && !sandboxJvm.get(0).isAlive());
      System.out.printf(
          "sandbox stopped %d ms after its launcher was killed%n",
          (System.nanoTime() - killed) / 1_000_000);
    } finally {
      launcher.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      launcher.destroyForcibly();
      ProcessSweeper.sweep(tag);
    }
  }
}
