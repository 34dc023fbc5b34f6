package io.etcdoperator.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The tokenizer that finds the metric names of PromQL: one row per construct it must see past. */
class PromQlTest {
  static Stream<Arguments> expressions() {
    return Stream.of(
        Arguments.of("up", Set.of("up")),
        Arguments.of(
            "max by (namespace, name) (etcd_operator_cluster_quorum{namespace=~\"$namespace\"}) == 0",
            Set.of("etcd_operator_cluster_quorum")),
        Arguments.of("sum(x_total) by (job)", Set.of("x_total")),
        Arguments.of(
            "sum without (le) (rate(a_total{x=\"by (foo) bar\", y!~'b{1}'}[5m] offset 1h))",
            Set.of("a_total")),
        Arguments.of(
            "a / on (namespace, name) group_left () max by (namespace, name) (b) > 0.8",
            Set.of("a", "b")),
        Arguments.of("a * ignoring(member) group_right(pod) b", Set.of("a", "b")),
        Arguments.of("a / on(x) group_left b", Set.of("a", "b")),
        Arguments.of(
            "histogram_quantile(0.99, sum by (namespace, le) (rate(d_bucket{n=~\"$c\"}[$__rate_interval])))",
            Set.of("d_bucket")),
        Arguments.of(
            "time() - last_seconds > 2 * interval_seconds",
            Set.of("last_seconds", "interval_seconds")),
        Arguments.of("a and b or c unless d", Set.of("a", "b", "c", "d")),
        Arguments.of("a > bool 1e3 + 0x1f - .5", Set.of("a")),
        Arguments.of("max_over_time(rate(x[5m])[1h:1m])", Set.of("x")),
        Arguments.of("count_values(\"version\", build_info)", Set.of("build_info")),
        Arguments.of("label_replace(up, \"dst\", \"$1\", \"src\", \"(.*)\")", Set.of("up")),
        Arguments.of("-x offset 1h30m", Set.of("x")),
        Arguments.of("x @ start()", Set.of("x")),
        Arguments.of(
            "job:requests:rate5m # a comment with a name_in_it", Set.of("job:requests:rate5m")),
        Arguments.of("{__name__=\"only_in_a_matcher\"}", Set.of()));
  }

  @ParameterizedTest
  @MethodSource("expressions")
  void findsTheMetricNames(String expr, Set<String> names) {
    assertThat(PromQl.metricNames(expr)).isEqualTo(names);
  }

  @Test
  void aMisspeltFunctionIsRefusedNotTakenForAMetric() {
    assertThatThrownBy(() -> PromQl.metricNames("rat(x_total[5m])"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a PromQL function: rat");
  }

  @Test
  void unbalancedBracketsAreRefused() {
    assertThatThrownBy(() -> PromQl.metricNames("rate(x{a=\"b\"[5m])"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aMisspeltMetricNameIsFoundMissing() {
    Set<String> scraped =
        PromQl.seriesNames(
            """
            # HELP etcd_operator_cluster_leader_changes_total Leader changes the operator saw
            # TYPE etcd_operator_cluster_leader_changes_total counter
            etcd_operator_cluster_leader_changes_total{name="test",namespace="default"} 0.0
            etcd_operator_cluster_quorum{name="test",namespace="default"} 1.0
            """);
    assertThat(scraped)
        .containsExactly(
            "etcd_operator_cluster_leader_changes_total", "etcd_operator_cluster_quorum");
    assertThat(
            PromQl.missing(
                List.of(
                    "max by (namespace, name) (etcd_operator_cluster_quorum) == 0",
                    "increase(etcd_operator_cluster_leader_chnages_total[5m])"),
                scraped))
        .containsExactly("etcd_operator_cluster_leader_chnages_total");
  }

  @Test
  void labelValuesReadsTheMetricOfItsFirstArgument() {
    assertThat(
            PromQl.metricNamesOfLabelValues(
                "label_values(etcd_operator_cluster_members_desired{namespace=~\"$namespace\"}, name)"))
        .containsExactly("etcd_operator_cluster_members_desired");
    assertThat(PromQl.metricNamesOfLabelValues("label_values(namespace)")).isEmpty();
  }
}
