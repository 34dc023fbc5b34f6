package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.plan.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Says louder when quorum has been lost for longer than a deadline: {@code Degraded} takes the
 * reason {@value #PERSISTING} and a message saying for how long, which also raises a Warning Event.
 * Nothing else changes: the operator still destroys nothing and waits. The time quorum was lost is
 * the transition time of {@code Available}, which is only a report; no decision depends on it.
 */
final class Escalation {
  static final String PERSISTING = "QuorumLostPersisting";

  private Escalation() {}

  static EtcdClusterStatus apply(EtcdClusterStatus status, Instant now, Duration deadline) {
    Optional<Condition> available = Transitions.condition(status, Conditions.AVAILABLE);
    Optional<Condition> degraded = Transitions.condition(status, Conditions.DEGRADED);
    if (available.isEmpty()
        || degraded.isEmpty()
        || !"False".equals(available.get().getStatus())
        || !Conditions.QUORUM_LOST.equals(available.get().getReason())) {
      return status;
    }
    Instant since;
    try {
      since = Instant.parse(available.get().getLastTransitionTime());
    } catch (DateTimeParseException | NullPointerException e) {
      return status;
    }
    Duration lost = Duration.between(since, now);
    if (lost.compareTo(deadline) < 0) {
      return status;
    }
    Condition d = degraded.get();
    d.setReason(PERSISTING);
    d.setMessage(
        "quorum lost for more than "
            + human(deadline)
            + " (since "
            + since
            + "); the operator still removes and deletes nothing. Bring the missing members back,"
            + " or see the rebuild opt-in in the documentation. "
            + available.get().getMessage());
    return status;
  }

  /** "5 minutes", "1 minute", "30 seconds", "90 seconds". */
  static String human(Duration d) {
    long seconds = d.toSeconds();
    if (seconds % 60 == 0 && seconds > 0) {
      long minutes = seconds / 60;
      return minutes + (minutes == 1 ? " minute" : " minutes");
    }
    return seconds + (seconds == 1 ? " second" : " seconds");
  }
}
