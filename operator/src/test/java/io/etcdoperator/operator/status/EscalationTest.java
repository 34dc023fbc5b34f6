package io.etcdoperator.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EscalationTest {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  static EtcdClusterStatus status(String available, String reason, String since) {
    EtcdClusterStatus s = new EtcdClusterStatus();
    s.setConditions(
        new ArrayList<>(
            List.of(
                new ConditionBuilder()
                    .withType("Available")
                    .withStatus(available)
                    .withReason(reason)
                    .withMessage("quorum lost: 1 of 3")
                    .withLastTransitionTime(since)
                    .build(),
                new ConditionBuilder()
                    .withType("Degraded")
                    .withStatus("True")
                    .withReason(reason)
                    .withMessage("m")
                    .withLastTransitionTime(since)
                    .build())));
    return s;
  }

  static Condition degraded(EtcdClusterStatus s) {
    return s.getConditions().get(1);
  }

  @Test
  void quietBeforeTheDeadline() {
    var s =
        Escalation.apply(
            status("False", "QuorumLost", "2026-11-29T11:58:00Z"), NOW, Duration.ofMinutes(5));
    assertThat(degraded(s).getReason()).isEqualTo("QuorumLost");
  }

  @Test
  void louderAfterTheDeadline() {
    var s =
        Escalation.apply(
            status("False", "QuorumLost", "2026-11-29T11:50:00Z"), NOW, Duration.ofMinutes(5));
    assertThat(degraded(s).getReason()).isEqualTo("QuorumLostPersisting");
    assertThat(degraded(s).getMessage())
        .startsWith(
            "quorum lost for more than 5 minutes (since 2026-11-29T11:50:00Z); the operator still removes and deletes nothing")
        .endsWith("quorum lost: 1 of 3");
  }

  @Test
  void aShortDeadlineIsSaidInSeconds() {
    var s =
        Escalation.apply(
            status("False", "QuorumLost", "2026-11-29T11:59:00Z"), NOW, Duration.ofSeconds(30));
    assertThat(degraded(s).getMessage()).startsWith("quorum lost for more than 30 seconds (since");
    assertThat(Escalation.human(Duration.ofMinutes(1))).isEqualTo("1 minute");
    assertThat(Escalation.human(Duration.ofSeconds(90))).isEqualTo("90 seconds");
  }

  @Test
  void onlyForQuorumLoss() {
    var s =
        Escalation.apply(
            status("False", "Bootstrapping", "2026-11-29T11:00:00Z"), NOW, Duration.ofMinutes(5));
    assertThat(degraded(s).getReason()).isEqualTo("Bootstrapping");
  }

  @Test
  void raisesOneWarningWhenItTurnsLouder() {
    var before = status("False", "QuorumLost", "2026-11-29T11:50:00Z");
    var after =
        Escalation.apply(
            status("False", "QuorumLost", "2026-11-29T11:50:00Z"), NOW, Duration.ofMinutes(5));
    assertThat(Transitions.between(before, after))
        .extracting(Transitions.Notice::reason)
        .containsExactly("QuorumLostPersisting");
    assertThat(Transitions.between(after, after)).isEmpty();
  }
}
