package io.etcdoperator.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which updates of an EtcdCluster are reconciled at once: what a reconcile reads changed (spec,
 * annotations such as the pause, labels, deletion), not the operator's own status writes. Once only
 * new generations were: a pause or a rebuild opt-in waited for the next resync (60 s on a Ready
 * cluster).
 */
class WorthReconcilingTest {
  static Stream<Arguments> updates() {
    return Stream.of(
        Arguments.of("nothing changed", (Consumer<EtcdCluster>) c -> {}, false),
        Arguments.of(
            "status written",
            (Consumer<EtcdCluster>) c -> c.setStatus(new EtcdClusterStatus()),
            false),
        Arguments.of(
            "resourceVersion only",
            (Consumer<EtcdCluster>) c -> c.getMetadata().setResourceVersion("99"),
            false),
        Arguments.of(
            "new generation", (Consumer<EtcdCluster>) c -> c.getMetadata().setGeneration(2L), true),
        Arguments.of(
            "paused",
            (Consumer<EtcdCluster>)
                c -> c.getMetadata().setAnnotations(Map.of("etcd.aenix.io/paused", "true")),
            true),
        Arguments.of(
            "labelled",
            (Consumer<EtcdCluster>) c -> c.getMetadata().setLabels(Map.of("team", "x")),
            true),
        Arguments.of(
            "marked for deletion",
            (Consumer<EtcdCluster>)
                c -> c.getMetadata().setDeletionTimestamp("2026-12-06T08:00:00Z"),
            true));
  }

  private static EtcdCluster cluster() {
    EtcdCluster c = new EtcdCluster();
    c.getMetadata().setName("test");
    c.getMetadata().setGeneration(1L);
    c.getMetadata().setResourceVersion("1");
    return c;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("updates")
  void onlyWhatAReconcileReadsWakesIt(String name, Consumer<EtcdCluster> change, boolean wakes) {
    EtcdCluster older = cluster();
    EtcdCluster newer = cluster();
    change.accept(newer);
    assertThat(EtcdClusterReconciler.worthReconciling(newer, older)).isEqualTo(wakes);
  }
}
