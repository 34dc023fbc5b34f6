package io.etcdoperator.product;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The jar the image ships holds the operator and its command line only: no sandbox classes, no mock
 * API server, no test libraries. Runs after {@code package}, on the jar itself.
 */
class ProductJarIT {
  private static final Path JAR = Path.of("target", "etcd-operator.jar");

  /** Entry prefixes that must not be in the product. */
  private static final List<String> FORBIDDEN =
      List.of(
          "io/etcdoperator/sandbox/",
          "io/etcdoperator/testing/",
          "io/fabric8/kubernetes/client/server/mock/",
          "io/fabric8/mockwebserver/",
          "okhttp3/mockwebserver/",
          "org/junit/",
          "org/assertj/",
          "org/awaitility/",
          "org/mockito/",
          "com/marcnuri/helm/");

  private static List<String> entries() throws IOException {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      return Collections.list(jar.entries()).stream().map(ZipEntry::getName).toList();
    }
  }

  @Test
  void holdsTheOperatorAndNothingOfTheSandboxOrTheTests() throws IOException {
    List<String> entries = entries();
    assertThat(entries)
        .contains(
            "io/etcdoperator/operator/cli/Main.class",
            "io/etcdoperator/operator/EtcdOperator.class",
            "io/etcdoperator/api/v1alpha1/EtcdCluster.class");
    for (String prefix : FORBIDDEN) {
      assertThat(entries).as(prefix).noneMatch(e -> e.startsWith(prefix));
    }
    assertThat(entries)
        .as("service registrations of the sandbox")
        .noneMatch(e -> e.startsWith("META-INF/services/io.etcdoperator.sandbox."));
  }

  /**
   * The jar stays under 30 MB (28.6 MB when this was written, from 57.9 MB): the image pulls it on
   * every node the operator lands on. What took it there: S3 through our own client (no AWS SDK),
   * PEM keys read by the JDK (no BouncyCastle), metrics in the text format only (no shaded
   * protobuf), no fabric8 model of API groups the operator never uses, and no class that nothing
   * refers to (minimizeJar, with the libraries that load classes by name kept whole).
   */
  @Test
  void staysUnder30Megabytes() throws IOException {
    assertThat(Files.size(JAR)).isLessThan(30_000_000L);
  }

  /**
   * Every class a ServiceLoader may be asked for is in the jar: the build leaves out classes
   * nothing refers to and fabric8's model of API groups the operator never uses, and a registration
   * of a class left out would fail the operator's start (ServiceConfigurationError), or a backup's.
   */
  @Test
  void everyRegisteredServiceIsInTheJar() throws IOException {
    List<String> entries = entries();
    java.util.Set<String> classes = new java.util.HashSet<>(entries);
    List<String> missing = new java.util.ArrayList<>();
    int providers = 0;
    try (JarFile jar = new JarFile(JAR.toFile())) {
      for (String e : entries) {
        if (!e.startsWith("META-INF/services/") || e.endsWith("/")) {
          continue;
        }
        String text =
            new String(jar.getInputStream(jar.getEntry(e)).readAllBytes(), StandardCharsets.UTF_8);
        for (String line : text.split("\\R")) {
          String name = line.replaceAll("#.*", "").strip();
          if (name.isEmpty()) {
            continue;
          }
          providers++;
          if (!classes.contains(name.replace('.', '/') + ".class")) {
            missing.add(e.substring("META-INF/services/".length()) + ": " + name);
          }
        }
      }
    }
    assertThat(providers).as("providers registered").isGreaterThan(100);
    assertThat(missing).as("registered but not in the jar").isEmpty();
  }

  /**
   * The operator's logging comes from its code (LogConfigurator), not from an XML file: logback's
   * XML configuration and the JDK's XML parser are never loaded. Lines go to stderr, as text or
   * JSON, at the level the environment says.
   */
  @Test
  void logsToStderrWithoutLoadingAnXmlParser() throws Exception {
    record Run(String stdout, String stderr) {}
    java.util.function.Function<Map<String, String>, Run> run =
        env -> {
          try {
            ProcessBuilder b =
                new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-verbose:class",
                    "-cp",
                    JAR + java.io.File.pathSeparator + Path.of("target", "test-classes"),
                    LogLine.class.getName());
            b.environment().remove("LOG_FORMAT");
            b.environment().remove("LOG_LEVEL");
            b.environment().putAll(env);
            Process p = b.start();
            var err =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
            String out = read(p.getInputStream());
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(err.join()).isZero();
            return new Run(out, err.join());
          } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
          }
        };
    Run text = run.apply(Map.of());
    assertThat(text.stderr().lines())
        .singleElement()
        .satisfies(
            l -> assertThat(l).matches(".*INFO  \\[default/test\\] .*Probe - member 2 joined"));
    assertThat(text.stdout())
        .contains("ch.qos.logback.classic.LoggerContext")
        .doesNotContain("ch.qos.logback.core.joran.GenericXMLConfigurator", "org.apache.xerces");
    Run json = run.apply(Map.of("LOG_FORMAT", "json", "LOG_LEVEL", "DEBUG"));
    assertThat(json.stderr().lines())
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).startsWith("{"))
        .anySatisfy(l -> assertThat(l).contains("\"level\":\"DEBUG\"", "seen at DEBUG"));
  }

  private static String read(java.io.InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Runs this JVM's java with {@code args}; its output (stdout and stderr) once it exited 0. */
  private static String java(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = read(p.getInputStream());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  /** The image's and the launcher's JVM settings are ones this JVM starts with. */
  @Test
  void startsWithTheImagesJvmOptions() throws Exception {
    String out =
        java(
            "@" + Path.of("..", "deploy", "image", "jvm.options"),
            "-XX:MaxRAM=512m",
            "-jar",
            JAR.toString(),
            "version");
    assertThat(out).contains("etcd-operator").doesNotContain("Unrecognized", "warning");
  }

  @Test
  void runsAndHasNoSandboxCommand() throws Exception {
    String out = java("-jar", JAR.toString(), "--help");
    assertThat(out).contains("run", "render", "version").doesNotContain("sandbox");
    assertThat(Files.size(JAR)).isPositive();
  }
}
