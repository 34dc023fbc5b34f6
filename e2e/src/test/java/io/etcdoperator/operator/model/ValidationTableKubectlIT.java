package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.sandbox.OperatorLauncher;
import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.Arguments;

/**
 * {@code kubectl apply} of every invalid spec of the operator's validation table ({@link
 * SpecValidationTest#invalidSpecs()}) against the sandbox's API server: those the CRD's schema and
 * CEL rules can see are refused by the API server itself (422, naming the field), as a real one
 * refuses them; the others are stored and left to the operator, which refuses them in its status.
 * Through the machine's kubectl when there is one, else through the client.
 */
class ValidationTableKubectlIT {
  /** Rows the CRD refuses, with the field path and the words the API server says. */
  static final Map<String, String> REFUSED_BY_THE_API =
      Map.of(
          "aenix's older security.peer shape",
          "spec.security.peer and spec.security.clientServer are an older shape of aenix's API",
          "aenix's older security.clientServer shape",
          "spec.security.peer and spec.security.clientServer are an older shape of aenix's API",
          "negative replicas",
          "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal"
              + " to 0",
          "a PDB template with both budgets",
          "spec.podDisruptionBudgetTemplate.spec: Invalid value: \"object\":"
              + " spec.podDisruptionBudgetTemplate.spec: set minAvailable or maxUnavailable, not"
              + " both");

  @TempDir Path dir;

  record Result(int code, String out) {}

  @Test
  void theApiServerRefusesWhatTheCrdCanSeeNamingTheField() throws Exception {
    boolean kubectl = Files.isExecutable(Path.of("/usr/bin/kubectl"));
    List<String> accepted = new ArrayList<>();
    try (Sandbox sandbox =
        Sandbox.start(SandboxConfig.defaults(dir.resolve("s")), OperatorLauncher.NONE)) {
      Map<String, String> manifests = new LinkedHashMap<>();
      List<String> descriptions = new ArrayList<>();
      for (Arguments row : SpecValidationTest.invalidSpecs().toList()) {
        String description = (String) row.get()[0];
        String spec = (String) row.get()[1];
        String name = "row-" + descriptions.size();
        descriptions.add(description);
        manifests.put(
            name,
            "apiVersion: etcd.aenix.io/v1alpha1\nkind: EtcdCluster\nmetadata:\n  name: "
                + name
                + "\n  namespace: default\nspec:\n"
                + spec.strip().lines().map(l -> "  " + l).reduce("", (a, b) -> a + b + "\n"));
      }
      Map<String, Result> results =
          kubectl ? kubectl(sandbox, manifests) : client(sandbox, manifests);
      for (int n = 0; n < descriptions.size(); n++) {
        String description = descriptions.get(n);
        String name = "row-" + n;
        Result r = results.get(name);
        String expected = REFUSED_BY_THE_API.get(description);
        if (expected != null) {
          assertThat(r.code()).as("%s: %s", description, r.out()).isNotZero();
          assertThat(r.out())
              .as(description)
              .contains("\"" + name + "\" is invalid")
              .contains(expected);
        } else if (r.code() == 0) {
          accepted.add(description);
        }
      }
    }
    assertThat(accepted)
        .as("rows only the operator refuses (the schema cannot see them)")
        .contains("an operator-owned option", "enableAuth on etcd 3.4")
        .doesNotContainAnyElementsOf(REFUSED_BY_THE_API.keySet());
  }

  /**
   * One {@code kubectl apply} of every manifest (one process: a kubectl start costs about a
   * second), each row's result read from kubectl's line about its object: "... "row-N" is invalid:
   * ..." when the API server refused it, ".../row-N created" when it stored it.
   */
  private Map<String, Result> kubectl(Sandbox sandbox, Map<String, String> manifests)
      throws IOException, InterruptedException {
    Path f = dir.resolve("rows.yaml");
    Files.writeString(f, String.join("---\n", manifests.values()));
    Process p =
        new ProcessBuilder(
                "/usr/bin/kubectl",
                "--kubeconfig",
                sandbox.config().kubeconfig().toString(),
                "apply",
                "-f",
                f.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("kubectl timed out");
    }
    Map<String, Result> results = new LinkedHashMap<>();
    for (String name : manifests.keySet()) {
      Pattern created = Pattern.compile("/" + Pattern.quote(name) + " created$");
      List<String> refused = out.lines().filter(l -> l.contains("\"" + name + "\"")).toList();
      if (!refused.isEmpty()) {
        results.put(name, new Result(1, String.join("\n", refused)));
      } else if (out.lines().anyMatch(l -> created.matcher(l).find())) {
        results.put(name, new Result(0, ""));
      } else {
        throw new AssertionError("kubectl said nothing of " + name + ":\n" + out);
      }
    }
    return results;
  }

  private Map<String, Result> client(Sandbox sandbox, Map<String, String> manifests) {
    Map<String, Result> results = new LinkedHashMap<>();
    manifests.forEach((name, manifest) -> results.put(name, client(sandbox, manifest)));
    return results;
  }

  private Result client(Sandbox sandbox, String manifest) {
    try {
      sandbox
          .client()
          .load(new java.io.ByteArrayInputStream(manifest.getBytes(StandardCharsets.UTF_8)))
          .create();
      return new Result(0, "");
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      return new Result(
          e.getCode(), e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage());
    }
  }
}
