package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.plan.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The Events a change of status deserves: quorum lost and regained, bootstrap started and finished,
 * split brain, a majority's data lost, an invalid spec, members the operator cannot reach, a stuck
 * roll, hibernation and waking up, NOSPACE raised and recovered, a claim size refused, paused and
 * resumed, a member going unhealthy or coming back (not while hibernating: then members stop
 * because the user asked). Pure: compares two statuses; the reconciler calls it only for a status
 * it wrote, so that each transition is told once.
 */
public final class Transitions {
  private Transitions() {}

  /** One Event to emit. */
  public record Notice(boolean warning, String reason, String message) {}

  public static List<Notice> between(EtcdClusterStatus previous, EtcdClusterStatus next) {
    List<Notice> notices = new ArrayList<>();
    Optional<Condition> wasAvailable = condition(previous, Conditions.AVAILABLE);
    Condition available = condition(next, Conditions.AVAILABLE).orElseThrow();
    boolean isUp = "True".equals(available.getStatus());
    boolean wasUp = wasAvailable.map(c -> "True".equals(c.getStatus())).orElse(false);
    String wasReason = wasAvailable.map(Condition::getReason).orElse("");

    if (isUp && !wasUp) {
      notices.add(
          Conditions.BOOTSTRAPPING.equals(wasReason) || wasAvailable.isEmpty()
              ? new Notice(false, "BootstrapFinished", "cluster formed: " + available.getMessage())
              : Conditions.CANNOT_REACH_MEMBERS.equals(wasReason)
                  ? new Notice(
                      false,
                      "MembersReachable",
                      "the operator reaches the members again: " + available.getMessage())
                  : new Notice(false, "QuorumRegained", available.getMessage()));
    }
    if (!isUp && !wasReason.equals(available.getReason())) {
      switch (available.getReason()) {
        case Conditions.BOOTSTRAPPING ->
            notices.add(new Notice(false, "BootstrapStarted", available.getMessage()));
        case Conditions.QUORUM_LOST ->
            notices.add(
                Conditions.HIBERNATED.equals(wasReason)
                    ? new Notice(
                        false,
                        "WakingUp",
                        "starting the members again on their claims; " + available.getMessage())
                    : new Notice(true, "QuorumLost", available.getMessage()));
        case Conditions.SPLIT_BRAIN ->
            notices.add(new Notice(true, "SplitBrain", available.getMessage()));
        case Conditions.MAJORITY_DATA_LOST ->
            notices.add(new Notice(true, "MajorityDataLost", available.getMessage()));
        case Conditions.HIBERNATED ->
            notices.add(new Notice(false, "Hibernated", available.getMessage()));
        default -> {}
      }
    }
    entered(previous, next, Conditions.READY, Conditions.INVALID_SPEC)
        .ifPresent(c -> notices.add(new Notice(true, "InvalidSpec", c.getMessage())));
    entered(previous, next, Conditions.CERTIFICATES_READY, Conditions.CERTIFICATE_INVALID)
        .ifPresent(c -> notices.add(new Notice(true, "CertificateInvalid", c.getMessage())));
    // Its message counts down (days, then hours): one Event when it starts, not one per change.
    condition(next, Conditions.CERTIFICATES_READY)
        .filter(c -> Conditions.CERTIFICATE_EXPIRING.equals(c.getReason()))
        .filter(
            c ->
                !condition(previous, Conditions.CERTIFICATES_READY)
                    .map(b -> Conditions.CERTIFICATE_EXPIRING.equals(b.getReason()))
                    .orElse(false))
        .ifPresent(c -> notices.add(new Notice(true, "CertificateExpiring", c.getMessage())));
    entered(previous, next, Conditions.CERTIFICATES_READY, Conditions.CERTIFICATE_WARNING)
        .ifPresent(c -> notices.add(new Notice(true, "CertificateWarning", c.getMessage())));
    entered(previous, next, Conditions.READY, Conditions.CANNOT_REACH_MEMBERS)
        .ifPresent(c -> notices.add(new Notice(true, "CannotReachMembers", c.getMessage())));
    entered(previous, next, Conditions.DEGRADED, Conditions.ROLL_STUCK)
        .ifPresent(c -> notices.add(new Notice(true, "RollStuck", c.getMessage())));
    for (String refusal :
        List.of(Conditions.VOLUME_SHRINK_REFUSED, Conditions.VOLUME_EXPANSION_REFUSED)) {
      entered(previous, next, Conditions.READY, refusal)
          .ifPresent(c -> notices.add(new Notice(true, refusal, c.getMessage())));
    }
    // NOSPACE's message says each recovery step: one Event when it is raised, one when it is gone.
    boolean noSpace = hasReason(next, Conditions.DEGRADED, Conditions.NO_SPACE);
    boolean hadNoSpace = hasReason(previous, Conditions.DEGRADED, Conditions.NO_SPACE);
    if (noSpace && !hadNoSpace) {
      notices.add(
          new Notice(
              true, "NoSpace", condition(next, Conditions.DEGRADED).orElseThrow().getMessage()));
    } else if (hadNoSpace && !noSpace && isUp) {
      notices.add(
          new Notice(false, "SpaceRecovered", "etcd accepts writes again: NOSPACE is disarmed"));
    }
    boolean paused = hasStatus(next, Conditions.PAUSED, "True");
    boolean wasPaused = hasStatus(previous, Conditions.PAUSED, "True");
    if (paused && !wasPaused) {
      notices.add(
          new Notice(
              false, "Paused", condition(next, Conditions.PAUSED).orElseThrow().getMessage()));
    } else if (wasPaused && !paused && previous != null) {
      notices.add(
          new Notice(
              false,
              "Resumed",
              "the annotation " + Names.PAUSED_ANNOTATION + " is gone: the operator acts again"));
    }
    if (condition(next, Conditions.DEGRADED)
            .map(c -> Escalation.PERSISTING.equals(c.getReason()))
            .orElse(false)
        && !condition(previous, Conditions.DEGRADED)
            .map(c -> Escalation.PERSISTING.equals(c.getReason()))
            .orElse(false)) {
      notices.add(
          new Notice(
              true,
              Escalation.PERSISTING,
              condition(next, Conditions.DEGRADED).orElseThrow().getMessage()));
    }
    if (next.getLastRebuild() != null
        && (previous == null || !next.getLastRebuild().equals(previous.getLastRebuild()))) {
      notices.add(
          new Notice(
              true,
              "Rebuilt",
              "rebuilt from "
                  + next.getLastRebuild().getSurvivor()
                  + " at revision "
                  + next.getLastRebuild().getRevision()
                  + "; whatever the other members held beyond it is gone"));
    }
    members(previous, next, wasUp, notices);
    nodes(previous, next, notices);
    return notices;
  }

  /**
   * A member's node lost and back, and members that newly share a node (losing it loses them all).
   * Told once per change.
   */
  private static void nodes(
      EtcdClusterStatus previous, EtcdClusterStatus next, List<Notice> notices) {
    Map<String, MemberStatus> before = byName(previous);
    for (MemberStatus m : next.getMembers() == null ? List.<MemberStatus>of() : next.getMembers()) {
      MemberStatus old = m.getName() == null ? null : before.get(m.getName());
      boolean lost = m.getNodeUnreachableSince() != null;
      boolean wasLost = old != null && old.getNodeUnreachableSince() != null;
      if (lost && !wasLost) {
        notices.add(new Notice(true, "MemberNodeUnreachable", m.getName() + ": " + m.getMessage()));
      } else if (!lost && wasLost && Objects.equals(old.getId(), m.getId())) {
        // Only for the same member: a member replaced on another node is told by its own steps.
        notices.add(
            new Notice(
                false,
                "MemberNodeBack",
                m.getName()
                    + (old.getNode() != null
                        ? ": node " + old.getNode() + " is reachable again"
                        : ": the node of its volume is back (Ready and schedulable)")));
      }
    }
    Map<String, List<String>> now = sharing(next);
    Map<String, List<String>> then = previous == null ? Map.of() : sharing(previous);
    now.forEach(
        (node, names) -> {
          if (!names.equals(then.get(node))) {
            notices.add(
                new Notice(
                    true,
                    "MembersShareNode",
                    String.join(", ", names)
                        + " run on node "
                        + node
                        + ": losing it loses them all (the default anti-affinity only prefers"
                        + " one member per node; add nodes, or require it in spec.podTemplate)"));
          }
        });
  }

  /** The status's members by name (none for no status). */
  private static Map<String, MemberStatus> byName(EtcdClusterStatus status) {
    return status == null || status.getMembers() == null
        ? Map.of()
        : status.getMembers().stream()
            .filter(m -> m.getName() != null)
            .collect(Collectors.toMap(MemberStatus::getName, Function.identity(), (a, b) -> a));
  }

  /** Nodes that carry more than one member, with the members' names. */
  private static Map<String, List<String>> sharing(EtcdClusterStatus status) {
    Map<String, List<String>> byNode = new TreeMap<>();
    if (status.getMembers() != null) {
      for (MemberStatus m : status.getMembers()) {
        if (m.getNode() != null && m.getName() != null) {
          byNode.computeIfAbsent(m.getNode(), n -> new ArrayList<>()).add(m.getName());
        }
      }
    }
    byNode.values().removeIf(names -> names.size() < 2);
    byNode.values().forEach(Collections::sort);
    return byNode;
  }

  /**
   * A member going unhealthy, or healthy: not while the cluster was forming or without quorum
   * (BootstrapFinished and QuorumRegained say it for all of them), and in words that say what
   * happened: a member back (it was healthy before: {@code unhealthySince}), a member that joined,
   * a learner that started, a listed member healthy for the first time (a slow start at bootstrap).
   */
  private static void members(
      EtcdClusterStatus previous, EtcdClusterStatus next, boolean wasUp, List<Notice> notices) {
    if (previous == null || previous.getMembers() == null) {
      return;
    }
    // Hibernating: members stop because the user asked for it, not because something broke.
    boolean hibernating =
        condition(next, Conditions.READY)
            .map(c -> Conditions.HIBERNATED.equals(c.getReason()))
            .orElse(false);
    Map<String, MemberStatus> before = byName(previous);
    for (MemberStatus m : next.getMembers()) {
      MemberStatus old = m.getName() == null ? null : before.get(m.getName());
      if (old == null || Objects.equals(old.getHealthy(), m.getHealthy())) {
        continue;
      }
      if (old.getHealthy() == null || m.getHealthy() == null) {
        // Out of the operator's sight, or back in it: CannotReachMembers says so, once.
        continue;
      }
      if (old.getId() != null && m.getId() == null) {
        // No longer in the member list: it was removed (a scale-down, a member replaced), which
        // the removal's own Event says; its pod lingers until the StatefulSet shrinks.
        continue;
      }
      if (Boolean.TRUE.equals(old.getHealthy()) && !hibernating) {
        notices.add(new Notice(true, "MemberUnhealthy", m.getName() + ": " + m.getMessage()));
      } else if (Boolean.TRUE.equals(m.getHealthy()) && wasUp) {
        String what =
            old.getId() == null
                ? " joined the cluster and is healthy"
                : MemberStatus.LEARNER.equals(old.getRole())
                        && MemberStatus.LEARNER.equals(m.getRole())
                    ? " started as a learner and is healthy; it is promoted once it caught up"
                    : old.getUnhealthySince() != null
                        ? " is healthy again"
                        : " is healthy (for the first time since it was listed)";
        notices.add(new Notice(false, "MemberHealthy", m.getName() + what));
      }
    }
  }

  private static boolean hasReason(EtcdClusterStatus status, String type, String reason) {
    return condition(status, type).map(c -> reason.equals(c.getReason())).orElse(false);
  }

  private static boolean hasStatus(EtcdClusterStatus status, String type, String value) {
    return condition(status, type).map(c -> value.equals(c.getStatus())).orElse(false);
  }

  /** The condition, when it now has this reason and did not before (or had another message). */
  private static Optional<Condition> entered(
      EtcdClusterStatus previous, EtcdClusterStatus next, String type, String reason) {
    Optional<Condition> now = condition(next, type).filter(c -> reason.equals(c.getReason()));
    Optional<Condition> before =
        condition(previous, type).filter(c -> reason.equals(c.getReason()));
    return now.filter(
        c -> before.map(b -> !Objects.equals(b.getMessage(), c.getMessage())).orElse(true));
  }

  /** The condition of that type, if the status has one (none without a status). */
  static Optional<Condition> condition(EtcdClusterStatus status, String type) {
    if (status == null || status.getConditions() == null) {
      return Optional.empty();
    }
    return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }
}
