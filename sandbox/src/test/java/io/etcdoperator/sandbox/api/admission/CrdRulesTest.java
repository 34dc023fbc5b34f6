package io.etcdoperator.sandbox.api.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every CEL rule of the committed CRDs compiles, as a real API server requires before it accepts a
 * CRD (it refuses one whose rule does not).
 */
class CrdRulesTest {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static List<Path> crds() throws IOException {
    try (Stream<Path> s = Files.list(Path.of("../deploy/crds"))) {
      return s.filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml"))
          .toList();
    }
  }

  @Test
  void everyRuleOfTheCommittedCrdsCompiles() throws Exception {
    int rules = 0;
    for (Path crd : crds()) {
      JsonNode c = YAML.readTree(crd.toFile());
      for (JsonNode v : c.path("spec").path("versions")) {
        for (String[] rule :
            StructuralSchema.allRules(v.path("schema").path("openAPIV3Schema"), "")) {
          CelRules.compile(rule[1]);
          rules++;
        }
      }
      assertThat(CrdValidation.validate(c)).as("%s", crd).isEmpty();
    }
    assertThat(rules).as("rules in deploy/crds").isGreaterThanOrEqualTo(3);
  }

  @Test
  void aRuleThatDoesNotCompileIsRefused() throws Exception {
    assertThatThrownBy(() -> CelRules.compile("!(has(self.a) && "))
        .isInstanceOf(CelRules.CompileError.class)
        .hasMessageContaining("compilation failed");
    assertThatThrownBy(() -> CelRules.compile("self.a.noSuchFunction()"))
        .isInstanceOf(CelRules.CompileError.class);
    JsonNode crd =
        YAML.readTree(
            "spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n"
                + "        type: object\n        properties:\n          spec:\n"
                + "            type: object\n            x-kubernetes-validations:\n"
                + "            - rule: 'self.x >'\n");
    assertThat(CrdValidation.validate(crd))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.field())
                    .isEqualTo(
                        "spec.versions[0].schema.openAPIV3Schema.spec.x-kubernetes-validations"));
  }

  @Test
  void rulesSeeSelfAndOldSelf() throws Exception {
    JsonNode both = YAML.readTree("{minAvailable: 1, maxUnavailable: 1}");
    JsonNode one = YAML.readTree("{minAvailable: 1}");
    String rule = "!(has(self.minAvailable) && has(self.maxUnavailable))";
    assertThat(CelRules.holds(rule, both, null)).isFalse();
    assertThat(CelRules.holds(rule, one, null)).isTrue();
    String transition = "has(self.emptyDir) == has(oldSelf.emptyDir)";
    assertThat(CelRules.isTransition(transition)).isTrue();
    assertThat(CelRules.holds(transition, YAML.readTree("{emptyDir: {}}"), one)).isFalse();
    assertThat(CelRules.holds(transition, one, one)).isTrue();
  }
}
