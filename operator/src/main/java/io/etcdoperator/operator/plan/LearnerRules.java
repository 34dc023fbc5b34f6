package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.EtcdSigns;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.List;
import java.util.Optional;

/**
 * A learner in the member list, with quorum held. Learners come before every other membership rule:
 * etcd allows one learner at a time, and a learner is a change already half made, which is finished
 * (or undone) before the next one starts. They report {@code ScalingUp}.
 */
final class LearnerRules {
  private LearnerRules() {}

  /** The first learner. */
  private static Optional<Member> learner(Situation s) {
    return s.facts().learners().stream().findFirst();
  }

  private static Decision scalingUp(Situation s, Step step) {
    return Decisions.withQuorum(s, Conditions.SCALING_UP, step);
  }

  /**
   * A learner the spec no longer wants (scaled back before it was promoted, or a member of no
   * ordinal of ours): remove it. A learner does not vote, so removing it never costs quorum.
   */
  static final class UnwantedLearner implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return learner(s)
          .filter(l -> l.ordinal() < 0 || l.ordinal() >= s.desired().replicas())
          .map(
              l ->
                  scalingUp(
                      s,
                      new Step.RemoveMember(
                          l.ordinal(), l.name(), l.id(), "the spec no longer wants this member")));
    }
  }

  /**
   * A learner whose pod has not started it yet. Its pod must start on data of its own, not on a
   * claim or an emptyDir a former member of that ordinal left behind; a pod that ran before the
   * member existed and waits out a crash back-off is replaced, so that it joins at once.
   */
  static final class StartLearner implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return learner(s).filter(l -> !l.etcd().started()).map(l -> scalingUp(s, start(s, l)));
    }

    private static Step start(Situation s, Member learner) {
      Facts f = s.facts();
      int ordinal = learner.ordinal();
      String pod = s.pod(ordinal);
      Optional<ClaimView> claim = Optional.ofNullable(f.view().claims().get(ordinal));
      Optional<PodView> podView = f.view().pod(ordinal);
      boolean podLive = podView.isPresent() && !podView.get().terminating();
      if (s.desired().persistentStorage()
          && claim.isPresent()
          && claim.get().memberId() != 0
          && claim.get().memberId() != learner.id()) {
        if (MembershipRules.upOnForeignData(s, ordinal)) {
          return new Step.Wait(
              "pod "
                  + pod
                  + " runs on the claim of a former member and shows no sign of lost data;"
                  + " the operator will not delete that claim while it runs");
        }
        if (!claim.get().terminating()) {
          return new Step.DeleteClaim(
              ordinal,
              claim.get().name(),
              "it holds the data of a former member " + learner.name());
        }
        if (podLive) {
          return new Step.DeletePods(List.of(pod), "it still uses the claim of a former member");
        }
        return new Step.Wait("claim " + claim.get().name() + " to be deleted");
      }
      if (podLive && !podView.get().running() && startedBeforeItWasAdded(podView.get())) {
        // After a rebuild from a survivor of a higher ordinal the StatefulSet runs every lower
        // ordinal at once; such a pod waits out a crash back-off (up to 5 minutes on Kubernetes).
        return new Step.DeletePods(
            List.of(pod),
            "it started before "
                + learner.name()
                + " was added and waits out a crash back-off; a new pod joins at once");
      }
      if (!s.desired().persistentStorage()
          && podLive
          && !podView.get().running()
          && podView.get().restartCount() > 0) {
        return new Step.DeletePods(
            List.of(pod),
            "its emptyDir still holds a former member's data; a new pod starts empty");
      }
      return new Step.Wait("learner " + learner.name() + " to start");
    }

    /** etcd's last words when its name is not in the initial cluster it was started with. */
    private static boolean startedBeforeItWasAdded(PodView pod) {
      return pod.lastTermination() != null
          && pod.lastTermination().contains(EtcdSigns.NOT_IN_INITIAL_CLUSTER);
    }
  }

  /**
   * A started learner: promote it once it is healthy and the voters, with it, make a quorum. etcd
   * refuses while it lags; the executor takes that as "not yet".
   */
  static final class PromoteLearner implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return learner(s).map(l -> scalingUp(s, promote(s.facts(), l)));
    }

    private static Step promote(Facts f, Member learner) {
      if (!f.healthy(learner)) {
        return new Step.Wait("learner " + learner.name() + " to become healthy");
      }
      if (!Quorum.canPromote(f.voters().size(), f.healthyVoters().size(), true)) {
        return new Step.Wait("enough healthy voters to promote " + learner.name());
      }
      return new Step.PromoteLearner(learner.ordinal(), learner.name(), learner.id());
    }
  }
}
