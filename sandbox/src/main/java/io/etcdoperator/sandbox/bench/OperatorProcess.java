package io.etcdoperator.sandbox.bench;

import io.etcdoperator.sandbox.OperatorLauncher;
import io.etcdoperator.sandbox.process.ProcessSweeper;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The operator as users run it: its own JVM, started from the product jar with the JVM settings the
 * image uses ({@code deploy/image/jvm.options}, sized for the Deployment's memory limit through
 * {@code -XX:MaxRAM}), against the sandbox's API server as the operator's ServiceAccount. The
 * sandbox starts it through {@link OperatorLauncher}; the benchmark reads what only a process of
 * its own can tell: CPU time and resident memory from {@code /proc}, and its {@code /metrics}.
 *
 * <p>The process carries the sandbox's tag, so a sandbox that stops (or one started later in the
 * same directory) kills it even when this JVM could not.
 */
final class OperatorProcess implements OperatorLauncher {
  private final Path jar;
  private final Path jvmOptions;
  private final String maxRam;
  private final Path dir;
  private final String tag;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private volatile Process process;
  private volatile int port;
  private volatile long startedNanos;
  private String masterUrl;
  private String token;

  /**
   * @param jar the product jar
   * @param jvmOptions the argument file of the image's JVM settings
   * @param maxRam the memory the JVM sizes itself for (the Deployment's limit), e.g. {@code 512m}
   * @param dir where its kubeconfig and log go
   * @param tag the sandbox's process tag
   */
  OperatorProcess(Path jar, Path jvmOptions, String maxRam, Path dir, String tag) {
    this.jar = jar;
    this.jvmOptions = jvmOptions;
    this.maxRam = maxRam;
    this.dir = dir;
    this.tag = tag;
  }

  @Override
  public AutoCloseable start(KubernetesClient client) throws Exception {
    masterUrl = client.getConfiguration().getMasterUrl();
    token = client.getConfiguration().getOauthToken();
    spawn();
    return this::stop;
  }

  /** Starts a new operator process (the previous one must be gone). */
  synchronized void spawn() throws IOException {
    Files.createDirectories(dir);
    Path kubeconfig = dir.resolve("operator.kubeconfig");
    Files.writeString(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: sandbox\n  cluster:\n"
            + "    insecure-skip-tls-verify: true\n    server: "
            + masterUrl
            + "\ncontexts:\n- name: sandbox\n  context: {cluster: sandbox, user: operator}\n"
            + "current-context: sandbox\nusers:\n- name: operator\n  user:\n    token: "
            + token
            + "\n");
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("@" + jvmOptions);
    cmd.add("-XX:MaxRAM=" + maxRam);
    // Member names resolve as inside the cluster: through the sandbox's hosts file.
    cmd.add("-Djdk.net.hosts.file=" + System.getProperty("jdk.net.hosts.file"));
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.addAll(
        List.of(
            "run",
            "--kubeconfig",
            kubeconfig.toString(),
            "--http-host",
            "127.0.0.1",
            "--http-port",
            String.valueOf(port)));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put(ProcessSweeper.TAG_VARIABLE, tag);
    // as the image and the launcher set it
    pb.environment().put("MALLOC_ARENA_MAX", "2");
    pb.environment().remove("KUBECONFIG");
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("operator.log").toFile()));
    startedNanos = System.nanoTime();
    process = pb.start();
  }

  /** When the current process was started ({@link System#nanoTime()}). */
  long startedNanos() {
    return startedNanos;
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL, as a node or an OOM kill would end it; waits for it to be gone. */
  synchronized void kill() throws InterruptedException {
    Process p = process;
    p.destroyForcibly();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM (its shutdown hook stops the operator), then SIGKILL after 15 s. */
  synchronized void stop() throws InterruptedException {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    if (!p.waitFor(15, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(15, TimeUnit.SECONDS);
    }
  }

  /** Waits until {@code /readyz} answers 200; throws when the process died or after {@code max}. */
  void awaitReady(Duration max) throws InterruptedException {
    awaitMetrics(max, page -> true, "/readyz", Duration.ofMillis(100));
  }

  /**
   * Waits until the {@code /metrics} page satisfies {@code done}, reading it every {@code every} (a
   * page of a thousand clusters takes the operator time to write: reading it often would slow what
   * is measured); returns the time from process start.
   */
  Duration awaitMetrics(Duration max, Predicate<String> done, Duration every)
      throws InterruptedException {
    return awaitMetrics(max, done, "/metrics", every);
  }

  private Duration awaitMetrics(Duration max, Predicate<String> done, String path, Duration every)
      throws InterruptedException {
    long until = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < until) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the operator process exited with " + process.exitValue() + "; see " + log());
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200 && done.test(r.body())) {
          return Duration.ofNanos(System.nanoTime() - startedNanos);
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(every.toMillis());
    }
    throw new IllegalStateException(
        "the operator did not get there within " + max.toSeconds() + " s; see " + log());
  }

  /** The {@code /metrics} page now. */
  String metrics() throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** User plus system CPU time of the process so far. */
  Duration cpu() throws IOException {
    String stat = Files.readString(Path.of("/proc", String.valueOf(pid()), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields 14 and 15 of stat (utime, stime), counted after the command's closing parenthesis
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    return Duration.ofMillis(ticks * 1000 / clockTicks());
  }

  /**
   * CPU time so far of each of the process's threads, by thread ID, with its group's name: its name
   * with digits dropped (the threads of one pool are one group). JOSDK names a reconcile thread
   * after the resource it reconciles while it does ({@code ReconcilerExecutor-...}): those are
   * named as their pool's threads, so that a thread's time is not credited to two names.
   */
  Map<Long, ThreadTime> threadCpu() throws IOException {
    Map<Long, ThreadTime> out = new TreeMap<>();
    try (var tasks = Files.newDirectoryStream(Path.of("/proc", String.valueOf(pid()), "task"))) {
      for (Path task : tasks) {
        try {
          String name = Files.readString(task.resolve("comm")).trim().replaceAll("[0-9]+", "N");
          if (name.startsWith("ReconcilerExec")) {
            name = "pool-N-thread-N";
          }
          String stat = Files.readString(task.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          out.put(
              Long.parseLong(task.getFileName().toString()),
              new ThreadTime(name, Duration.ofMillis(ticks * 1000 / clockTicks())));
        } catch (IOException | NumberFormatException e) {
          // the thread ended meanwhile
        }
      }
    }
    return out;
  }

  /** One thread's group name and CPU time so far. */
  record ThreadTime(String name, Duration cpu) {}

  /** A line of {@code /proc/<pid>/status} in KiB or as a count, e.g. VmRSS, VmHWM, Threads. */
  long status(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid()), "status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
      }
    }
    throw new IOException("no " + field + " in /proc/" + pid() + "/status");
  }

  /**
   * Heap in use right after a full collection (the live set): {@code jcmd GC.run}, then the heap
   * pools of {@code /metrics}.
   */
  long liveHeapBytes() throws IOException, InterruptedException {
    jcmd("GC.run");
    return (long) Metrics.sum(metrics(), "jvm_memory_used_bytes", l -> l.contains("area=\"heap\""));
  }

  /** Classes loaded in the operator's JVM now (its metrics' {@code jvm_classes_loaded}). */
  long classesLoaded() throws IOException, InterruptedException {
    return (long) Metrics.sum(metrics(), "jvm_classes_loaded_classes", l -> true);
  }

  /** The live objects by class, after a full collection ({@code jcmd GC.class_histogram}). */
  HeapHistogram classHistogram() throws IOException, InterruptedException {
    return HeapHistogram.parse(jcmdOutput("GC.class_histogram"));
  }

  /** Runs a diagnostic command in the operator's JVM (as the {@code jcmd} tool does). */
  void jcmd(String... command) throws IOException, InterruptedException {
    jcmdOutput(command);
  }

  /** Runs a diagnostic command in the operator's JVM and returns what it printed. */
  String jcmdOutput(String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    cmd.add(String.valueOf(pid()));
    cmd.addAll(List.of(command));
    Path out = Files.createTempFile(dir, "jcmd", ".txt");
    try {
      Process jcmd =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      if (!jcmd.waitFor(60, TimeUnit.SECONDS)) {
        jcmd.destroyForcibly();
        throw new IOException("jcmd " + String.join(" ", command) + " did not finish");
      }
      return Files.readString(out);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  Path log() {
    return dir.resolve("operator.log");
  }

  private static long clockTicks() {
    return 100; // USER_HZ on Linux
  }
}
