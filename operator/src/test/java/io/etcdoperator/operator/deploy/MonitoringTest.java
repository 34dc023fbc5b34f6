package io.etcdoperator.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdoperator.operator.etcd.DefragResult;
import io.etcdoperator.operator.metrics.OperatorMetrics;
import io.etcdoperator.operator.plan.ClusterGauges;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the alerts of {@code deploy/}, without a cluster: they parse, every
 * panel queries something, every alert waits, says how bad it is and names the cluster; and the
 * metric names they read are those {@link OperatorMetrics} registers (the sandbox's
 * MetricsMatchE2EIT checks them against a real scrape of a running operator).
 */
class MonitoringTest {
  @Test
  void dashboardParsesWithItsVariablesAndEveryPanelQueriesSomething() {
    JsonNode d = MonitoringFiles.dashboard();
    assertThat(d.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
    assertThat(d.path("uid").asText()).isEqualTo("etcd-operator");
    assertThat(d.path("title").asText()).isNotBlank();
    Map<String, JsonNode> variables = new TreeMap<>();
    d.at("/templating/list").forEach(v -> variables.put(v.path("name").asText(), v));
    assertThat(variables).containsOnlyKeys("datasource", "namespace", "cluster");
    assertThat(variables.get("datasource").path("type").asText()).isEqualTo("datasource");
    assertThat(variables.get("datasource").path("query").asText()).isEqualTo("prometheus");
    for (String v : List.of("namespace", "cluster")) {
      assertThat(variables.get(v).path("type").asText()).isEqualTo("query");
      assertThat(variables.get(v).at("/query/query").asText()).startsWith("label_values(");
      assertThat(variables.get(v).at("/datasource/uid").asText()).isEqualTo("${datasource}");
    }
    List<JsonNode> panels = MonitoringFiles.panels(d);
    assertThat(panels).hasSizeGreaterThanOrEqualTo(15);
    Set<Integer> ids = new HashSet<>();
    d.path("panels").forEach(p -> assertThat(ids.add(p.path("id").asInt())).isTrue());
    for (JsonNode p : panels) {
      String title = p.path("title").asText();
      assertThat(title).isNotBlank();
      assertThat(p.at("/datasource/uid").asText()).as(title).isEqualTo("${datasource}");
      assertThat(p.path("targets")).as("%s: targets", title).isNotEmpty();
      for (JsonNode t : p.path("targets")) {
        assertThat(t.path("expr").asText()).as("%s: expr", title).isNotBlank();
        assertThat(t.path("refId").asText()).as("%s: refId", title).isNotBlank();
        assertThat(PromQl.metricNames(t.path("expr").asText())).as(title).isNotEmpty();
      }
    }
  }

  @Test
  void everyAlertWaitsHasASeverityAndNamesTheCluster() {
    JsonNode rule = MonitoringFiles.rule();
    assertThat(rule.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(rule.path("kind").asText()).isEqualTo("PrometheusRule");
    Map<String, JsonNode> alerts = new TreeMap<>();
    for (JsonNode a : MonitoringFiles.alerts()) {
      String name = a.path("alert").asText();
      assertThat(name).isNotBlank();
      assertThat(alerts.put(name, a)).as("duplicate %s", name).isNull();
      assertThat(a.path("expr").asText()).as(name).isNotBlank();
      assertThat(PromQl.metricNames(a.path("expr").asText())).as(name).isNotEmpty();
      assertThat(a.path("for").asText()).as("%s: for", name).matches("([0-9]+[smhd])+");
      assertThat(a.at("/labels/severity").asText())
          .as("%s: severity", name)
          .isIn("critical", "warning", "info");
      for (String annotation : List.of("summary", "description")) {
        assertThat(a.at("/annotations/" + annotation).asText())
            .as("%s: %s", name, annotation)
            .contains("{{ $labels.namespace }}")
            .containsAnyOf("{{ $labels.name }}", "{{ $labels.cluster }}");
      }
    }
    assertThat(alerts)
        .containsKeys(
            "EtcdClusterQuorumLost",
            "EtcdMemberDown",
            "EtcdNoSpaceAlarm",
            "EtcdDatabaseNearQuota",
            "EtcdBackupScheduleLate");
    assertThat(alerts.get("EtcdMemberDown").path("for").asText()).isEqualTo("5m");
    assertThat(alerts.get("EtcdDatabaseNearQuota").path("for").asText()).isEqualTo("10m");
    assertThat(alerts.get("EtcdDatabaseNearQuota").path("expr").asText()).endsWith("> 0.8");
    assertThat(alerts.get("EtcdNoSpaceAlarm").path("expr").asText()).contains("NOSPACE");
  }

  /**
   * Every name the dashboard and the alerts read, other than the framework's ({@code
   * operator_sdk_...}), is exposed once each of {@link OperatorMetrics}' calls ran.
   */
  @Test
  void everyOperatorMetricReadIsOneOperatorMetricsRegisters() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    OperatorMetrics m = new OperatorMetrics(registry);
    m.observed(
        "default",
        "test",
        new ClusterGauges(
            3,
            3,
            3,
            3,
            0,
            true,
            1,
            Set.of(),
            2L << 30,
            false,
            List.of(new ClusterGauges.MemberGauges("test-0", true, true, 0, 20480, 16384))),
        Optional.of(Instant.parse("2026-01-01T00:00:00Z")));
    m.reconciled("default", "test", "InSync", Duration.ofMillis(20));
    m.failed("default", "test", "step");
    m.defragmented(
        "default",
        "test",
        "test-0",
        Optional.of(new DefragResult("http://test-0", 20480, 16384, 16384, Duration.ofMillis(5))));
    m.schedule(
        "default",
        "nightly",
        "test",
        Optional.of(Instant.parse("2026-01-01T00:00:00Z")),
        Optional.of(Duration.ofDays(1)));
    List<String> ours = new ArrayList<>();
    for (String e : MonitoringFiles.allExpressions()) {
      PromQl.metricNames(e).stream().filter(n -> !n.startsWith("operator_sdk_")).forEach(ours::add);
    }
    assertThat(ours).isNotEmpty();
    assertThat(PromQl.missing(ours, PromQl.seriesNames(registry.scrape()))).isEmpty();
    assertThat(
            PromQl.missing(
                List.of("etcd_operator_cluster_quorom"), PromQl.seriesNames(registry.scrape())))
        .containsExactly("etcd_operator_cluster_quorom");
  }
}
