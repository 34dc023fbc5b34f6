package io.etcdoperator.operator.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The monitoring files of {@code deploy/}: the Grafana dashboard (one file, in the chart, which its
 * ConfigMap embeds) and the PrometheusRule (the plain copy, which {@link HelmChartTest} holds equal
 * to what the chart renders). Paths are relative to a module directory.
 */
public final class MonitoringFiles {
  public static final Path DASHBOARD = HelmChartTest.CHART.resolve("dashboards/etcd-operator.json");
  public static final Path MONITORING = HelmChartTest.DEPLOY.resolve("monitoring");
  public static final Path RULES = MONITORING.resolve("prometheusrule.yaml");
  public static final Path POD_MONITOR = MONITORING.resolve("podmonitor.yaml");

  private MonitoringFiles() {}

  public static JsonNode dashboard() {
    try {
      return new ObjectMapper().readTree(Files.readString(DASHBOARD));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static JsonNode rule() {
    try {
      return HelmChartTest.YAML.readTree(Files.readString(RULES));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every panel of the dashboard, those inside collapsed rows too; rows themselves are not. */
  public static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> panels = new ArrayList<>();
    for (JsonNode p : dashboard.path("panels")) {
      if ("row".equals(p.path("type").asText())) {
        p.path("panels").forEach(panels::add);
      } else {
        panels.add(p);
      }
    }
    return panels;
  }

  /** The PromQL of every panel's targets. */
  public static List<String> dashboardExpressions() {
    List<String> exprs = new ArrayList<>();
    for (JsonNode p : panels(dashboard())) {
      for (JsonNode t : p.path("targets")) {
        exprs.add(t.path("expr").asText());
      }
    }
    return exprs;
  }

  /** Every alert rule of the PrometheusRule (recording rules, if any, too). */
  public static List<JsonNode> alerts() {
    List<JsonNode> rules = new ArrayList<>();
    for (JsonNode group : rule().at("/spec/groups")) {
      group.path("rules").forEach(rules::add);
    }
    return rules;
  }

  public static List<String> alertExpressions() {
    return alerts().stream().map(r -> r.path("expr").asText()).toList();
  }

  /** The metric names of the dashboard's query variables ({@code label_values(metric, label)}). */
  public static Set<String> variableMetricNames() {
    Set<String> names = new TreeSet<>();
    for (JsonNode v : dashboard().at("/templating/list")) {
      if ("query".equals(v.path("type").asText())) {
        JsonNode q = v.path("query");
        names.addAll(
            PromQl.metricNamesOfLabelValues(q.isObject() ? q.path("query").asText() : q.asText()));
      }
    }
    return names;
  }

  /** Every PromQL the dashboard and the alerts hold, the variables' metrics as bare selectors. */
  public static List<String> allExpressions() {
    List<String> all = new ArrayList<>(dashboardExpressions());
    all.addAll(alertExpressions());
    all.addAll(variableMetricNames());
    return all;
  }
}
