package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.EtcdVersion;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;

/**
 * The rolling restart of pods whose template changed, with quorum held. One pod at a time, in this
 * order: pods of members that are down anyway (they count for nothing now), then followers from the
 * highest ordinal, then the leader after moving leadership away. The next pod only when every
 * member is healthy and caught up again and its pod Ready: the client Service routes to Ready pods
 * only, and etcd calls a restarted member healthy seconds before its readiness probe passes (going
 * on then left the Service with no endpoint at all for about a second in a roll of 3, measured in
 * the sandbox). Never when the rest would lack quorum, except in a 1- or 2-member cluster, which
 * cannot tolerate a restart anyway (said in the status). All of them report {@code RollingUpdate},
 * and a restarted member not healthy within {@link Planner#ROLL_DEADLINE} makes the roll stuck.
 */
final class RollRules {
  private RollRules() {}

  /** Some pod runs another template than the desired one. */
  private static boolean pending(Situation s) {
    return !s.facts().stalePods(s.desired().podTemplateHash()).isEmpty();
  }

  /**
   * The members' stale pods. A pod above the last member's ordinal is a removed member's: the
   * StatefulSet deletes it.
   */
  private static SortedSet<Integer> membersStale(Situation s) {
    Facts f = s.facts();
    SortedSet<Integer> stale = f.stalePods(s.desired().podTemplateHash());
    int members = f.knownOrdinals().isEmpty() ? 0 : f.knownOrdinals().last() + 1;
    stale.removeIf(i -> i >= members);
    return stale;
  }

  /**
   * The members' stale pods, when the roll can go on: the StatefulSet carries the new template
   * (pods recreated now get it) and no pod is terminating.
   */
  private static Optional<SortedSet<Integer>> rollable(Situation s) {
    if (!pending(s) || !s.templateRolledOut()) {
      return Optional.empty();
    }
    SortedSet<Integer> stale = membersStale(s);
    boolean terminating = s.view().pods().values().stream().anyMatch(PodView::terminating);
    return stale.isEmpty() || terminating ? Optional.empty() : Optional.of(stale);
  }

  /**
   * Reported as RollingUpdate, or as MovingToTls or MovingOffTls while the roll is a step of that
   * move.
   */
  private static Decision rolling(Situation s, Step step) {
    String activity = !s.tlsMove().moving() ? Conditions.ROLLING_UPDATE : TlsMoves.activity(s);
    return Decisions.withQuorum(s, activity, step, stuck(s));
  }

  /**
   * A roll is due but cannot go on yet: the StatefulSet does not carry the new template (pods
   * recreated now would get the old one), only removed members' pods are stale, or a pod is still
   * terminating.
   */
  static final class RollGate implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (!pending(s) || rollable(s).isPresent()) {
        return Optional.empty();
      }
      Optional<PodView> terminating =
          s.templateRolledOut() && !membersStale(s).isEmpty()
              ? s.view().pods().values().stream().filter(PodView::terminating).findFirst()
              : Optional.empty();
      Step step =
          terminating.isPresent()
              ? new Step.Wait("pod " + terminating.get().name() + " to terminate")
              : new Step.None();
      return Optional.of(rolling(s, step));
    }
  }

  /** A stale pod of a member that is down anyway goes first: replacing it cannot cost quorum. */
  static final class RollDownMembers implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Facts f = s.facts();
      for (int i : rollable(s).orElse(Collections.emptySortedSet())) {
        Optional<Member> m = f.memberAt(i);
        if (m.isEmpty() || !f.healthy(m.get())) {
          boolean learner = m.map(Member::learner).orElse(true);
          if (Quorum.canRestart(f.voters().size(), f.healthyVoters().size(), learner, false)) {
            return Optional.of(
                rolling(s, new Step.DeletePods(List.of(s.pod(i)), "rolling update")));
          }
        }
      }
      return Optional.empty();
    }
  }

  /**
   * The next follower, from the highest ordinal, once every member is healthy, caught up and Ready;
   * waits for that otherwise. Only when the rest keep quorum, except in a 1- or 2-voter cluster.
   */
  static final class RollFollower implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<SortedSet<Integer>> stale = rollable(s);
      if (stale.isEmpty()) {
        return Optional.empty();
      }
      Facts f = s.facts();
      Optional<Member> behind = f.members().stream().filter(m -> !f.caughtUp(m)).findFirst();
      if (behind.isPresent()) {
        return Optional.of(
            rolling(s, new Step.Wait(behind.get().name() + " to be healthy and caught up")));
      }
      Optional<PodView> unready = f.unreadyMemberPod();
      if (unready.isPresent()) {
        return Optional.of(
            rolling(s, new Step.Wait("pod " + unready.get().name() + " to be Ready")));
      }
      return stale.get().stream()
          .sorted(Comparator.reverseOrder())
          .map(f::memberAt)
          .flatMap(Optional::stream)
          .filter(m -> m.id() != f.leaderId())
          .findFirst()
          .map(m -> rolling(s, restart(s, m)));
    }

    private static Step restart(Situation s, Member m) {
      Facts f = s.facts();
      int voters = f.voters().size();
      if (Quorum.canRestart(voters, f.healthyVoters().size(), m.learner(), true)) {
        return new Step.DeletePods(List.of(s.pod(m.ordinal())), "rolling update");
      }
      if (voters < 3) {
        return new Step.DeletePods(List.of(s.pod(m.ordinal())), withoutQuorumMeanwhile(voters, m));
      }
      return new Step.Wait(
          "restarting " + m.name() + " now would leave the cluster without quorum");
    }
  }

  /** The leader last: leadership moves to a caught-up voter first, then its pod restarts. */
  static final class RollLeader implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<SortedSet<Integer>> stale = rollable(s);
      if (stale.isEmpty()) {
        return Optional.empty();
      }
      Facts f = s.facts();
      Optional<Member> leader = f.leaderMember().filter(m -> stale.get().contains(m.ordinal()));
      if (leader.isEmpty()) {
        return Optional.of(rolling(s, new Step.None()));
      }
      Optional<Step> move = MembershipRules.moveLeaderOff(s, leader.get());
      if (move.isPresent()) {
        return Optional.of(rolling(s, move.get()));
      }
      int voters = f.voters().size();
      Step step =
          voters < 3
              ? new Step.DeletePods(
                  List.of(s.pod(leader.get().ordinal())),
                  withoutQuorumMeanwhile(voters, leader.get()))
              : new Step.Wait("a caught-up voter to take leadership from " + leader.get().name());
      return Optional.of(rolling(s, step));
    }
  }

  /**
   * Why a 1- or 2-voter cluster is rolled anyway, and what it costs: etcd allows the restart, and
   * no order of restarts keeps a quorum of 1 or 2 voters up.
   */
  private static String withoutQuorumMeanwhile(int voters, Member m) {
    return "rolling update; with "
        + voters
        + (voters == 1 ? " voter" : " voters")
        + " the cluster has no quorum while "
        + m.name()
        + " restarts and takes no writes until it is back";
  }

  /**
   * A restarted member that has not become healthy within the roll deadline: the roll stops there.
   * When the members do not all run the version the image names, it is an upgrade that stalled (the
   * new version crash-loops, say), and setting the image back recovers that member: its pod is then
   * stale again and down, and goes first.
   */
  private static Optional<Decisions.Stuck> stuck(Situation s) {
    Facts f = s.facts();
    SortedSet<Integer> stale = f.stalePods(s.desired().podTemplateHash());
    Optional<Member> stuck =
        f.members().stream()
            .filter(m -> !stale.contains(m.ordinal()) && !f.healthy(m))
            .filter(
                m ->
                    f.view()
                        .pod(m.ordinal())
                        .map(
                            p ->
                                p.createdAt() != null
                                    && p.createdAt()
                                        .plus(Planner.ROLL_DEADLINE)
                                        .isBefore(f.view().now()))
                        .orElse(false))
            .findFirst();
    if (stuck.isEmpty()) {
      return Optional.empty();
    }
    Member m = stuck.get();
    String after =
        " was restarted with the new template and is not healthy after "
            + Planner.ROLL_DEADLINE.toMinutes()
            + " minutes ("
            + f.whyUnhealthy(m)
            + ")";
    Optional<EtcdVersion> target = s.desired().etcdVersion();
    boolean upgrade =
        target.isPresent()
            && f.answeringVersions().stream().anyMatch(v -> !v.sameMinor(target.get()));
    if (upgrade) {
      return Optional.of(
          new Decisions.Stuck(
              Conditions.UPGRADE_STUCK,
              "upgrade to etcd "
                  + target.get()
                  + " stopped: "
                  + m.name()
                  + after
                  + "; no other member is restarted meanwhile. Set the image back to the version"
                  + " the other members run to recover it"));
    }
    return Optional.of(
        new Decisions.Stuck(
            Conditions.ROLL_STUCK,
            "rolling update stopped: "
                + m.name()
                + after
                + "; the other members keep running the old template"));
  }
}
