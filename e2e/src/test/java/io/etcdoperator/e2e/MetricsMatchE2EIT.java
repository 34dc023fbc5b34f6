package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSchedule;
import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.operator.deploy.MonitoringFiles;
import io.etcdoperator.operator.deploy.PromQl;
import io.etcdoperator.operator.etcd.DefragResult;
import io.etcdoperator.operator.metrics.OperatorMetrics;
import io.etcdoperator.sandbox.EtcdOperatorLauncher;
import io.etcdoperator.sandbox.SandboxConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard and the PrometheusRule of {@code deploy/} read metrics that exist: every
 * metric name in their PromQL (and in the dashboard's {@code label_values} variables) is among the
 * series of a real scrape of {@code /metrics}, over HTTP on loopback, of the operator running in
 * the sandbox against a real 3-member etcd cluster.
 *
 * <p>What makes the series exist: the cluster itself (its gauges and counters, its members' gauges,
 * the reconcile histogram, the framework's counters); one EtcdBackup to a claim, so that the
 * cluster's last backup time is a number, not NaN; an EtcdBackupSchedule that fires once a year,
 * whose two gauges appear when it is reconciled (its interval a number, its last success NaN: it
 * never fired).
 *
 * <p>Not from the scrape ({@link #REGISTRY_ONLY}), but from a registry of {@link OperatorMetrics}
 * of their own after the calls that register them ran: the reconcile failure counter, which exists
 * only once a reconcile failed (this healthy run provokes none), and the defragmentation series,
 * which exist only once a member was defragmented. A cluster with {@code
 * spec.defragmentation.threshold} (1 percent, 0 bytes: a fresh etcd 3.5 database file is 20 KiB of
 * which 16 KiB is in use) was tried here: the operator defragmented the members but could not
 * record it (a PATCH of the cluster's state ConfigMap, which {@code deploy/}'s RBAC does not
 * grant), so it defragmented them again every few hundred milliseconds and the cluster never became
 * Ready.
 */
class MetricsMatchE2EIT {
  static final Set<String> REGISTRY_ONLY =
      Set.of(
          "etcd_operator_reconcile_failures_total",
          "etcd_operator_defragmentations_total",
          "etcd_operator_defragmentation_duration_seconds_bucket",
          "etcd_operator_defragmentation_duration_seconds_count",
          "etcd_operator_defragmentation_duration_seconds_sum",
          "etcd_operator_defragmentation_freed_bytes_total");

  @TempDir Path dir;

  @Test
  void everyMetricTheDashboardAndTheAlertsReadIsInARealScrape() throws Exception {
    List<String> expressions = MonitoringFiles.allExpressions();
    assertThat(expressions).hasSizeGreaterThan(10);
    EtcdOperatorLauncher launcher =
        new EtcdOperatorLauncher(
            OperatorSettings.defaults().withHttp(new OperatorSettings.Http("127.0.0.1", 0)));
    try (E2E e2e =
        E2E.start(
            SandboxConfig.defaults(dir.resolve("sandbox"))
                .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5)),
            launcher)) {
      int port = launcher.running().get(0).httpPort().orElseThrow();
      e2e.apply(Cluster.THREE_MEMBERS);
      e2e.awaitReady("test", Duration.ofMinutes(2));
      claim(e2e, "backup-claim");
      create(
          e2e,
          EtcdBackup.class,
          """
          apiVersion: etcd.aenix.io/v1alpha1
          kind: EtcdBackup
          metadata:
            name: once
            namespace: default
          spec:
            clusterRef:
              name: test
            destination:
              pvc:
                claimName: backup-claim
          """);
      create(
          e2e,
          EtcdBackupSchedule.class,
          """
          apiVersion: etcd.aenix.io/v1alpha1
          kind: EtcdBackupSchedule
          metadata:
            name: yearly
            namespace: default
          spec:
            clusterRef:
              name: test
            schedule: "0 0 1 1 *"
            destination:
              pvc:
                claimName: backup-claim
          """);

      HttpClient http = HttpClient.newHttpClient();
      URI metrics = URI.create("http://127.0.0.1:" + port + "/metrics");
      AtomicReference<String> last = new AtomicReference<>("");
      try {
        await()
            .atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () -> {
                  String scrape =
                      http.send(
                              HttpRequest.newBuilder(metrics).build(),
                              HttpResponse.BodyHandlers.ofString())
                          .body();
                  last.set(scrape);
                  Set<String> scraped = PromQl.seriesNames(scrape);
                  List<String> missing = PromQl.missing(expressions, scraped);
                  missing.removeIf(REGISTRY_ONLY::contains);
                  assertThat(missing)
                      .as("read by the dashboard or an alert, not scraped")
                      .isEmpty();
                  assertThat(sample(scrape, "etcd_operator_cluster_last_backup_timestamp_seconds"))
                      .as("the cluster's last backup")
                      .isNotNaN();
                  assertThat(sample(scrape, "etcd_operator_backup_schedule_interval_seconds"))
                      .as("the schedule's interval")
                      .isGreaterThan(0);
                });
      } finally {
        Files.writeString(Path.of("target/metrics-match-scrape.txt"), last.get());
      }
      assertThat(
              PromQl.missing(
                  List.of("etcd_operator_cluster_quorom"), PromQl.seriesNames(last.get())))
          .as("a misspelt name is found missing")
          .containsExactly("etcd_operator_cluster_quorom");
      e2e.awaitReady("test", Duration.ofMinutes(1));
    }
  }

  /**
   * The names only a failure or a defragmentation makes exist are what {@link OperatorMetrics}
   * registers then, and the dashboard does read them (else this set would hide nothing).
   */
  @Test
  void theSeriesOnlyFailuresAndDefragmentationsMakeAreWhatOperatorMetricsRegisters() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    OperatorMetrics metrics = new OperatorMetrics(registry);
    for (String kind : List.of("exception", "step", "api")) {
      metrics.failed("default", "test", kind);
    }
    metrics.defragmented(
        "default",
        "test",
        "test-0",
        Optional.of(new DefragResult("http://test-0", 20480, 16384, 16384, Duration.ofMillis(30))));
    metrics.defragmented("default", "test", "test-1", Optional.empty());
    Set<String> read = new TreeSet<>();
    MonitoringFiles.allExpressions().forEach(e -> read.addAll(PromQl.metricNames(e)));
    assertThat(read).containsAll(REGISTRY_ONLY);
    assertThat(PromQl.seriesNames(registry.scrape())).containsAll(REGISTRY_ONLY);
  }

  /**
   * The value of the first sample of {@code name} (whose labels contain {@code labelValue}, when
   * given), NaN when none.
   */
  static double sample(String scrape, String name, String... labelValue) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(name + "{")
          && (labelValue.length == 0 || line.contains("\"" + labelValue[0] + "\""))) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return Double.NaN;
  }

  static void claim(E2E e2e, String name) {
    e2e.createClaim(name, "ReadWriteOnce");
  }

  static <T extends io.fabric8.kubernetes.api.model.HasMetadata> void create(
      E2E e2e, Class<T> type, String yaml) {
    e2e.client().resource(e2e.client().getKubernetesSerialization().unmarshal(yaml, type)).create();
  }
}
