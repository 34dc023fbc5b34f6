package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * Scaling with quorum held: down from the highest ordinal, leadership moved off first and only if
 * the rest keep quorum; up through a learner of the lowest free ordinal; and the claims a
 * scale-down lets go. Scaling goes after members that lost their data (they are members only in
 * name) and before a roll (which would restart members that scaling adds or removes anyway).
 */
final class ScaleRules {
  private ScaleRules() {}

  /**
   * More members than wanted: remove the highest ordinal, moving leadership off it first, and only
   * if the rest keep quorum. The StatefulSet shrinks once the member is gone.
   */
  static final class ScaleDown implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      List<Member> ours = MembershipRules.ours(s);
      if (ours.size() <= s.desired().replicas()) {
        return Optional.empty();
      }
      return Optional.of(
          Decisions.withQuorum(s, Conditions.SCALING_DOWN, remove(s, ours.get(ours.size() - 1))));
    }

    private static Step remove(Situation s, Member target) {
      Facts f = s.facts();
      if (target.id() == f.leaderId()) {
        return MembershipRules.moveLeaderOff(s, target)
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
      if (MembershipRules.ours(s).size() >= s.desired().replicas()) {
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
      Optional<ClaimView> claim = Optional.ofNullable(f.view().claims().get(ordinal));
      if (MembershipRules.upOnForeignData(s, ordinal)) {
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
          && f.view().pod(ordinal).isEmpty()) {
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
      if (!s.desired().claims().onScaleDown() || s.desired().replicas() == 0) {
        return Optional.empty();
      }
      Facts f = s.facts();
      return f.view().claims().values().stream()
          .filter(c -> c.ordinal() >= s.desired().replicas() && !c.terminating())
          .filter(c -> f.memberAt(c.ordinal()).isEmpty() && f.view().pod(c.ordinal()).isEmpty())
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
}
