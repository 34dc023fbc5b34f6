package io.etcdoperator.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusMergerTest {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00.123Z");

  static EtcdClusterStatus status(Condition... conditions) {
    EtcdClusterStatus s = new EtcdClusterStatus();
    s.setConditions(new ArrayList<>(List.of(conditions)));
    return s;
  }

  static Condition cond(String type, String status, String time) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason("R")
        .withMessage("m")
        .withLastTransitionTime(time)
        .build();
  }

  @Test
  void keepsTheTimeWhileTheStatusIsUnchanged() {
    var merged =
        StatusMerger.merge(
            status(cond("Ready", "True", "2026-01-01T00:00:00Z")),
            status(cond("Ready", "True", null)),
            NOW);
    assertThat(merged.getConditions().get(0).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");
  }

  @Test
  void stampsNowOnAChangeOrANewCondition() {
    var merged =
        StatusMerger.merge(
            status(cond("Ready", "True", "2026-01-01T00:00:00Z")),
            status(cond("Ready", "False", null), cond("Available", "True", null)),
            NOW);
    assertThat(merged.getConditions())
        .extracting(Condition::getLastTransitionTime)
        .containsExactly("2026-11-29T12:00:00Z", "2026-11-29T12:00:00Z");
  }

  @Test
  void replacesATimeSomeoneWroteByHand() {
    var merged =
        StatusMerger.merge(
            status(cond("Ready", "True", "yesterday")), status(cond("Ready", "True", null)), NOW);
    assertThat(merged.getConditions().get(0).getLastTransitionTime())
        .isEqualTo("2026-11-29T12:00:00Z");
  }

  @Test
  void noPreviousStatus() {
    var merged = StatusMerger.merge(null, status(cond("Ready", "False", null)), NOW);
    assertThat(merged.getConditions().get(0).getLastTransitionTime())
        .isEqualTo("2026-11-29T12:00:00Z");
  }
}
