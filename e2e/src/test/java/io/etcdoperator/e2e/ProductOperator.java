package io.etcdoperator.e2e;

import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.net.JvmHosts;
import io.etcdoperator.sandbox.process.ProcessSweeper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The product jar run on its own against a sandbox, as {@code ./etcd-operator run --kubeconfig
 * <dir>/kubeconfig} runs it (the image's JVM settings, 512 MiB of memory as its Deployment's limit
 * gives it), the members' names resolving through the sandbox's hosts file: the operator in a
 * process of its own, whose memory a test can measure apart from the sandbox's.
 */
final class ProductOperator implements AutoCloseable {
  static final Path JAR = Path.of("..", "product", "target", "etcd-operator.jar");

  final Process process;
  private final int port;

  private ProductOperator(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts it, its output (stdout and stderr) to {@code log}. */
  static ProductOperator start(Sandbox sandbox, Path log) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + Path.of("..", "deploy", "image", "jvm.options"),
                "-XX:MaxRAM=512m",
                "-D" + JvmHosts.PROPERTY + "=" + JvmHosts.file().toAbsolutePath(),
                "-Dsun.net.inetaddr.ttl=0",
                "-jar",
                JAR.toString(),
                "run",
                "--kubeconfig",
                sandbox.config().kubeconfig().toString(),
                "--http-host",
                "127.0.0.1",
                "--http-port",
                String.valueOf(port)));
    pb.environment().put(ProcessSweeper.TAG_VARIABLE, sandbox.config().tag());
    pb.environment().put("MALLOC_ARENA_MAX", "2");
    pb.environment().remove("KUBECONFIG");
    pb.redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    return new ProductOperator(pb.start(), port);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * The objects alive in its heap after the full collection {@code jcmd <pid> GC.class_histogram}
   * asks for: by class name, {instances, bytes}; the total under {@code "Total"}.
   */
  Map<String, long[]> liveHeap() throws IOException, InterruptedException {
    Process jcmd =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(process.pid()),
                "GC.class_histogram")
            .redirectErrorStream(true)
            .start();
    String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
      throw new IOException("jcmd GC.class_histogram failed: " + out);
    }
    Map<String, long[]> classes = new HashMap<>();
    for (String line : out.lines().toList()) {
      String[] f = line.trim().split("\\s+");
      if (f.length == 3 && f[0].equals("Total")) {
        classes.put("Total", new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
      } else if (f.length >= 4 && f[0].endsWith(":")) {
        classes.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
      }
    }
    if (!classes.containsKey("Total")) {
      throw new IOException("no Total line from jcmd: " + out);
    }
    return classes;
  }

  /** Classes loaded in its JVM now, as its metrics say ({@code jvm_classes_loaded_classes}). */
  long classesLoaded() throws IOException, InterruptedException {
    var http = java.net.http.HttpClient.newHttpClient();
    String page =
        http.send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    return page.lines()
        .filter(l -> l.startsWith("jvm_classes_loaded_classes"))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElseThrow(() -> new IOException("no jvm_classes_loaded_classes in its metrics"));
  }

  /** The bytes of the objects alive in its heap (see {@link #liveHeap}). */
  long liveHeapBytes() throws IOException, InterruptedException {
    return liveHeap().get("Total")[1];
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
