package io.etcdoperator.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** {@code etcd-operator render}: YAML on stdout, or every problem on stderr and exit code 1. */
class RenderCommandTest {
  static final Path RESOURCES = Path.of("src/test/resources");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  record Run(int exitCode, String out, String err) {}

  static Run render(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 1];
    all[0] = "render";
    System.arraycopy(args, 0, all, 1, args.length);
    int code = cli.execute(all);
    return new Run(code, out.toString(), err.toString());
  }

  static List<JsonNode> documents(String yaml) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      while (it.hasNextValue()) {
        JsonNode doc = it.nextValue();
        if (doc != null && doc.isObject()) {
          docs.add(doc);
        }
      }
    }
    return docs;
  }

  @Test
  void refusesTheSeedsNginxManifestNamingItsCommandAndArgs() {
    Run run = render("-f", "../examples/seed-000-nginx.yaml");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines())
        .anySatisfy(l -> assertThat(l).contains("spec.podTemplate.spec.containers[0].args"))
        .anySatisfy(l -> assertThat(l).contains("spec.podTemplate.spec.containers[0].command"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"seed-000-fixed"})
  void rendersEachSeedManifestAsItsGoldenObjects(String seed) throws IOException {
    Run run = render("-f", "../examples/" + seed + ".yaml");
    assertThat(run.err().lines())
        .allMatch(l -> l.endsWith("storage: a PersistentVolumeClaim per member"))
        .isNotEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("---\n");
    assertThat(documents(run.out()))
        .isEqualTo(documents(Files.readString(RESOURCES.resolve("golden/" + seed + ".yaml"))));
  }

  @Test
  void invalidManifestPrintsEveryProblemWithItsFieldAndNothingElse() {
    Run run = render("-f", RESOURCES.resolve("render/invalid.yaml").toString());
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines())
        .containsExactly(
            "src/test/resources/render/invalid.yaml: EtcdCluster broken: spec.replicas: must be 0"
                + " or more, got -1",
            "src/test/resources/render/invalid.yaml: EtcdCluster broken: spec.options.data-dir:"
                + " --data-dir is set by the operator (member identity and data location); remove"
                + " it");
  }

  @Test
  void unknownFieldIsNamed() {
    Run run = render("-f", RESOURCES.resolve("render/typo.yaml").toString());
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().strip())
        .isEqualTo(
            "src/test/resources/render/typo.yaml: EtcdCluster typo: spec.replica: unknown field");
  }

  @Test
  void otherKindsAreSkippedWithANoteAndTheNamespaceOptionFillsIn() throws IOException {
    Run run = render("-n", "team-a", "-f", RESOURCES.resolve("render/mixed.yaml").toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.err().lines())
        .first()
        .isEqualTo(
            "src/test/resources/render/mixed.yaml: skipping v1/Namespace team-a: not an"
                + " EtcdCluster");
    assertThat(run.err().lines().skip(1)).allMatch(l -> l.contains(": storage: "));
    List<JsonNode> docs = documents(run.out());
    assertThat(docs)
        .extracting(d -> d.path("kind").asText())
        .containsExactly("ConfigMap", "Service", "Service", "StatefulSet");
    assertThat(docs)
        .allSatisfy(d -> assertThat(d.at("/metadata/namespace").asText()).isEqualTo("team-a"));
  }

  @Test
  void severalFilesRenderInOrder() throws IOException {
    Run run =
        render(
            "-f",
            "../examples/seed-000-fixed.yaml",
            "-f",
            RESOURCES.resolve("render/mixed.yaml").toString());
    assertThat(run.exitCode()).isZero();
    assertThat(documents(run.out()))
        .extracting(d -> d.at("/metadata/name").asText())
        .containsExactly(
            "test-cluster-state",
            "test-headless",
            "test",
            "test",
            "test",
            "one-cluster-state",
            "one-headless",
            "one",
            "one");
  }

  @Test
  void readsStandardInput() throws IOException {
    InputStream stdin = System.in;
    try {
      System.setIn(
          new ByteArrayInputStream(
              Files.readString(Path.of("../examples/seed-000-fixed.yaml"))
                  .getBytes(StandardCharsets.UTF_8)));
      Run run = render("-f", "-");
      assertThat(run.exitCode()).isZero();
      assertThat(documents(run.out())).hasSize(5);
    } finally {
      System.setIn(stdin);
    }
  }

  @Test
  void fileWithoutEtcdClusterIsAnError() {
    Run run = render("-f", RESOURCES.resolve("render/not-a-cluster.yaml").toString());
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .endsWith(
            "no EtcdCluster (etcd.aenix.io/v1alpha1) in src/test/resources/render/not-a-cluster.yaml\n");
  }

  @Test
  void missingFileIsAnError() {
    Run run = render("-f", "does-not-exist.yaml");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).startsWith("does-not-exist.yaml: cannot read: ");
  }

  @Test
  void unparsableYamlIsAnError() throws IOException {
    Path bad = Files.createTempFile("render", ".yaml");
    try {
      Files.writeString(bad, "apiVersion: [unclosed\n");
      Run run = render("-f", bad.toString());
      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.err()).startsWith(bad + ": cannot read: ");
    } finally {
      Files.delete(bad);
    }
  }

  @Test
  void helpDescribesTheCommand() {
    Run run = render("--help");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("Usage: etcd-operator render").contains("--filename=FILE");
  }

  @Test
  void withoutFileItIsAUsageError() {
    Run run = render();
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Missing required option: '--filename=FILE'");
  }

  @Test
  void bothStorageKindsRenderWithEmptyDirAndSaySoAsAenixDoes() throws IOException {
    Path f = Files.createTempFile("both-storage", ".yaml");
    Files.writeString(
        f,
        """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdCluster
        metadata: {name: test, namespace: default}
        spec:
          replicas: 3
          storage:
            emptyDir: {}
            volumeClaimTemplate:
              spec:
                storageClassName: gp3
                resources: {requests: {storage: 10Gi}}
        """);
    Run run = render("-f", f.toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.err())
        .contains("EtcdCluster test: storage: emptyDir")
        .contains(
            "EtcdCluster test: warning: spec.storage.volumeClaimTemplate is ignored:"
                + " spec.storage.emptyDir is set and is used in its place");
    JsonNode sts =
        documents(run.out()).stream()
            .filter(d -> d.path("kind").asText().equals("StatefulSet"))
            .findFirst()
            .orElseThrow();
    assertThat(
            sts.at("/spec/volumeClaimTemplates").isMissingNode()
                || sts.at("/spec/volumeClaimTemplates").isEmpty())
        .isTrue();
    assertThat(sts.at("/spec/template/spec/volumes").toString()).contains("emptyDir");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "simple",
        "emptydir",
        "persistent",
        "resources",
        "custom-image",
        "with-default-pdb",
        "full",
        "kamaji",
        "with-external-certificates"
      })
  void everyPublishedAenixExampleRenders(String example) throws IOException {
    // aenix's examples as published (src/test/resources/aenix/README.md); users bring these.
    Run run = render("-f", RESOURCES.resolve("aenix/etcdcluster-" + example + ".yaml").toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    List<JsonNode> docs = documents(run.out());
    assertThat(docs).extracting(d -> d.path("kind").asText()).contains("StatefulSet", "Service");
    assertThat(run.err().lines().filter(l -> l.contains(": storage: ")))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .endsWith(
                        example.equals("emptydir") || example.equals("full")
                            ? "storage: emptyDir (member data is lost whenever a pod is deleted)"
                            : "storage: a PersistentVolumeClaim per member"));
    assertThat(run.err().contains("warning: spec.storage.volumeClaimTemplate is ignored"))
        .isEqualTo(example.equals("full"));
  }

  @Test
  void printsYamlAsKubectlDoesQuotingOnlyWhatWouldReadAsSomethingElse() throws Exception {
    Run run = render("-f", RESOURCES.resolve("golden/default.input.yaml").toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("\nkind: StatefulSet\n")
        .contains("  name: demo\n")
        .contains("- --listen-metrics-urls=http://[::]:2381\n")
        .contains("    path: /readyz\n")
        // strings that would read as a number or a boolean keep their quotes
        .containsPattern("replicas: 3\\n")
        .doesNotContain("name: \"demo\"")
        .doesNotContain("kind: \"StatefulSet\"");
    // And every object reads back as the very objects the model builds.
    var serialization = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
    var model =
        io.etcdoperator.operator.model.EtcdClusterModel.of(
            io.etcdoperator.operator.model.TestClusters.read(
                RESOURCES.resolve("golden/default.input.yaml")));
    List<io.fabric8.kubernetes.api.model.HasMetadata> built =
        model.all(io.etcdoperator.operator.model.ClusterState.bootstrap(model), model.replicas());
    List<JsonNode> printed = documents(run.out());
    assertThat(printed).hasSameSizeAs(built);
    for (int i = 0; i < built.size(); i++) {
      // As text: a tree read from YAML holds 3 as an int where fabric8's may hold a long.
      assertThat(printed.get(i).toString())
          .as(built.get(i).getKind())
          .isEqualTo(serialization.convertValue(built.get(i), JsonNode.class).toString());
    }
  }

  @Test
  void aStringThatLooksLikeANumberOrABooleanStaysQuoted() throws IOException {
    String yaml =
        RenderCommand.yaml(
            List.of(
                new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("c")
                    .endMetadata()
                    .addToData("count", "5000")
                    .addToData("flag", "true")
                    .addToData("hex", "870e1234")
                    .addToData("octal", "0o17")
                    .addToData("time", "1:30")
                    .addToData("word", "yes")
                    .addToData("empty", "")
                    .addToData("plain", "hello")
                    .build()));
    assertThat(yaml)
        .contains("count: \"5000\"")
        .contains("flag: \"true\"")
        .contains("hex: \"870e1234\"")
        .contains("octal: \"0o17\"")
        .contains("time: \"1:30\"")
        .contains("word: \"yes\"")
        .contains("empty: \"\"")
        .contains("plain: hello");
    assertThat(documents(yaml).get(0).path("data").path("flag").isTextual()).isTrue();
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource(
      delimiter = '|',
      value = {
        "hello|false",
        "--name=$(POD_NAME)|false",
        "http://[::]:2381|false",
        "/health?exclude=NOSPACE|false",
        "a: b|true",
        "a #b|true",
        "ends:|true",
        "- item|true",
        "[x]|true",
        "*alias|true",
        "%tag|true",
        "@at|true",
        "null|true",
        "~|true",
        "off|true",
        "12|true",
        "1.5|true",
        "0x1F|true",
        "1e3|true",
        ".inf|true"
      })
  void quotesOnlyWhatAPlainScalarCannotSay(String value, boolean quoted) throws IOException {
    assertThat(new RenderCommand.NumberLikeQuoted().needToQuoteValue(value)).isEqualTo(quoted);
    String yaml =
        RenderCommand.yaml(
            List.of(
                new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("c")
                    .endMetadata()
                    .addToData("v", value)
                    .build()));
    assertThat(documents(yaml).get(0).path("data").path("v").asText()).isEqualTo(value);
    assertThat(documents(yaml).get(0).path("data").path("v").isTextual()).isTrue();
  }
}
