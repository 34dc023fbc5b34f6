package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {
  static final Instant NOW = Instant.parse("2026-12-06T22:10:05.123Z");
  static final List<Condition> BEFORE =
      List.of(
          new ConditionBuilder()
              .withType("Started")
              .withStatus("True")
              .withReason("AgentCreated")
              .withMessage("m")
              .withLastTransitionTime("2026-12-06T21:00:00Z")
              .build());

  @Test
  void theSameStatusKeepsItsTime() {
    Condition c = Conditions.keepingSince(BEFORE, NOW, "Started", true, "AgentRunning", "n");
    assertThat(c.getLastTransitionTime()).isEqualTo("2026-12-06T21:00:00Z");
    assertThat(c.getReason()).isEqualTo("AgentRunning");
    assertThat(c.getMessage()).isEqualTo("n");
  }

  @Test
  void anotherStatusOrANewTypeStartsNowToTheSecond() {
    assertThat(
            Conditions.keepingSince(BEFORE, NOW, "Started", false, "r", "m")
                .getLastTransitionTime())
        .isEqualTo("2026-12-06T22:10:05Z");
    assertThat(
            Conditions.keepingSince(BEFORE, NOW, "Complete", true, "r", "m")
                .getLastTransitionTime())
        .isEqualTo("2026-12-06T22:10:05Z");
  }
}
