package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdoperator.operator.cli.RenderCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The model's objects for a few specs, against YAML files a human has read ({@code
 * src/test/resources/golden/}). The compare is of the parsed YAML, not of the text. Each case keeps
 * only the kinds it is about, so that the files stay short enough to read.
 *
 * <p>After an intended change, regenerate the files, then read the diff before committing it:
 *
 * <pre>
 * mvn -B -pl operator -am verify -Dtest=GoldenTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dgolden.update=true
 * git diff operator/src/test/resources/golden
 * </pre>
 */
class GoldenTest {
  static final Path DIR = Path.of("src/test/resources/golden");
  static final Set<String> ALL =
      Set.of("ConfigMap", "Service", "StatefulSet", "PodDisruptionBudget");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("default", DIR.resolve("default.input.yaml"), ALL),
        Arguments.of("seed-000-fixed", Path.of("../examples/seed-000-fixed.yaml"), ALL),
        Arguments.of("empty-dir", DIR.resolve("empty-dir.input.yaml"), Set.of("StatefulSet")),
        Arguments.of("custom-pvc", DIR.resolve("custom-pvc.input.yaml"), Set.of("StatefulSet")),
        Arguments.of("tls", DIR.resolve("tls.input.yaml"), Set.of("StatefulSet", "ConfigMap")),
        Arguments.of(
            "service-and-pdb-templates",
            DIR.resolve("service-and-pdb-templates.input.yaml"),
            Set.of("Service", "PodDisruptionBudget")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void modelMatchesGolden(String name, Path input, Set<String> kinds) throws Exception {
    EtcdClusterModel model = EtcdClusterModel.of(TestClusters.read(input));
    List<HasMetadata> objects = new ArrayList<>();
    for (HasMetadata o : model.all(ClusterState.bootstrap(model), model.replicas())) {
      if (kinds.contains(o.getKind())) {
        objects.add(o);
      }
    }
    String actual = RenderCommand.yaml(objects);
    Path golden = DIR.resolve(name + ".yaml");
    if (Boolean.getBoolean("golden.update")) {
      Files.writeString(golden, header(input, kinds) + actual);
    }
    assertThat(golden).as("golden file; create it with -Dgolden.update=true").exists();
    String expected = Files.readString(golden);
    if (!documents(expected).equals(documents(actual))) {
      // Equal trees are the test; the text compare only shows where they differ.
      assertThat(actual).as("objects of %s differ from %s", input, golden).isEqualTo(expected);
    }
  }

  static String header(Path input, Set<String> kinds) {
    return "# Golden: "
        + (kinds.equals(ALL)
            ? "every object"
            : "the " + String.join(", ", kinds.stream().sorted().toList()))
        + " of "
        + input.toString().replace("src/test/resources/golden/", "")
        + " (GoldenTest; regenerate with -Dgolden.update=true, then read the diff).\n";
  }

  static List<JsonNode> documents(String yaml) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      while (it.hasNextValue()) {
        JsonNode doc = it.nextValue();
        if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
          docs.add(doc);
        }
      }
    }
    return docs;
  }
}
