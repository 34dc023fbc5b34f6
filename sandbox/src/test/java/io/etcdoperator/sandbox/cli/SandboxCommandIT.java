package io.etcdoperator.sandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcdoperator.sandbox.OperatorLauncher;
import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code sandbox} command and its {@code fault} verbs. */
class SandboxCommandIT {
  @TempDir Path dir;

  record Run(int code, String out, String err) {}

  static Run run(Object command, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream o = System.out;
    PrintStream e = System.err;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code = new CommandLine(command).execute(args);
      return new Run(
          code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(o);
      System.setErr(e);
    }
  }

  /** A command whose output is captured. */
  record Captured(SandboxCommand command, ByteArrayOutputStream sink) {
    int execute(String... args) {
      return new CommandLine(command).execute(args);
    }

    @Override
    public String toString() {
      return sink.toString(StandardCharsets.UTF_8);
    }
  }

  static Captured command() {
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(sink, true, StandardCharsets.UTF_8);
    return new Captured(new SandboxCommand(OperatorLauncher.NONE, ps, ps), sink);
  }

  @Test
  void untilReadyExitsZeroWhenEveryPodIsReadyAndPrintsProgress() throws Exception {
    Path manifest = dir.resolve("pods.yaml");
    Files.writeString(
        manifest,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: one, namespace: default}\n"
            + "spec:\n  containers:\n  - {name: main, image: busybox, command: [/bin/sh, -c, 'exec sleep 3600']}\n");
    Captured cmd = command();
    int code =
        cmd.execute(
            "-f",
            manifest.toString(),
            "--dir",
            dir.resolve("state").toString(),
            "--until-ready",
            "--timeout",
            "60s");
    assertThat(code).as(cmd.toString()).isZero();
    assertThat(cmd.toString())
        .contains("applied Pod default/one", "pod default/one: Running, ready");
    assertThat(dir.resolve("state/kubeconfig")).exists();
  }

  @Test
  void untilReadyFailsWithTheReasonAfterTheTimeout() {
    Captured cmd = command();
    int code =
        cmd.execute("--dir", dir.resolve("state").toString(), "--until-ready", "--timeout", "3s");
    assertThat(code).isEqualTo(1);
    assertThat(cmd.toString())
        .contains("applied EtcdCluster default/test")
        .contains(
            "not ready after 3s: default/test: no Ready condition in its status yet (is the operator running?)");
  }

  @Test
  void anUnreadableManifestIsOneSentence() {
    Captured cmd = command();
    int code =
        cmd.execute(
            "-f",
            dir.resolve("missing.yaml").toString(),
            "--dir",
            dir.resolve("state").toString(),
            "--until-ready");
    assertThat(code).isEqualTo(2);
    assertThat(cmd.toString())
        .contains("sandbox: cannot read manifest")
        .doesNotContain("Exception");
  }

  @Test
  void faultVerbsReachARunningSandbox() throws Exception {
    Path state = dir.resolve("state");
    try (Sandbox sandbox =
        Sandbox.start(
            SandboxConfig.defaults(state)
                .withRestartBackoff(Duration.ofMillis(500), Duration.ofSeconds(2)),
            OperatorLauncher.NONE)) {
      sandbox
          .client()
          .pods()
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("victim")
                  .withNamespace("default")
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("main")
                  .withImage("busybox")
                  .withCommand("/bin/sh", "-c", "exec sleep 3600")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  sandbox.kubelet().pod("default", "victim") != null
                      && sandbox.kubelet().pod("default", "victim").pid(null) > 0);
      long pid = sandbox.kubelet().pod("default", "victim").pid(null);

      Run kill = run(new FaultCommand(), "kill", "victim", "--dir", state.toString());
      assertThat(kill.code()).as(kill.err()).isZero();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  sandbox.kubelet().pod("default", "victim").pid(null) > 0
                      && sandbox.kubelet().pod("default", "victim").pid(null) != pid);

      assertThat(run(new FaultCommand(), "freeze", "victim", "--dir", state.toString()).code())
          .isZero();
      long frozen = sandbox.kubelet().pod("default", "victim").pid(null);
      awaitStopped(frozen);
      assertThat(run(new FaultCommand(), "thaw", "victim", "--dir", state.toString()).code())
          .isZero();
      assertThat(run(new FaultCommand(), "operator", "stop", "--dir", state.toString()).out())
          .contains("operator stopping");
      await().atMost(Duration.ofSeconds(10)).until(() -> !sandbox.operatorRunning());
      assertThat(run(new FaultCommand(), "operator", "start", "--dir", state.toString()).out())
          .contains("operator starting");
      await().atMost(Duration.ofSeconds(10)).until(sandbox::operatorRunning);

      Run missing = run(new FaultCommand(), "kill", "nobody", "--dir", state.toString());
      assertThat(missing.code()).isEqualTo(1);
      assertThat(missing.err()).contains("no running pod default/nobody");

      assertThat(run(new FaultCommand(), "delete", "victim", "--dir", state.toString()).code())
          .isZero();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  sandbox.client().pods().inNamespace("default").withName("victim").get() == null);
    }
    Run stopped = run(new FaultCommand(), "kill", "victim", "--dir", state.toString());
    assertThat(stopped.code()).isEqualTo(2);
    assertThat(stopped.err()).contains("is not running");
    Run nowhere =
        run(new FaultCommand(), "kill", "victim", "--dir", dir.resolve("nothing").toString());
    assertThat(nowhere.err()).contains("no sandbox in");
  }

  @Test
  void nodeFaultVerbsReachARunningSandbox() throws Exception {
    Path state = dir.resolve("nodes");
    try (Sandbox sandbox =
        Sandbox.start(
            SandboxConfig.defaults(state)
                .withNodeTimings(
                    Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofSeconds(1)),
            OperatorLauncher.NONE)) {
      sandbox
          .client()
          .pods()
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("on-one")
                  .withNamespace("default")
                  .endMetadata()
                  .withNewSpec()
                  .withNodeSelector(java.util.Map.of("kubernetes.io/hostname", "node-1"))
                  .addNewContainer()
                  .withName("main")
                  .withImage("busybox")
                  .withCommand("/bin/sh", "-c", "exec sleep 3600")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  sandbox.kubelet().pod("default", "on-one") != null
                      && sandbox.kubelet().pod("default", "on-one").pid(null) > 0);
      long pid = sandbox.kubelet().pod("default", "on-one").pid(null);

      Run down = run(new FaultCommand(), "node-down", "node-1", "--dir", state.toString());
      assertThat(down.code()).as(down.err()).isZero();
      assertThat(down.out()).contains("node node-1 is down");
      awaitStopped(pid);
      Run up = run(new FaultCommand(), "node-up", "node-1", "--dir", state.toString());
      assertThat(up.out()).contains("node node-1 is up");
      Run unknown = run(new FaultCommand(), "node-down", "node-9", "--dir", state.toString());
      assertThat(unknown.code()).isEqualTo(1);
      assertThat(unknown.err()).contains("no node node-9");
      Run delete = run(new FaultCommand(), "node-delete", "node-1", "--dir", state.toString());
      assertThat(delete.out()).contains("node node-1 deleted");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  sandbox.client().nodes().withName("node-1").get() == null
                      && sandbox.client().pods().inNamespace("default").withName("on-one").get()
                          == null);
    }
    Captured cmd = command();
    assertThat(cmd.execute("--nodes", "0", "--dir", dir.resolve("zero").toString())).isEqualTo(2);
    assertThat(cmd.toString()).contains("--nodes must be at least 1");
  }

  /**
   * {@code sandbox benchmark}, as README's launcher runs it (the jar, no {@code --etcd}), once each
   * way: it runs itself again in a JVM that resolves sandbox names, and prints the times and their
   * ratios (it once failed there, before any run, on the {@code --etcd} it had not been given).
   */
  @Test
  void benchmarkRunsOnceEachWayAndPrintsTheRatio() throws Exception {
    assumeTrue(Boolean.getBoolean("long.all.cases"), "a benchmark (86 s): -Plong");
    Path jar = Path.of("target", "etcd-operator-sandbox.jar").toAbsolutePath();
    assumeTrue(Files.exists(jar), "the launcher jar is built in the package phase");
    Path log = dir.resolve("benchmark.log");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString(),
                "sandbox",
                "benchmark",
                "--runs",
                "1",
                "--dir",
                dir.resolve("bench").toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("the benchmark ended").isTrue();
      String out = Files.readString(log);
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out)
          .contains("run 1: by hand ")
          // where the time went, read from the pods and the members' logs (Milestones)
          // the by-hand baseline paced as the sandbox's containers started, from the same run
          .containsPattern("run 1: by hand [0-9]+ ms, paced like the pods [0-9]+ ms, sandbox")
          .containsPattern(
              "sandbox [0-9]+ ms \\(StatefulSet .*, every object .*, pods scheduled \\+[0-9]+ ms,"
                  + " containers started \\+[0-9]+ ms, etcd formed \\+[0-9]+ ms, pods Ready ")
          .containsPattern(
              "each member started when the sandbox's container did: [0-9]+ ms;"
                  + " ratio sandbox/that: [0-9]+[.,][0-9]{2} \\(goal <= 1.15\\)")
          .containsPattern("all at once: [0-9]+ ms; ratio sandbox/that: [0-9]+[.,][0-9]{2}")
          // the reactions on the cluster once Ready, every figure seen (Reactions)
          .containsPattern(
              "run 1 reactions \\(reaction/settled\\): member killed -?[0-9]+ ms/-?[0-9]+ ms,"
                  + " member wiped -?[0-9]+ ms/-?[0-9]+ ms, roll of 3 -?[0-9]+ ms/-?[0-9]+ ms,"
                  + " scale-up 3 -> 4 -?[0-9]+ ms/-?[0-9]+ ms")
          .containsPattern(
              "scale-up 3 -> 4: spec seen -> first action -?[0-9]+ ms \\(goal <= 100 ms\\);"
                  + " new member promoted and Ready -> status -?[0-9]+ ms \\(goal <= 100 ms\\)")
          .doesNotContain("(unseen)")
          .doesNotContain("\tat ");
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void withoutRootItSaysSoInOneSentence() throws Exception {
    Path jar = Path.of("target", "etcd-operator-sandbox.jar").toAbsolutePath();
    assumeTrue(Files.exists(jar), "the launcher jar is built in the package phase");
    Path open =
        Files.createTempDirectory(
            "sandbox-noroot",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
    try {
      Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
      Path copy =
          Files.copy(jar, open.resolve("etcd-operator.jar"), StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
      Process p =
          new ProcessBuilder(
                  "setpriv",
                  "--reuid=65534",
                  "--regid=65534",
                  "--clear-groups",
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-jar",
                  copy.toString(),
                  "sandbox",
                  "--dir",
                  open.resolve("state").toString(),
                  "--until-ready",
                  "--timeout",
                  "5s")
              .redirectErrorStream(true)
              .start();
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isEqualTo(2);
      assertThat(out)
          .contains("The sandbox needs root")
          .contains("run it as root.")
          .doesNotContain("Exception")
          .doesNotContain("\tat ");
    } finally {
      try (var s = Files.walk(open)) {
        s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  /**
   * The process is stopped ('T' in /proc). SIGSTOP is delivered when the process is next scheduled:
   * on a busy machine /proc says 'R' a moment longer (seen twice in full runs, the second time past
   * 5 s while the other fork's tests ran etcd clusters).
   */
  private static void awaitStopped(long pid) {
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
              return stat.substring(stat.lastIndexOf(')') + 2).charAt(0) == 'T';
            });
  }
}
