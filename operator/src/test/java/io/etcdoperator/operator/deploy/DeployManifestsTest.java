package io.etcdoperator.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the plain manifests under {@code deploy/} promise: least privilege, a locked-down pod. */
class DeployManifestsTest {
  static Map<String, JsonNode> objects(String file) throws IOException {
    return HelmChartTest.objects(Files.readString(HelmChartTest.DEPLOY.resolve(file)));
  }

  /**
   * The namespaced manifest holds no cluster-wide object. What RBAC grants is checked against the
   * calls the operator makes in the end-to-end tests, not against a list written here (sandbox's
   * RbacGrantsUsedCheck).
   */
  @Test
  void theNamespacedManifestHasNoClusterObject() throws IOException {
    assertThat(objects("namespace-scope.yaml").keySet()).noneMatch(k -> k.startsWith("Cluster"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster-scope.yaml", "namespace-scope.yaml"})
  void operatorPodIsNonRootReadOnlyBoundedAndProbed(String file) throws IOException {
    JsonNode pod =
        objects(file).get("Deployment etcd-operator/etcd-operator").at("/spec/template/spec");
    JsonNode c = pod.at("/containers/0");
    assertThat(pod.at("/serviceAccountName").asText()).isEqualTo("etcd-operator");
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(c.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(c.at("/securityContext/allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(c.at("/resources/requests/memory").asText()).isNotEmpty();
    assertThat(c.at("/resources/limits/memory").asText()).isNotEmpty();
    assertThat(c.at("/args/0").asText()).isEqualTo("run");
    assertThat(c.at("/ports/0/containerPort").asInt()).isEqualTo(8080);
    assertThat(c.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    assertThat(c.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
    assertThat(c.at("/volumeMounts/0/mountPath").asText()).isEqualTo("/tmp");
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster-scope.yaml", "namespace-scope.yaml"})
  void watchedNamespacesAreWhatTheRbacAllows(String file) throws IOException {
    JsonNode env =
        objects(file)
            .get("Deployment etcd-operator/etcd-operator")
            .at("/spec/template/spec/containers/0/env");
    String watched = "";
    for (JsonNode e : env) {
      if (e.path("name").asText().equals("WATCH_NAMESPACES")) {
        watched = e.path("value").asText();
      }
    }
    assertThat(watched).isEqualTo(file.startsWith("cluster") ? "" : "etcd-operator");
  }

  @Test
  void imageCopiesTheProductJarTheLauncherRuns() throws IOException {
    String dockerfile = Files.readString(HelmChartTest.DEPLOY.resolve("image/Dockerfile"));
    String launcher = Files.readString(Path.of("../etcd-operator"));
    assertThat(launcher).contains("product/target/etcd-operator.jar");
    assertThat(dockerfile)
        .contains("COPY product/target/etcd-operator.jar ")
        .containsPattern("(?m)^FROM \\S+-jre")
        .containsPattern("(?m)^USER \\d+");
  }

  /**
   * The image and the launcher run the operator with the same JVM settings (one file, and the same
   * malloc arenas), and the build context lets in every file the image copies (it once let in a jar
   * path the Dockerfile did not copy, and not the one it did).
   */
  /**
   * The image's etcd tools (a restore's etcdutl, a point-in-time restore's etcd) are those of the
   * default etcd image: the Dockerfile said 3.5.17 while members ran 3.5.30.
   */
  /** The image's version label is the project's version (it is written by hand in both). */
  @Test
  void imageLabelsItsVersion() throws IOException {
    String dockerfile = Files.readString(HelmChartTest.DEPLOY.resolve("image/Dockerfile"));
    java.util.regex.Matcher version =
        java.util.regex.Pattern.compile("<version>([^<]+)</version>")
            .matcher(Files.readString(Path.of("../pom.xml")));
    assertThat(version.find()).isTrue();
    assertThat(dockerfile)
        .contains("org.opencontainers.image.version=\"" + version.group(1) + "\"")
        .contains("org.opencontainers.image.licenses=\"Apache-2.0\"");
  }

  @Test
  void imageCarriesTheEtcdToolsOfTheDefaultEtcdImage() throws IOException {
    String dockerfile = Files.readString(HelmChartTest.DEPLOY.resolve("image/Dockerfile"));
    String defaultImage = io.etcdoperator.operator.model.EtcdClusterModel.defaultEtcdImage();
    assertThat(dockerfile).contains("FROM " + defaultImage + " AS etcd");
  }

  @Test
  void imageAndLauncherRunTheSameJvmSettings() throws IOException {
    String dockerfile = Files.readString(HelmChartTest.DEPLOY.resolve("image/Dockerfile"));
    String launcher = Files.readString(Path.of("../etcd-operator"));
    List<String> ignore =
        Files.readAllLines(HelmChartTest.DEPLOY.resolve("image/Dockerfile.dockerignore"));
    assertThat(launcher)
        .contains("@\"$root/deploy/image/jvm.options\"")
        .contains("MALLOC_ARENA_MAX");
    assertThat(dockerfile)
        .contains("COPY deploy/image/jvm.options /opt/etcd-operator/jvm.options")
        .contains("\"java\", \"@/opt/etcd-operator/jvm.options\"")
        .contains("ENV MALLOC_ARENA_MAX=2");
    java.util.regex.Matcher copy =
        java.util.regex.Pattern.compile("(?m)^COPY (?!--from)(\\S+) ").matcher(dockerfile);
    int copies = 0;
    while (copy.find()) {
      copies++;
      assertThat(ignore)
          .as("the build context lets in " + copy.group(1))
          .contains("!" + copy.group(1));
    }
    assertThat(copies).isEqualTo(2);
    // Every line of the settings is a comment or one JVM option the JVM knows the form of.
    for (String line : Files.readAllLines(HelmChartTest.DEPLOY.resolve("image/jvm.options"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        assertThat(line).matches("-(XX:[+-]?\\w+(=\\S+)?|X\\w+|D[\\w.]+=\\S+)");
      }
    }
  }
}
