package io.etcdoperator.product;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
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

  @Test
  void runsAndHasNoSandboxCommand() throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                JAR.toString(),
                "--help")
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("run", "render", "version").doesNotContain("sandbox");
    assertThat(Files.size(JAR)).isPositive();
  }
}
