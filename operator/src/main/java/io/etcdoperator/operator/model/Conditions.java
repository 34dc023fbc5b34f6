package io.etcdoperator.operator.model;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** Conditions as the operator writes them on its backups' and schedules' statuses. */
public final class Conditions {
  private Conditions() {}

  /**
   * The condition {@code type} at {@code status}; its {@code lastTransitionTime} is kept from the
   * condition of the same type and status in {@code previous}, else it is {@code now} (to the
   * second): the time says when the condition last changed, not when it was last written.
   */
  public static Condition keepingSince(
      List<Condition> previous,
      Instant now,
      String type,
      boolean status,
      String reason,
      String message) {
    String value = status ? "True" : "False";
    String since =
        previous.stream()
            .filter(c -> type.equals(c.getType()) && value.equals(c.getStatus()))
            .map(Condition::getLastTransitionTime)
            .findFirst()
            .orElse(now.truncatedTo(ChronoUnit.SECONDS).toString());
    return new ConditionBuilder()
        .withType(type)
        .withStatus(value)
        .withReason(reason)
        .withMessage(message)
        .withLastTransitionTime(since)
        .build();
  }
}
