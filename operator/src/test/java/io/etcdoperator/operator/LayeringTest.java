package io.etcdoperator.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operator's packages in layers, lowest first: a package uses only those below it, never one
 * above (docs/design.md, "Shape of the code"). {@code model} and {@code plan} are pure: no
 * Kubernetes client, no JOSDK, no gRPC or jetcd, no clock.
 */
class LayeringTest {
  private static final String BASE = "io.etcdoperator.operator";

  /**
   * Lowest first; a package may use any package before it in this list, and none after it. The
   * empty name is the root package (the operator as a whole, which the command line starts).
   */
  static final List<String> LAYERS =
      List.of(
          "model",
          "tls",
          "etcd",
          "backup",
          "observe",
          "plan",
          "metrics",
          "act",
          "status",
          "reconcile",
          "",
          "cli");

  /** The module's main classes, as compiled (only them: a scan of the classpath takes seconds). */
  private static final JavaClasses MAIN =
      new ClassFileImporter().importPath(Path.of("target", "classes"));

  private static final String[] CLIENTS = {
    "io.fabric8.kubernetes.client..",
    "io.javaoperatorsdk..",
    "io.grpc..",
    "io.etcd.jetcd..",
    "io.netty..",
    "java.net.http..",
  };

  private static final String[] CLOCK_AND_IO = {
    "java.time.Clock",
    "java.net.Socket",
    "java.net.InetAddress",
    "java.nio.file.Files",
    "java.io.File",
  };

  private static String pattern(String layer) {
    return layer.isEmpty() ? BASE : BASE + "." + layer + "..";
  }

  @ParameterizedTest
  @ValueSource(strings = {"model", "plan"})
  void pureCodeUsesNoClientNoClockNoIo(String pkg) {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage(BASE + "." + pkg + "..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(CLIENTS)
            .orShould()
            .dependOnClassesThat()
            .haveNameMatching(String.join("|", CLOCK_AND_IO).replace(".", "\\."))
            .because(pkg + " is pure: decisions are functions, I/O sits at the edges");
    rule.check(MAIN);
  }

  @Test
  void nothingUsesAPackageAboveIt() {
    List<String> violations = new ArrayList<>();
    for (int i = 0; i < LAYERS.size(); i++) {
      List<String> above = new ArrayList<>();
      for (String upper : LAYERS.subList(i + 1, LAYERS.size())) {
        above.add(pattern(upper));
      }
      if (above.isEmpty()) {
        continue;
      }
      ArchRule rule =
          noClasses()
              .that()
              .resideInAPackage(pattern(LAYERS.get(i)))
              .should()
              .dependOnClassesThat()
              .resideInAnyPackage(above.toArray(String[]::new));
      EvaluationResult result = rule.evaluate(MAIN);
      violations.addAll(result.getFailureReport().getDetails());
    }
    assertThat(violations).isEmpty();
  }

  /** The rule is not vacuous: every layer has classes, and the layers cover every package. */
  @Test
  void everyPackageIsInALayer() {
    List<String> packages =
        MAIN.stream()
            .map(c -> c.getPackageName())
            .filter(p -> p.startsWith(BASE))
            .map(p -> p.equals(BASE) ? "" : p.substring(BASE.length() + 1).split("\\.")[0])
            .distinct()
            .sorted()
            .toList();
    assertThat(packages).containsExactlyInAnyOrderElementsOf(LAYERS);
  }
}
