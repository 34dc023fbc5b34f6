package io.etcdoperator.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/api-reference.md} is what {@link ApiReference} renders from the CRDs committed in
 * {@code deploy/crds/}, as CommittedCrdTest holds those CRDs to the generated ones. After a change
 * of the API, refresh the CRDs first, then regenerate the page and read its diff:
 *
 * <pre>
 * mvn -B -pl api,operator -am test -Dtest=ApiReferenceTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dapi.reference.update=true
 * git diff docs/api-reference.md
 * </pre>
 */
class ApiReferenceTest {
  @Test
  void committedReferenceMatchesTheCrds() throws IOException {
    String rendered = ApiReference.render(ApiReference.read(ApiReference.CRDS));
    if (Boolean.getBoolean("api.reference.update")) {
      Files.writeString(ApiReference.FILE, rendered);
    }
    assertThat(ApiReference.FILE)
        .as("docs/api-reference.md; create it with: %s", ApiReference.REGENERATE)
        .exists();
    assertThat(Files.readString(ApiReference.FILE))
        .as(
            "docs/api-reference.md does not match deploy/crds/; regenerate it with: %s",
            ApiReference.REGENERATE)
        .isEqualTo(rendered);
  }

  @Test
  void everyResourceOfDeployIsThere() throws IOException {
    String page = ApiReference.render(ApiReference.read(ApiReference.CRDS));
    assertThat(page)
        .contains("\n## EtcdCluster\n", "\n## EtcdBackup\n", "\n## EtcdBackupSchedule\n")
        .contains("`etcd.aenix.io/v1alpha1`, namespaced; plural `etcdclusters`, short name `etcd`")
        .contains("`scale` (replicas `.spec.replicas`");
    assertThat(page.indexOf("## EtcdCluster\n")).isLessThan(page.indexOf("## EtcdBackup\n"));
  }

  /** Rows carry what the schema says of a field: a default, a bound, a CEL rule's message. */
  @Test
  void rowsCarryTypesDefaultsBoundsAndRules() throws IOException {
    String page = ApiReference.render(ApiReference.read(ApiReference.CRDS));
    assertThat(page)
        .containsPattern(
            "(?m)^\\| `spec\\.replicas` \\| integer \\| .*Default: `3`\\. Minimum 0\\.")
        .containsPattern(
            "(?m)^\\| `spec\\.bootstrap\\.restore\\.pointInTime` \\| object \\| .*"
                + "\"set exactly one of revision or time\"")
        .containsPattern(
            "(?m)^\\| `spec\\.defragmentation\\.threshold\\.percent` \\| integer \\|"
                + " .*Minimum 1\\. Maximum 99\\.")
        .containsPattern("(?m)^\\| `spec\\.options` \\| map of string \\|")
        .containsPattern("(?m)^\\| `status\\.members\\[\\]\\.name` \\| string \\|")
        .containsPattern(
            "(?m)^\\| `spec\\.podTemplate\\.spec` \\| object \\(PodSpec\\) \\| .*`containers`")
        .doesNotContain("`spec.podTemplate.spec.containers")
        .containsPattern("(?m)^\\| `spec\\.clusterRef` \\| object \\| .*Required\\.");
  }

  /**
   * Every field path of the schemas is on the page (but inside the embedded Kubernetes types),
   * found by a walk of the YAML of its own rather than by the renderer's.
   */
  @Test
  void everyFieldPathHasARow() throws IOException {
    String page = ApiReference.render(ApiReference.read(ApiReference.CRDS));
    List<String> paths = new ArrayList<>();
    for (JsonNode crd : ApiReference.read(ApiReference.CRDS)) {
      List<String> embedded =
          ApiReference.EMBEDDED.stream()
              .filter(e -> e.kind().equals(ApiReference.kind(crd)))
              .map(ApiReference.Embedded::path)
              .toList();
      for (JsonNode v : crd.at("/spec/versions")) {
        walk("", v.at("/schema/openAPIV3Schema"), embedded, paths);
      }
    }
    assertThat(paths).hasSizeGreaterThan(150);
    for (String p : paths) {
      assertThat(page).as("a row for %s", p).contains("| `" + p + "` |");
    }
  }

  private static void walk(String path, JsonNode node, List<String> embedded, List<String> out) {
    if (embedded.contains(path)) {
      return;
    }
    for (Map.Entry<String, JsonNode> f : iterable(node.path("properties").fields())) {
      String p = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
      out.add(p);
      walk(p, f.getValue(), embedded, out);
    }
    if (node.path("items").has("properties")) {
      out.add(path + "[]");
      walk(path + "[]", node.path("items"), embedded, out);
    }
  }

  private static <T> Iterable<T> iterable(Iterator<T> it) {
    return () -> it;
  }

  /** The page follows the CRDs: a changed description, default or rule changes it. */
  @Test
  void aChangedCrdChangesThePage() throws IOException {
    List<JsonNode> crds = ApiReference.read(ApiReference.CRDS);
    String before = ApiReference.render(crds);
    ObjectNode replicas = replicas(crds);
    replicas.put("default", 5);
    replicas.put("description", "How many | members <at most>.");
    String after = ApiReference.render(crds);
    assertThat(after).isNotEqualTo(before).contains("Default: `5`.");
    assertThat(after).contains("How many \\| members &lt;at most&gt;.");
  }

  /** A keyword the renderer does not know fails it, rather than being left off the page. */
  @Test
  void anUnknownSchemaKeywordFailsTheRendering() throws IOException {
    List<JsonNode> crds = ApiReference.read(ApiReference.CRDS);
    replicas(crds).put("multipleOf", 2);
    assertThatThrownBy(() -> ApiReference.render(crds))
        .hasMessageContaining("spec.replicas")
        .hasMessageContaining("multipleOf");
  }

  /** An embedded type that left the CRD fails the rendering (the list of them would be stale). */
  @Test
  void anEmbeddedTypeMissingFromTheCrdFailsTheRendering() throws IOException {
    List<JsonNode> crds = ApiReference.read(ApiReference.CRDS);
    JsonNode cluster =
        crds.stream().filter(c -> ApiReference.kind(c).equals("EtcdCluster")).findFirst().get();
    ((ObjectNode) cluster.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties"))
        .remove("podTemplate");
    assertThatThrownBy(() -> ApiReference.render(crds)).hasMessageContaining("podTemplate");
  }

  private static ObjectNode replicas(List<JsonNode> crds) {
    JsonNode cluster =
        crds.stream().filter(c -> ApiReference.kind(c).equals("EtcdCluster")).findFirst().get();
    return (ObjectNode)
        cluster.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/replicas");
  }
}
