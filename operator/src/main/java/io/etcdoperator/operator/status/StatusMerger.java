package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Gives a freshly computed status the times only a comparison with the previous one can tell:
 *
 * <ul>
 *   <li>each condition's {@code lastTransitionTime}: kept from the previous status while the
 *       condition's status is unchanged, now when it changed or was never reported (or when the
 *       previous time is not a time: someone edited the status by hand);
 *   <li>each member's {@code unhealthySince}: none while it is healthy; now when it was healthy in
 *       the previous status and is not any more; else kept from the previous status for the same
 *       member (same name, and the same ID when both are known: a member replaced under its name is
 *       a new member). So a member that has not been healthy since it was listed has none, and a
 *       member out of the operator's sight (health unknown) keeps the time it had.
 * </ul>
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
    if (computed.getMembers() != null) {
      for (MemberStatus m : computed.getMembers()) {
        m.setUnhealthySince(unhealthySince(same(previous, m), m, nowText));
      }
    }
    return computed;
  }

  private static String unhealthySince(Optional<MemberStatus> old, MemberStatus m, String now) {
    if (Boolean.TRUE.equals(m.getHealthy())) {
      return null;
    }
    if (old.isEmpty()) {
      return null;
    }
    if (Boolean.TRUE.equals(old.get().getHealthy())) {
      return now;
    }
    return Optional.ofNullable(old.get().getUnhealthySince())
        .filter(StatusMerger::isTime)
        .orElse(null);
  }

  /** The previous status's entry for the same member as {@code m}. */
  private static Optional<MemberStatus> same(EtcdClusterStatus previous, MemberStatus m) {
    if (previous == null || previous.getMembers() == null || m.getName() == null) {
      return Optional.empty();
    }
    return previous.getMembers().stream()
        .filter(o -> m.getName().equals(o.getName()))
        .filter(o -> o.getId() == null || m.getId() == null || o.getId().equals(m.getId()))
        .findFirst();
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
