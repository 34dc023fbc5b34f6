package io.etcdoperator.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart, linted and rendered by the real Helm engine (helm-java), renders the same objects
 * as the plain manifests under {@code deploy/}: compared as parsed YAML, object by object.
 */
class HelmChartTest {
  static final Path DEPLOY = Path.of("../deploy");
  static final Path CHART = DEPLOY.resolve("helm/etcd-operator");
  static final String RELEASE = "etcd-operator";
  static final Path GENERATED_CRDS = Path.of("../api/target/classes/META-INF/fabric8");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void chartPassesLint() {
    LintResult lint = new Helm(CHART).lint().strict().call();
    assertThat(lint.getMessages()).noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
    assertThat(lint.isFailed()).as("%s", lint.getMessages()).isFalse();
  }

  @Test
  void clusterScopeRendersTheClusterScopeManifests() throws IOException {
    String rendered = new Helm(CHART).template().withName(RELEASE).withNamespace(RELEASE).call();
    assertThat(objects(rendered)).isEqualTo(manifests("cluster-scope.yaml"));
  }

  @Test
  void namespaceScopeRendersTheNamespaceScopeManifests() throws IOException {
    String rendered =
        new Helm(CHART)
            .template()
            .withName(RELEASE)
            .withNamespace(RELEASE)
            .set("watchNamespaces[0]", RELEASE)
            .call();
    assertThat(objects(rendered)).isEqualTo(manifests("namespace-scope.yaml"));
  }

  @Test
  void valuesReachTheObjects() throws IOException {
    String rendered =
        new Helm(CHART)
            .template()
            .withName("etcd")
            .withNamespace("ops")
            .set("image.repository", "registry.example.com/etcd-operator")
            .set("image.tag", "1.2.3")
            .set("replicaCount", "2")
            .set("resources.limits.memory", "1Gi")
            .set("watchNamespaces[0]", "team-a")
            .set("watchNamespaces[1]", "team-b")
            .call();
    Map<String, JsonNode> objects = objects(rendered);
    assertThat(objects)
        .containsOnlyKeys(
            "ServiceAccount ops/etcd",
            "Role team-a/etcd",
            "RoleBinding team-a/etcd",
            "Role team-b/etcd",
            "RoleBinding team-b/etcd",
            "Role ops/etcd-leader-election",
            "RoleBinding ops/etcd-leader-election",
            "Deployment ops/etcd");
    JsonNode deployment = objects.get("Deployment ops/etcd");
    JsonNode container = deployment.at("/spec/template/spec/containers/0");
    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
    assertThat(container.at("/image").asText())
        .isEqualTo("registry.example.com/etcd-operator:1.2.3");
    assertThat(container.at("/resources/limits/memory").asText()).isEqualTo("1Gi");
    assertThat(container.at("/env/0/name").asText()).isEqualTo("WATCH_NAMESPACES");
    assertThat(container.at("/env/0/value").asText()).isEqualTo("team-a,team-b");
    assertThat(objects.get("RoleBinding team-b/etcd").at("/subjects/0/namespace").asText())
        .isEqualTo("ops");
  }

  @Test
  void monitoringObjectsAreOffByDefault() throws IOException {
    String rendered = new Helm(CHART).template().withName(RELEASE).withNamespace(RELEASE).call();
    assertThat(objects(rendered).keySet())
        .noneMatch(k -> k.startsWith("PodMonitor ") || k.startsWith("PrometheusRule "))
        .noneMatch(k -> k.startsWith("ConfigMap "));
  }

  /**
   * With {@code metrics.*.enabled} the chart renders the PodMonitor and the PrometheusRule of
   * {@code deploy/monitoring/}, object for object, and a ConfigMap for Grafana's sidecar that holds
   * the chart's dashboard file byte for byte (the one copy of the dashboard).
   */
  @Test
  void monitoringValuesRenderThePlainMonitoringObjectsAndTheDashboard() throws IOException {
    String rendered =
        new Helm(CHART)
            .template()
            .withName(RELEASE)
            .withNamespace(RELEASE)
            .set("metrics.podMonitor.enabled", "true")
            .set("metrics.prometheusRule.enabled", "true")
            .set("metrics.dashboard.enabled", "true")
            .call();
    Map<String, JsonNode> objects = objects(rendered);
    objects.keySet().removeAll(manifests("cluster-scope.yaml").keySet());
    Map<String, JsonNode> plain = new TreeMap<>();
    try (var files = Files.list(MonitoringFiles.MONITORING)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        plain.putAll(objects(Files.readString(f)));
      }
    }
    assertThat(plain)
        .containsOnlyKeys(
            "PodMonitor etcd-operator/etcd-operator", "PrometheusRule etcd-operator/etcd-operator");
    JsonNode dashboard = objects.remove("ConfigMap etcd-operator/etcd-operator-dashboard");
    assertThat(objects).isEqualTo(plain);
    assertThat(dashboard).isNotNull();
    assertThat(dashboard.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
    assertThat(dashboard.at("/data/etcd-operator.json").asText())
        .isEqualTo(Files.readString(MonitoringFiles.DASHBOARD).stripTrailing());
  }

  @Test
  void monitoringLabelsAndTheDashboardNamespaceAreSettable() throws IOException {
    String rendered =
        new Helm(CHART)
            .template()
            .withName("etcd")
            .withNamespace("ops")
            .set("metrics.podMonitor.enabled", "true")
            .set("metrics.podMonitor.labels.release", "prometheus")
            .set("metrics.podMonitor.interval", "15s")
            .set("metrics.prometheusRule.enabled", "true")
            .set("metrics.prometheusRule.labels.release", "prometheus")
            .set("metrics.dashboard.enabled", "true")
            .set("metrics.dashboard.namespace", "grafana")
            .set("metrics.dashboard.labels.team", "platform")
            .set("metrics.dashboard.annotations.grafana_folder", "etcd")
            .call();
    Map<String, JsonNode> objects = objects(rendered);
    JsonNode podMonitor = objects.get("PodMonitor ops/etcd");
    assertThat(podMonitor.at("/metadata/labels/release").asText()).isEqualTo("prometheus");
    assertThat(podMonitor.at("/spec/podMetricsEndpoints/0/interval").asText()).isEqualTo("15s");
    assertThat(podMonitor.at("/spec/selector/matchLabels"))
        .isEqualTo(objects.get("Deployment ops/etcd").at("/spec/template/metadata/labels"));
    assertThat(podMonitor.at("/spec/podMetricsEndpoints/0/port").asText())
        .isEqualTo(
            objects
                .get("Deployment ops/etcd")
                .at("/spec/template/spec/containers/0/ports/0/name")
                .asText());
    assertThat(objects.get("PrometheusRule ops/etcd").at("/metadata/labels/release").asText())
        .isEqualTo("prometheus");
    JsonNode dashboard = objects.get("ConfigMap grafana/etcd-dashboard");
    assertThat(dashboard.at("/metadata/labels/team").asText()).isEqualTo("platform");
    assertThat(dashboard.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
    assertThat(dashboard.at("/metadata/annotations/grafana_folder").asText()).isEqualTo("etcd");
  }

  /**
   * What Helm installs as the chart's CRDs ({@code helm show crds}) are the CRDs the build
   * generates from the Java classes, every one of them: the chart carries a copy of its own (Helm
   * packages the files under {@code crds/}), which goes stale unless refreshed with {@code cp
   * api/target/classes/META-INF/fabric8/*.yml deploy/helm/etcd-operator/crds/}.
   */
  @Test
  void helmInstallsTheCrdsTheBuildGenerates() throws IOException {
    StringBuilder generated = new StringBuilder();
    try (var files = Files.list(GENERATED_CRDS)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yml")).sorted().toList()) {
        generated.append(Files.readString(f)).append("\n---\n");
      }
    }
    assertThat(objects(generated.toString())).isNotEmpty();
    // helm show crds prints the files one after the other without a document separator (Helm
    // installs each file on its own); each generated file starts with the generator's comment.
    String shown =
        new Helm(CHART)
            .show()
            .crds()
            .call()
            .replace("# Generated by Fabric8", "---\n# Generated by Fabric8");
    assertThat(objects(shown))
        .as("the chart's crds/ differ from the generated CRDs")
        .isEqualTo(objects(generated.toString()));
  }

  /** The manifests of a file, without the Namespace (Helm installs into one; it creates none). */
  static Map<String, JsonNode> manifests(String file) throws IOException {
    Map<String, JsonNode> objects = objects(Files.readString(DEPLOY.resolve(file)));
    objects.keySet().removeIf(k -> k.startsWith("Namespace "));
    return objects;
  }

  /** Objects of a multi-document YAML by "Kind namespace/name" (no namespace: "Kind name"). */
  static Map<String, JsonNode> objects(String yaml) throws IOException {
    Map<String, JsonNode> objects = new TreeMap<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      while (it.hasNextValue()) {
        JsonNode doc = it.nextValue();
        if (doc == null || !doc.isObject()) {
          continue;
        }
        String ns = doc.at("/metadata/namespace").asText();
        String key =
            doc.path("kind").asText()
                + " "
                + (ns.isEmpty() ? "" : ns + "/")
                + doc.at("/metadata/name").asText();
        assertThat(objects.put(key, doc)).as("duplicate %s", key).isNull();
      }
    }
    return objects;
  }
}
