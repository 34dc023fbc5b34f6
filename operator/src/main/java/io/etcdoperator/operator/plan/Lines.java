package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import io.etcdoperator.operator.plan.Report.Line;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The conditions' texts that decisions share: Available as the quorum stands, Degraded naming the
 * members that are unhealthy or run without being members, and the message of a lost quorum naming
 * who is missing and why.
 */
final class Lines {
  private Lines() {}

  /**
   * Quorum as the members that answer see it; Unknown when none answers while some pod is Ready
   * (the operator cannot see them, which says nothing about their quorum: with an unusable client
   * certificate, or a spec whose scheme the members do not serve).
   */
  static Line availableOrUnknown(Situation s, String reason, String message) {
    boolean anyAnswers = s.view().probes().values().stream().anyMatch(MemberProbe::reachable);
    boolean anyReady = s.view().pods().values().stream().anyMatch(PodView::ready);
    return !s.facts().quorum() && !anyAnswers && anyReady
        ? Line.unknown(reason, message)
        : available(s, reason, message);
  }

  static Line available(Situation s, String fallbackReason, String fallbackMessage) {
    Facts f = s.facts();
    if (f.quorum()) {
      String leader = f.leaderMember().map(Member::name).orElse("?");
      return new Line(
          true,
          Conditions.QUORUM_HELD,
          f.healthyVoters().size()
              + " of "
              + f.voters().size()
              + " voters healthy; leader "
              + leader);
    }
    if (f.existed()) {
      return new Line(false, Conditions.QUORUM_LOST, quorumLostMessage(s));
    }
    return new Line(false, fallbackReason, fallbackMessage);
  }

  static Line degraded(Situation s, String healthyReason) {
    Facts f = s.facts();
    List<String> unhealthy =
        f.members().stream()
            .filter(m -> !f.healthy(m))
            .map(m -> m.name() + ": " + f.whyUnhealthy(m))
            .toList();
    if (!unhealthy.isEmpty()) {
      return new Line(true, Conditions.MEMBERS_UNREACHABLE, String.join("; ", unhealthy));
    }
    List<String> strays = straysRunning(f);
    if (!strays.isEmpty()) {
      return new Line(
          true,
          Conditions.POD_NOT_A_MEMBER,
          String.join(", ", strays)
              + (strays.size() > 1 ? " run" : " runs")
              + " etcd but the cluster has no such member; it may hold the data of another"
              + " cluster, so the operator deletes nothing of it");
    }
    return new Line(false, healthyReason, "no member is unhealthy");
  }

  /** Running member pods whose ordinal is not in the member list (once a list is known). */
  private static List<String> straysRunning(Facts f) {
    if (f.members().isEmpty()) {
      return List.of();
    }
    Set<Integer> listed = new TreeSet<>();
    f.members().forEach(m -> listed.add(m.ordinal()));
    return f.view().pods().values().stream()
        .filter(p -> p.running() && !p.terminating() && !listed.contains(p.ordinal()))
        .map(PodView::name)
        .toList();
  }

  static String quorumLostMessage(Situation s) {
    Facts f = s.facts();
    int voters = f.voters().size();
    List<String> missing = new ArrayList<>();
    if (!f.members().isEmpty()) {
      f.voters().stream()
          .filter(m -> !f.healthy(m))
          .forEach(m -> missing.add(m.name() + " (" + f.whyUnhealthy(m) + ")"));
      return "quorum lost: "
          + f.healthyVoters().size()
          + " of "
          + voters
          + " voters healthy, "
          + Quorum.of(voters)
          + " needed; missing: "
          + String.join(", ", missing);
    }
    Set<Integer> known = f.knownOrdinals();
    for (int i : known) {
      Optional<MemberProbe> p = f.view().probe(i);
      String why =
          f.view().pod(i).isEmpty()
              ? "no pod"
              : p.map(x -> x.reachable() ? "sees no leader" : x.error()).orElse("not probed");
      missing.add(Names.member(s.name(), i) + " (" + why + ")");
    }
    return "quorum lost: no member of "
        + known.size()
        + " answers with a leader; missing: "
        + String.join(", ", missing);
  }

  static String unreachableSuffix(Situation s) {
    List<String> down =
        s.view().probes().values().stream()
            .filter(p -> !p.reachable())
            .map(p -> s.pod(p.ordinal()) + ": " + p.error())
            .toList();
    return down.isEmpty() ? "" : "; not answering: " + String.join(", ", down);
  }
}
