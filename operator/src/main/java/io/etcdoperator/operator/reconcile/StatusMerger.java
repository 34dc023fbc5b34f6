package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Gives each condition of a freshly computed status its {@code lastTransitionTime}: kept from the
 * previous status while the condition's status is unchanged, now when it changed or was never
 * reported (or when the previous time is not a time: someone edited the status by hand).
 */
public final class StatusMerger {
  private StatusMerger() {}

  public static EtcdClusterStatus merge(
      EtcdClusterStatus previous, EtcdClusterStatus computed, Instant now) {
    String nowText = now.truncatedTo(ChronoUnit.SECONDS).toString();
    List<Condition> before =
        previous == null || previous.getConditions() == null ? List.of() : previous.getConditions();
    for (Condition c : computed.getConditions()) {
      Optional<Condition> old =
          before.stream().filter(o -> c.getType().equals(o.getType())).findFirst();
      c.setLastTransitionTime(
          old.filter(o -> c.getStatus().equals(o.getStatus()))
              .map(Condition::getLastTransitionTime)
              .filter(StatusMerger::isTime)
              .orElse(nowText));
    }
    return computed;
  }

  private static boolean isTime(String text) {
    try {
      Instant.parse(text);
      return true;
    } catch (DateTimeParseException | NullPointerException e) {
      return false;
    }
  }
}
