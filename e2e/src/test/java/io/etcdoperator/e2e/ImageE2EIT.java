package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.sandbox.net.JvmHosts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's image as users get it: built from {@code deploy/image/Dockerfile}, unchanged, by
 * {@code scripts/build-image} (buildah; this machine reaches no registry, so the two base images
 * the Dockerfile names are stand-ins made from Debian packages), its config checked, and run by a
 * container runtime (podman) as the image says (its entry point, JVM options, environment and
 * non-root user) against a sandbox with no operator inside, until a 3-member cluster is Ready.
 *
 * <p>How the container runs here, and why: on the host's network, as the sandbox's pods have
 * loopback addresses; with runc, as crun 1.8 refuses this machine's hybrid cgroups (v1 controllers
 * beside the unified hierarchy); with nofile and nproc limits within this machine's hard limits
 * (podman's defaults for root exceed them and the runtime's setrlimit is refused); with a 512 MiB
 * memory limit, the chart's default, which the JVM must see (half of it is the heap the metrics
 * report); the sandbox's kubeconfig and its hosts file mounted read-only, the hosts file named to
 * the JVM through {@code JAVA_TOOL_OPTIONS} (a kubelet would give the pod cluster DNS instead).
 *
 * <p>In {@code -Plong}: the first build makes the JRE stand-in with debootstrap (about a minute
 * here) and installs buildah, podman and runc when they are missing.
 */
class ImageE2EIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String TAG = "localhost/etcd-operator:e2e";
  private static final String RUNTIME = "runc";
  private static final String NOFILE = "nofile=20000:20000";
  private static final String NPROC = "nproc=4096:4096";

  @TempDir Path dir;

  @Test
  void theImageBuiltFromTheDockerfileRunsTheOperatorAsItsOwnUser() throws Exception {
    // 1. built, and its config as the Dockerfile says
    Run build = run(Duration.ofMinutes(15), ROOT.resolve("scripts/build-image").toString(), TAG);
    assertThat(build.code()).as(build.err()).isZero();
    JsonNode inspect = new ObjectMapper().readTree(build.out());
    JsonNode config = inspect.path("OCIv1").path("config");
    assertThat(config.path("User").asText()).isEqualTo("65532:65532");
    assertThat(texts(config.path("Entrypoint")))
        .containsExactly(
            "java",
            "@/opt/etcd-operator/jvm.options",
            "-jar",
            "/opt/etcd-operator/etcd-operator.jar");
    assertThat(texts(config.path("Cmd"))).containsExactly("run");
    assertThat(texts(config.path("Env"))).contains("MALLOC_ARENA_MAX=2");
    assertThat(config.path("ExposedPorts").has("8080/tcp")).isTrue();
    JsonNode labels = config.path("Labels");
    assertThat(labels.path("org.opencontainers.image.title").asText()).isEqualTo("etcd-operator");
    assertThat(labels.path("org.opencontainers.image.licenses").asText()).isEqualTo("Apache-2.0");
    assertThat(ROOT.resolve("target/image/etcd-operator.oci.tar")).isNotEmptyFile();

    long size = Long.parseLong(podman("image", "inspect", "--format", "{{.Size}}", TAG).strip());
    long base =
        Long.parseLong(
            podman("image", "inspect", "--format", "{{.Size}}", "localhost/eclipse-temurin:17-jre")
                .strip());
    System.out.printf(
        "image %s: %.1f MB, of which %.1f MB over its JRE base (the jar, etcd and etcdutl)%n",
        TAG, size / 1e6, (size - base) / 1e6);
    assertThat(size - base).as("bytes over the JRE base").isLessThan(100_000_000L);

    // the entry point's JVM options are the repository's file
    assertThat(
            podman(
                "run",
                "--rm",
                "--ulimit",
                NOFILE,
                "--ulimit",
                NPROC,
                "--entrypoint",
                "cat",
                TAG,
                "/opt/etcd-operator/jvm.options"))
        .isEqualTo(Files.readString(ROOT.resolve("deploy/image/jvm.options")));

    // 2. run against a sandbox, as its own user, with the chart's memory limit
    SandboxConfig sandboxConfig = SandboxConfig.defaults(dir.resolve("sandbox"));
    try (E2E e2e = E2E.withoutOperator(sandboxConfig);
        Cluster cluster = new Cluster(e2e, "image")) {
      Path config0 = Files.createDirectories(dir.resolve("config"));
      Files.copy(
          e2e.sandbox().config().kubeconfig(),
          config0.resolve("kubeconfig"),
          StandardCopyOption.REPLACE_EXISTING);
      // the image's user is not root: it reads what a kubelet would mount readable for it
      Files.setPosixFilePermissions(config0, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.setPosixFilePermissions(
          config0.resolve("kubeconfig"), PosixFilePermissions.fromString("rw-r--r--"));
      Path hosts = JvmHosts.file().toAbsolutePath();
      int port = freePort();
      String name = "etcd-operator-e2e-" + ProcessHandle.current().pid();
      String id =
          podman(
                  "run",
                  "-d",
                  "--name",
                  name,
                  "--network",
                  "host",
                  "--memory",
                  "512m",
                  "--ulimit",
                  NOFILE,
                  "--ulimit",
                  NPROC,
                  "-v",
                  config0 + ":/config:ro",
                  "-v",
                  hosts.getParent() + ":/sandbox-hosts:ro",
                  "-e",
                  "JAVA_TOOL_OPTIONS=-Djdk.net.hosts.file=/sandbox-hosts/"
                      + hosts.getFileName()
                      + " -Dsun.net.inetaddr.ttl=0",
                  TAG,
                  "run",
                  "--kubeconfig",
                  "/config/kubeconfig",
                  "--http-host",
                  "127.0.0.1",
                  "--http-port",
                  String.valueOf(port))
              .strip();
      try {
        assertThat(podman("inspect", "--format", "{{.Config.User}}", id).strip())
            .isEqualTo("65532:65532");
        e2e.apply(
            """
            apiVersion: etcd.aenix.io/v1alpha1
            kind: EtcdCluster
            metadata:
              name: image
              namespace: default
            spec:
              replicas: 3
              storage:
                emptyDir: {}
            """);
        long start = System.nanoTime();
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> !running(id) || cluster.converged(1, 3));
        assertThat(running(id)).as(logs(id)).isTrue();
        System.out.printf(
            "the image's operator made a 3-member cluster Ready in %d ms%n",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));

        // the JVM saw the container's memory limit: half of 512 MiB for the heap
        String metrics =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        double heap =
            metrics
                .lines()
                .filter(l -> l.startsWith("jvm_memory_max_bytes{area=\"heap\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
        System.out.printf("heap maximum in the container: %.0f MiB%n", heap / (1 << 20));
        assertThat(heap).isBetween(200.0 * (1 << 20), 300.0 * (1 << 20));
      } finally {
        Files.writeString(dir.resolve("operator.log"), logs(id));
        podman("rm", "-f", id);
      }
    }
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static boolean running(String id) throws Exception {
    return podman("inspect", "--format", "{{.State.Running}}", id).strip().equals("true");
  }

  private static String logs(String id) {
    try {
      Run r = run(Duration.ofSeconds(30), "podman", "--runtime", RUNTIME, "logs", id);
      return r.out() + r.err();
    } catch (Exception e) {
      return "no logs: " + e;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** podman's output, through the runtime this machine runs containers with; fails on failure. */
  private static String podman(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("podman", "--runtime", RUNTIME));
    cmd.addAll(List.of(args));
    Run r = run(Duration.ofMinutes(2), cmd.toArray(String[]::new));
    if (r.code() != 0) {
      throw new IOException(String.join(" ", cmd) + " exited " + r.code() + ": " + r.err());
    }
    return r.out();
  }

  private record Run(int code, String out, String err) {}

  private static Run run(Duration timeout, String... command) throws Exception {
    Path out = Files.createTempFile("image-it", ".out");
    Path err = Files.createTempFile("image-it", ".err");
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(ROOT.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " took longer than " + timeout);
      }
      return new Run(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
