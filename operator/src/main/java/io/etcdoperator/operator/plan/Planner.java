package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.InitialMember;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.observe.StatefulSetView;
import io.etcdoperator.operator.plan.Facts.Member;
import io.etcdoperator.operator.plan.Plan.ClusterStateDecision;
import io.etcdoperator.operator.plan.Target.Desired;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Decides, from what the user asked for and what the operator saw, the next single step and the
 * status to report. A pure function: no client, no clock, no I/O; the same inputs always give the
 * same plan. It never reads the resource's status.
 *
 * <h2>The rules, evaluated top-down; the first that applies gives the plan</h2>
 *
 * <ol>
 *   <li><b>Invalid spec</b>: report it ({@code InvalidSpec}, every field and reason); touch
 *       nothing.
 *   <li><b>Split brain</b>: members answered with more than one cluster ID. Report it; touch
 *       nothing, not even the StatefulSet: any change could make it worse.
 *   <li><b>Storage kind changed</b> against the running StatefulSet: an invalid spec (it is
 *       immutable); touch nothing.
 *   <li><b>Quorum held</b> (a voter leads and a majority of voters follow it): the cluster exists.
 *       The cluster-state ConfigMap says {@code existing} with the current member list, so a pod
 *       that starts empty joins instead of bootstrapping. The StatefulSet covers every member's
 *       ordinal (0 when hibernating). Then one membership step, in this order:
 *       <ol>
 *         <li>a learner: remove it if the spec no longer wants its ordinal, promote it once it is
 *             healthy (etcd refuses while it lags: "not yet"); before it starts, clear a claim (or
 *             emptyDir) a former member of its ordinal left, so it starts on data of its own;
 *         <li>a member whose pod runs without its data (its termination message shows raft's panic
 *             over a lost log, or a refusal to bootstrap again): remove it, if the rest keep
 *             quorum; it comes back as a new learner with empty data, through the next rule;
 *         <li>scale down: from the highest ordinal; move leadership off it first; remove it only if
 *             the rest keep quorum ({@link Quorum#canRemove});
 *         <li>scale up: clear a claim left by an earlier member of that ordinal (its data belongs
 *             to no member, and etcd would refuse it), then add the next ordinal as a learner;
 *         <li>roll pods whose template changed: pods of unhealthy members first (they count for
 *             nothing now), then followers, the leader last after moving leadership away; one at a
 *             time, the next only when every member is healthy and caught up again and its pod
 *             Ready (the client Service routes to Ready pods only); never when the rest would lack
 *             quorum, except in a 1- or 2-member cluster, which cannot tolerate a restart anyway
 *             (said in the status).
 *       </ol>
 *       Every claim a healthy member runs on is marked with that member's ID, so that a claim left
 *       behind is known for what it is.
 *   <li><b>Quorum lost, cluster formed before</b> (the ConfigMap says {@code existing}): make sure
 *       every known member has its pod (never shrink the StatefulSet), replace stale pods of
 *       members that are down anyway, and wait. Report {@code QuorumLost} naming the missing
 *       members. Destroy nothing; change no membership.
 *   <li><b>Quorum lost, and a majority lost its data</b>: report it; rebuild from the most advanced
 *       survivor only when the user opted in for this cluster ({@link SurvivorRebuild}, which also
 *       carries a rebuild in progress through, ahead of every rule below rule 3).
 *   <li><b>Never formed</b>: bootstrap. ConfigMap {@code new} with every desired member,
 *       StatefulSet with every pod (Parallel). Pods running an old template are replaced all at
 *       once: without a quorum, no write was ever acknowledged, so nothing can be lost (seed 000's
 *       nginx case).
 * </ol>
 *
 * <p>Requeue: soon while anything is pending, less often when Ready.
 */
public final class Planner {
  /** How often to look when the cluster is Ready and nothing else wakes the operator. */
  public static final Duration READY_RESYNC = Duration.ofSeconds(2);

  /** How often to look while something is pending. */
  public static final Duration PENDING_RESYNC = Duration.ofMillis(500);

  /**
   * How often to look while members run but have not formed the cluster yet: they form in well
   * under a second, and nothing else (no pod event) says when.
   */
  public static final Duration FORMING_RESYNC = Duration.ofMillis(300);

  /** How long a restarted member may take to become healthy before the roll is reported stuck. */
  public static final Duration ROLL_DEADLINE = Duration.ofMinutes(5);

  /** etcd 3.4's exit message when its name is not in {@code --initial-cluster}. */
  static final String NOT_IN_INITIAL_CLUSTER = "in the initial cluster configuration";

  private Planner() {}

  public static Plan plan(Target target, ClusterView view) {
    Facts facts = Facts.of(target.namespace(), target.name(), view);
    StatusBuilder status = new StatusBuilder(target, facts);

    if (target.desired().isEmpty()) {
      return reportOnly(status.invalidSpec(target.problems()));
    }
    Desired desired = target.desired().get();
    if (facts.clusterIds.size() > 1) {
      return reportOnly(status.splitBrain());
    }
    Optional<String> recorded =
        view.clusterState().flatMap(s -> s.annotation(Names.CLUSTER_ID_ANNOTATION));
    if (recorded.isPresent()
        && facts.clusterId != 0
        && !recorded.get().equals(Hex.id(facts.clusterId))) {
      return reportOnly(status.anotherCluster(recorded.get()));
    }
    if (desired.replicas() == 0 && !desired.persistentStorage()) {
      return reportOnly(
          status.invalidSpec(
              List.of(
                  "spec.replicas: 0 with emptyDir storage would delete every member's data; only a"
                      + " cluster on a volumeClaimTemplate can hibernate")));
    }
    Optional<StatefulSetView> sts = view.statefulSet();
    if (sts.isPresent() && sts.get().persistentStorage() != desired.persistentStorage()) {
      return reportOnly(
          status.invalidSpec(
              List.of(
                  "spec.storage: the storage kind cannot change after creation (the cluster"
                      + " keeps its data in "
                      + (sts.get().persistentStorage() ? "volumeClaimTemplate" : "emptyDir")
                      + ")")));
    }
    Optional<Plan> rebuild = SurvivorRebuild.inProgress(target, desired, facts, status);
    if (rebuild.isPresent()) {
      return rebuild.get();
    }
    if (facts.quorum) {
      return new WithQuorum(target, desired, facts, status).plan();
    }
    if (view.clusterState().map(s -> s.existing()).orElse(false)) {
      return withoutQuorum(target, desired, facts, status);
    }
    return bootstrap(target, desired, facts, status);
  }

  private static Plan reportOnly(StatusBuilder.Report report) {
    return new Plan(
        false,
        Optional.empty(),
        OptionalInt.empty(),
        Map.of(),
        new Step.None(),
        report.status(),
        report.requeue());
  }

  private static Plan bootstrap(Target target, Desired desired, Facts facts, StatusBuilder status) {
    List<InitialMember> members =
        IntStream.range(0, desired.replicas())
            .mapToObj(
                i ->
                    new InitialMember(
                        Names.member(target.name(), i),
                        Names.peerUrl(target.namespace(), target.name(), i)))
            .toList();
    Step step = new Step.None();
    SortedSet<Integer> stale = facts.stalePods(desired.podTemplateHash());
    if (!stale.isEmpty() && templateRolledOut(facts.view, desired)) {
      step =
          new Step.DeletePods(
              podNames(target.name(), stale),
              "the cluster never formed: pods with an old template are replaced all at once");
    }
    StatusBuilder.Report report = status.bootstrapping(desired, step);
    return new Plan(
        true,
        Optional.of(new ClusterStateDecision(false, members)),
        OptionalInt.of(desired.replicas()),
        Map.of(),
        step,
        report.status(),
        report.requeue());
  }

  private static Plan withoutQuorum(
      Target target, Desired desired, Facts facts, StatusBuilder status) {
    SortedSet<Integer> known = facts.knownOrdinals();
    int current = facts.view.statefulSet().map(StatefulSetView::replicas).orElse(0);
    int replicas = Math.max(current, known.isEmpty() ? 0 : known.last() + 1);
    if (desired.replicas() == 0 && desired.persistentStorage()) {
      replicas = 0;
    }
    Optional<Plan> lost = SurvivorRebuild.majorityLost(target, desired, facts, status, replicas);
    if (lost.isPresent()) {
      return lost.get();
    }
    Step step = new Step.None();
    if (templateRolledOut(facts.view, desired)) {
      List<Integer> downAndStale =
          facts.stalePods(desired.podTemplateHash()).stream()
              .filter(i -> facts.memberAt(i).map(m -> !facts.healthy(m)).orElse(true))
              .toList();
      if (!downAndStale.isEmpty()) {
        step =
            new Step.DeletePods(
                podNames(facts.cluster, downAndStale),
                "their members are down and their template changed: replacing them cannot cost"
                    + " quorum");
      }
    }
    StatusBuilder.Report report = status.quorumLost(desired, step);
    return new Plan(
        true,
        Optional.empty(),
        OptionalInt.of(replicas),
        Map.of(),
        step,
        report.status(),
        report.requeue());
  }

  /** The StatefulSet already carries the desired template, so recreated pods get it. */
  static boolean templateRolledOut(ClusterView view, Desired desired) {
    return view.statefulSet()
        .map(s -> desired.podTemplateHash().equals(s.podTemplateHash()))
        .orElse(false);
  }

  static List<String> podNames(String cluster, Iterable<Integer> ordinals) {
    List<String> names = new ArrayList<>();
    ordinals.forEach(i -> names.add(Names.pod(cluster, i)));
    return names;
  }

  /** Rule 4: the cluster holds quorum. */
  private static final class WithQuorum {
    private final Target target;
    private final Desired desired;
    private final Facts facts;
    private final StatusBuilder status;

    WithQuorum(Target target, Desired desired, Facts facts, StatusBuilder status) {
      this.target = target;
      this.desired = desired;
      this.facts = facts;
      this.status = status;
    }

    Plan plan() {
      List<InitialMember> initial =
          facts.members.stream()
              .filter(m -> m.ordinal() >= 0)
              .map(
                  m ->
                      new InitialMember(
                          m.name(),
                          m.etcd().peerUrls().isEmpty()
                              ? Names.peerUrl(target.namespace(), target.name(), m.ordinal())
                              : m.etcd().peerUrls().get(0)))
              .toList();
      boolean hibernate = desired.replicas() == 0 && desired.persistentStorage();
      int replicas =
          hibernate ? 0 : facts.knownOrdinals().isEmpty() ? 0 : facts.knownOrdinals().last() + 1;
      Step step = hibernate ? new Step.None() : nextStep();
      StatusBuilder.Report report = status.withQuorum(desired, step, hibernate);
      return new Plan(
          true,
          Optional.of(new ClusterStateDecision(true, initial, annotations())),
          OptionalInt.of(replicas),
          claimMembers(),
          step,
          report.status(),
          report.requeue());
    }

    /** The record of rebuilds carried on, and the cluster ID seen with quorum. */
    private Map<String, String> annotations() {
      Map<String, String> annotations =
          new TreeMap<>(facts.view.clusterState().map(SurvivorRebuild::kept).orElse(Map.of()));
      annotations.put(Names.CLUSTER_ID_ANNOTATION, Hex.id(facts.clusterId));
      return annotations;
    }

    /** Each healthy member's claim, marked with the member it holds, where it is not yet. */
    private Map<String, Long> claimMembers() {
      if (!desired.persistentStorage()) {
        return Map.of();
      }
      Map<String, Long> marks = new TreeMap<>();
      for (Member m : facts.members) {
        ClaimView claim = facts.view.claims().get(m.ordinal());
        if (claim != null
            && !claim.terminating()
            && m.etcd().started()
            && facts.healthy(m)
            && claim.memberId() != m.id()) {
          marks.put(claim.name(), m.id());
        }
      }
      return marks;
    }

    private Step nextStep() {
      Optional<Member> learner = facts.learners().stream().findFirst();
      if (learner.isPresent()) {
        return learnerStep(learner.get());
      }
      List<Member> ours = facts.members.stream().filter(m -> m.ordinal() >= 0).toList();
      for (Member m : ours) {
        Optional<String> lost = facts.lostData(m);
        if (lost.isPresent()) {
          return Quorum.canRemove(
                  facts.voters().size(), facts.healthyVoters().size(), m.learner(), false)
              ? new Step.RemoveMember(
                  m.ordinal(),
                  m.name(),
                  m.id(),
                  "its pod runs without its data; it comes back as a new member")
              : new Step.Wait(
                  "removing "
                      + m.name()
                      + ", which lost its data, would leave the cluster without quorum");
        }
      }
      if (ours.size() > desired.replicas()) {
        return scaleDown(ours.get(ours.size() - 1));
      }
      if (ours.size() < desired.replicas()) {
        return scaleUp();
      }
      return roll();
    }

    private Step learnerStep(Member learner) {
      if (learner.ordinal() < 0 || learner.ordinal() >= desired.replicas()) {
        return new Step.RemoveMember(
            learner.ordinal(),
            learner.name(),
            learner.id(),
            "the spec no longer wants this member");
      }
      if (!learner.etcd().started()) {
        return startLearner(learner);
      }
      if (!facts.healthy(learner)) {
        return new Step.Wait("learner " + learner.name() + " to become healthy");
      }
      if (!Quorum.canPromote(facts.voters().size(), facts.healthyVoters().size(), true)) {
        return new Step.Wait("enough healthy voters to promote " + learner.name());
      }
      return new Step.PromoteLearner(learner.ordinal(), learner.name(), learner.id());
    }

    private Step scaleDown(Member target) {
      if (target.id() == facts.leaderId) {
        return moveLeaderOff(target)
            .orElse(new Step.Wait("a caught-up voter to take leadership from " + target.name()));
      }
      boolean ok =
          Quorum.canRemove(
              facts.voters().size(),
              facts.healthyVoters().size(),
              target.learner(),
              facts.healthy(target));
      return ok
          ? new Step.RemoveMember(
              target.ordinal(), target.name(), target.id(), "scaling down to " + desired.replicas())
          : new Step.Wait(
              "removing " + target.name() + " now would leave the cluster without quorum");
    }

    /**
     * Adds the lowest free ordinal. A claim left there by a former member holds data etcd would
     * refuse (or worse, take for the new member's): when no pod uses it, it goes first, so the new
     * member's pod starts on a fresh one; when a pod still runs on it (a member replaced in place),
     * the learner is added first and {@link #startLearner} clears the claim.
     */
    private Step scaleUp() {
      int ordinal =
          IntStream.iterate(0, i -> i + 1)
              .filter(i -> facts.memberAt(i).isEmpty())
              .findFirst()
              .orElseThrow();
      Optional<ClaimView> claim = Optional.ofNullable(facts.view.claims().get(ordinal));
      boolean podExists = facts.view.pod(ordinal).isPresent();
      if (upOnForeignData(ordinal)) {
        return new Step.Wait(
            "pod "
                + Names.pod(target.name(), ordinal)
                + " runs etcd for a member that is not in the cluster and shows no sign of lost"
                + " data: it may hold the only copy of some data, so the operator neither adds a"
                + " member there nor deletes its claim");
      }
      if (desired.persistentStorage()
          && claim.isPresent()
          && claim.get().memberId() != 0
          && !podExists) {
        return claim.get().terminating()
            ? new Step.Wait("claim " + claim.get().name() + " to be deleted")
            : new Step.DeleteClaim(
                ordinal,
                claim.get().name(),
                "it holds the data of a former member "
                    + Names.member(target.name(), ordinal)
                    + "; a new member starts empty");
      }
      return new Step.AddLearner(
          ordinal,
          Names.member(target.name(), ordinal),
          Names.peerUrl(target.namespace(), target.name(), ordinal));
    }

    /**
     * A learner that has not started yet: its pod must start on data of its own, not on a claim or
     * an emptyDir that a former member of that ordinal left behind.
     */
    private Step startLearner(Member learner) {
      int ordinal = learner.ordinal();
      String pod = Names.pod(target.name(), ordinal);
      Optional<ClaimView> claim = Optional.ofNullable(facts.view.claims().get(ordinal));
      Optional<PodView> podView = facts.view.pod(ordinal);
      if (desired.persistentStorage()
          && claim.isPresent()
          && claim.get().memberId() != 0
          && claim.get().memberId() != learner.id()) {
        if (upOnForeignData(ordinal)) {
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
        if (podView.isPresent() && !podView.get().terminating()) {
          return new Step.DeletePods(List.of(pod), "it still uses the claim of a former member");
        }
        return new Step.Wait("claim " + claim.get().name() + " to be deleted");
      }
      if (podView.isPresent()
          && !podView.get().terminating()
          && !podView.get().running()
          && startedBeforeItWasAdded(podView.get())) {
        // Its pod ran before the member existed (after a rebuild from a survivor of a higher
        // ordinal, the StatefulSet runs every lower ordinal at once) and now waits out a crash
        // back-off, up to 5 minutes on Kubernetes; a new pod reads the member list now.
        return new Step.DeletePods(
            List.of(pod),
            "it started before "
                + learner.name()
                + " was added and waits out a crash back-off; a new pod joins at once");
      }
      if (!desired.persistentStorage()
          && podView.isPresent()
          && !podView.get().terminating()
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
          && pod.lastTermination().contains(NOT_IN_INITIAL_CLUSTER);
    }

    /**
     * A pod that runs etcd on data that belongs to no member of this cluster, without the signs of
     * a member that lost its data: a survivor of another incarnation, say. Its claim is never
     * deleted while it runs.
     */
    private boolean upOnForeignData(int ordinal) {
      return facts
          .view
          .pod(ordinal)
          .map(p -> !p.terminating() && p.running() && !facts.lostDataAt(ordinal))
          .orElse(false);
    }

    private Step roll() {
      if (!templateRolledOut(facts.view, desired)) {
        return new Step.None();
      }
      SortedSet<Integer> stale = facts.stalePods(desired.podTemplateHash());
      // A pod above the last member's ordinal is a removed member's: the StatefulSet deletes it.
      int members = facts.knownOrdinals().isEmpty() ? 0 : facts.knownOrdinals().last() + 1;
      stale.removeIf(i -> i >= members);
      if (stale.isEmpty()) {
        return new Step.None();
      }
      Optional<PodView> terminating =
          facts.view.pods().values().stream().filter(PodView::terminating).findFirst();
      if (terminating.isPresent()) {
        return new Step.Wait("pod " + terminating.get().name() + " to terminate");
      }
      int voters = facts.voters().size();
      int healthyVoters = facts.healthyVoters().size();
      // Members that are down anyway: replacing their pod cannot cost quorum.
      for (int i : stale) {
        Optional<Member> m = facts.memberAt(i);
        if (m.isEmpty() || !facts.healthy(m.get())) {
          boolean learner = m.map(Member::learner).orElse(true);
          if (Quorum.canRestart(voters, healthyVoters, learner, false)) {
            return new Step.DeletePods(List.of(Names.pod(target.name(), i)), "rolling update");
          }
        }
      }
      // The next one only when every member is healthy and caught up.
      Optional<Member> behind = facts.members.stream().filter(m -> !facts.caughtUp(m)).findFirst();
      if (behind.isPresent()) {
        return new Step.Wait(behind.get().name() + " to be healthy and caught up");
      }
      // ...and every member's pod Ready: clients reach the members through the client Service,
      // which routes to Ready pods only. etcd calls a restarted member healthy seconds before its
      // readiness probe passes; going on then left the Service with no endpoint at all for about
      // a second in a roll of 3 (measured in the sandbox: MembershipBenchmarkIT).
      Optional<PodView> unready =
          facts.members.stream()
              .map(m -> facts.view.pod(m.ordinal()))
              .flatMap(Optional::stream)
              .filter(p -> !p.ready())
              .findFirst();
      if (unready.isPresent()) {
        return new Step.Wait("pod " + unready.get().name() + " to be Ready");
      }
      Optional<Member> follower =
          stale.stream()
              .sorted(Comparator.reverseOrder())
              .map(facts::memberAt)
              .flatMap(Optional::stream)
              .filter(m -> m.id() != facts.leaderId)
              .findFirst();
      boolean tolerant = voters >= 3;
      if (follower.isPresent()) {
        Member m = follower.get();
        if (Quorum.canRestart(voters, healthyVoters, m.learner(), true)) {
          return new Step.DeletePods(
              List.of(Names.pod(target.name(), m.ordinal())), "rolling update");
        }
        if (!tolerant) {
          return new Step.DeletePods(
              List.of(Names.pod(target.name(), m.ordinal())), withoutQuorumMeanwhile(voters, m));
        }
        return new Step.Wait(
            "restarting " + m.name() + " now would leave the cluster without quorum");
      }
      Optional<Member> leader = facts.leaderMember().filter(m -> stale.contains(m.ordinal()));
      if (leader.isEmpty()) {
        return new Step.None();
      }
      Optional<Step> move = moveLeaderOff(leader.get());
      if (move.isPresent()) {
        return move.get();
      }
      if (!tolerant) {
        return new Step.DeletePods(
            List.of(Names.pod(target.name(), leader.get().ordinal())),
            withoutQuorumMeanwhile(voters, leader.get()));
      }
      return new Step.Wait("a caught-up voter to take leadership from " + leader.get().name());
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

    /** Move leadership to the lowest-ordinal caught-up voter that runs the desired template. */
    private Optional<Step> moveLeaderOff(Member leader) {
      SortedSet<Integer> stale = facts.stalePods(desired.podTemplateHash());
      return facts.voters().stream()
          .filter(m -> m.id() != leader.id() && facts.caughtUp(m))
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
  }
}
