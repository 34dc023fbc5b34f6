package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.stream.IntStream;

/**
 * Membership with quorum held: one change at a time, never one that would leave the rest without
 * quorum ({@link Quorum}). Members that lost their data go before scaling, because they are members
 * only in name; scaling goes before a roll, because a roll restarts members that scaling would add
 * or remove anyway.
 */
final class MembershipRules {
  private MembershipRules() {}

  /** Quorum held and not scaled to 0: the rules that change membership apply. */
  static boolean withQuorum(Situation s) {
    return s.facts().quorum && !s.hibernating();
  }

  /** Members of our ordinals, in ordinal order. */
  static List<Member> ours(Situation s) {
    return s.facts().members.stream().filter(m -> m.ordinal() >= 0).toList();
  }

  /**
   * Scaled to 0 with quorum still held: the StatefulSet goes to 0 and stops every member; the
   * member list and the claims stay, so that the same members come back. First among the quorum
   * rules: while stopping, no membership change makes sense.
   */
  static final class Hibernate implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return s.facts().quorum && s.hibernating()
          ? Optional.of(Decisions.hibernating(s))
          : Optional.empty();
    }
  }

  /**
   * A member whose pod runs without its data (its last termination shows raft's panic over a lost
   * log, or a refusal to bootstrap again): remove it, if the rest keep quorum; it comes back as a
   * new learner with empty data, through ScaleUp.
   */
  static final class ReplaceLostMember implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (!withQuorum(s)) {
        return Optional.empty();
      }
      Facts f = s.facts();
      for (Member m : ours(s)) {
        if (f.lostData(m).isPresent()) {
          Step step =
              Quorum.canRemove(f.voters().size(), f.healthyVoters().size(), m.learner(), false)
                  ? new Step.RemoveMember(
                      m.ordinal(),
                      m.name(),
                      m.id(),
                      "its pod runs without its data; it comes back as a new member")
                  : new Step.Wait(
                      "removing "
                          + m.name()
                          + ", which lost its data, would leave the cluster without quorum");
          return Optional.of(Decisions.withQuorum(s, Conditions.MEMBERS_UNREACHABLE, step));
        }
      }
      return Optional.empty();
    }
  }

  /**
   * More members than wanted: remove the highest ordinal, moving leadership off it first, and only
   * if the rest keep quorum. The StatefulSet shrinks once the member is gone.
   */
  static final class ScaleDown implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      List<Member> ours = ours(s);
      if (!withQuorum(s) || ours.size() <= s.desired().replicas()) {
        return Optional.empty();
      }
      return Optional.of(
          Decisions.withQuorum(s, Conditions.SCALING_DOWN, remove(s, ours.get(ours.size() - 1))));
    }

    private static Step remove(Situation s, Member target) {
      Facts f = s.facts();
      if (target.id() == f.leaderId) {
        return moveLeaderOff(s, target)
            .orElse(new Step.Wait("a caught-up voter to take leadership from " + target.name()));
      }
      boolean ok =
          Quorum.canRemove(
              f.voters().size(), f.healthyVoters().size(), target.learner(), f.healthy(target));
      return ok
          ? new Step.RemoveMember(
              target.ordinal(),
              target.name(),
              target.id(),
              "scaling down to " + s.desired().replicas())
          : new Step.Wait(
              "removing " + target.name() + " now would leave the cluster without quorum");
    }
  }

  /**
   * Fewer members than wanted: add the lowest free ordinal as a learner. A claim left there by a
   * former member holds data etcd would refuse (or worse, take for the new member's): when no pod
   * uses it, it goes first, so the new member's pod starts on a fresh one; when a pod still runs on
   * it (a member replaced in place), the learner is added first and StartLearner clears the claim.
   */
  static final class ScaleUp implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (!withQuorum(s) || ours(s).size() >= s.desired().replicas()) {
        return Optional.empty();
      }
      return Optional.of(Decisions.withQuorum(s, Conditions.SCALING_UP, add(s)));
    }

    private static Step add(Situation s) {
      Facts f = s.facts();
      int ordinal =
          IntStream.iterate(0, i -> i + 1)
              .filter(i -> f.memberAt(i).isEmpty())
              .findFirst()
              .orElseThrow();
      Optional<ClaimView> claim = Optional.ofNullable(f.view.claims().get(ordinal));
      if (upOnForeignData(s, ordinal)) {
        return new Step.Wait(
            "pod "
                + s.pod(ordinal)
                + " runs etcd for a member that is not in the cluster and shows no sign of lost"
                + " data: it may hold the only copy of some data, so the operator neither adds a"
                + " member there nor deletes its claim");
      }
      if (s.desired().persistentStorage()
          && claim.isPresent()
          && claim.get().memberId() != 0
          && f.view.pod(ordinal).isEmpty()) {
        return claim.get().terminating()
            ? new Step.Wait("claim " + claim.get().name() + " to be deleted")
            : new Step.DeleteClaim(
                ordinal,
                claim.get().name(),
                "it holds the data of a former member "
                    + Names.member(s.name(), ordinal)
                    + "; a new member starts empty");
      }
      return new Step.AddLearner(
          ordinal,
          Names.member(s.name(), ordinal),
          Names.peerUrl(s.namespace(), s.name(), ordinal, s.peerScheme()));
    }
  }

  /**
   * A claim the spec lets go: whenScaled Delete, and the claim is of an ordinal the cluster no
   * longer has (its member removed from etcd on a scale-down, its pod gone with the StatefulSet's
   * shrink). Only the operator deletes it, and only then: the StatefulSet's own policy is always
   * Retain, so that neither hibernation nor a rebuild takes data with it. After the scale-up rule,
   * which clears a former member's claim of an ordinal it adds back.
   */
  static final class DeleteScaledDownClaim implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      // Hibernation (replicas 0) removes no member: every claim stays.
      if (!withQuorum(s) || !s.desired().claims().onScaleDown() || s.desired().replicas() == 0) {
        return Optional.empty();
      }
      Facts f = s.facts();
      return f.view.claims().values().stream()
          .filter(c -> c.ordinal() >= s.desired().replicas() && !c.terminating())
          .filter(c -> f.memberAt(c.ordinal()).isEmpty() && f.view.pod(c.ordinal()).isEmpty())
          .findFirst()
          .map(
              c ->
                  Decisions.withQuorum(
                      s,
                      Conditions.SCALING_DOWN,
                      new Step.DeleteClaim(
                          c.ordinal(),
                          c.name(),
                          "its member was removed in a scale-down and"
                              + " spec.storage.persistentVolumeClaimRetentionPolicy.whenScaled is"
                              + " Delete")));
    }
  }

  /**
   * Every member as wanted and no pod to roll: Ready, or, not Ready, an alarm etcd raised or the
   * members that are unhealthy (nothing is done about them: a member that is down comes back with
   * its pod). Last of the quorum rules: it is what is left when nothing needs changing.
   */
  static final class InSync implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (!withQuorum(s)) {
        return Optional.empty();
      }
      Facts f = s.facts();
      if (!f.alarms().isEmpty()) {
        return Optional.of(Decisions.withQuorum(s, Conditions.ALARM, new Step.None()));
      }
      if (!ours(s).stream().allMatch(f::healthy)) {
        return Optional.of(
            Decisions.withQuorum(s, Conditions.MEMBERS_UNREACHABLE, new Step.None()));
      }
      return Optional.of(Decisions.ready(s));
    }
  }

  /** Move leadership to the lowest-ordinal caught-up voter, preferring one on the new template. */
  static Optional<Step> moveLeaderOff(Situation s, Member leader) {
    Facts f = s.facts();
    SortedSet<Integer> stale = f.stalePods(s.desired().podTemplateHash());
    return f.voters().stream()
        .filter(m -> m.id() != leader.id() && f.caughtUp(m))
        .min(
            Comparator.comparing((Member m) -> stale.contains(m.ordinal()))
                .thenComparing(Member::ordinal))
        .map(
            to ->
                new Step.MoveLeader(
                    leader.name(),
                    leader.id(),
                    leader.ordinal(),
                    to.name(),
                    to.id(),
                    to.ordinal()));
  }

  /**
   * A pod that runs etcd on data that belongs to no member of this cluster, without the signs of a
   * member that lost its data: a survivor of another incarnation, say. Its claim is never deleted
   * while it runs.
   */
  static boolean upOnForeignData(Situation s, int ordinal) {
    Facts f = s.facts();
    return f.view
        .pod(ordinal)
        .map(p -> !p.terminating() && p.running() && !f.lostDataAt(ordinal))
        .orElse(false);
  }
}
