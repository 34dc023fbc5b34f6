package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.InitialMember;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.RebuildView;
import io.etcdoperator.operator.plan.Decision.Keep;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Quorum is lost and a majority of the members lost their data. Then no member can ever bring the
 * quorum back: waiting is pointless, but rebuilding destroys whatever the survivors lack, so the
 * operator only reports, unless the user opted in for this very cluster.
 *
 * <h2>Detecting it</h2>
 *
 * The cluster formed before (the cluster-state ConfigMap says existing), there is no quorum, and
 * more members than the quorum allows show that they run without their data (their pods' last
 * words, see {@link Facts#lostDataAt}). The other known members are the survivors; the most
 * advanced is the one with the highest (raft term, raft index), by its status when it answers; when
 * a survivor answers only on its metrics (a member restarted without quorum), which tell a commit
 * index but no term, by the index alone; the lowest ordinal on a tie. Without an opt-in: report
 * {@code MajorityDataLost}, naming the lost members, the survivor and how to opt in, and destroy
 * nothing.
 *
 * <h2>The opt-in</h2>
 *
 * The annotation {@value Names#REBUILD_OPT_IN_ANNOTATION} on the EtcdCluster, whose value is the
 * resource's UID (or {@code <uid>/<anything>}): it cannot be applied to another cluster, or to a
 * re-created one of the same name, by accident. Each value is consumed once: the ConfigMap records
 * the value of the last rebuild, and a later disaster needs a new value.
 *
 * <h2>Rebuilding, one step per reconcile, every state in the world</h2>
 *
 * <ol>
 *   <li>Record the intent in the ConfigMap's annotations: the opt-in value and the survivor. From
 *       here on the rebuild continues from that record, even when the signs of data loss vanish
 *       with the stopped pods, and after an operator restart.
 *   <li>Stop every member pod (StatefulSet to 0; the survivor's claim is kept).
 *   <li>Delete every other member's claim, one per reconcile: {@code --force-new-cluster} drops
 *       those members, and what their claims hold (the log of a member the rebuilt cluster no
 *       longer has) would keep their pods from ever joining again. The user opted in to losing
 *       whatever the survivor lacks, and a member less advanced than the survivor holds nothing the
 *       survivor lacks that a quorum ever acknowledged. Without this, a survivor of any ordinal but
 *       the lowest waited forever: the StatefulSet runs the lower ordinals' pods again at once, on
 *       their old claims, as etcd members of no cluster, which the operator protects.
 *   <li>Start the rebuild pod: the survivor's pod spec on the survivor's claim, under its name,
 *       with {@code --force-new-cluster}: etcd keeps the data, the cluster ID and the member ID,
 *       and drops every other member.
 *   <li>When that etcd leads a cluster of its own: write the ConfigMap (existing, the survivor its
 *       only member, the rebuild recorded with its revision and time), then delete the rebuild pod.
 *   <li>Once the rebuild pod is gone, the ordinary rules run the survivor's own pod again (a
 *       one-member cluster with quorum) and add the other ordinals back as learners, each on a
 *       fresh claim (the StatefulSet creates it with the pod).
 * </ol>
 *
 * <p>A rebuild pod outside a rebuild in progress (finished, or the opt-in withdrawn) is deleted;
 * while one exists, no member pod runs, so two processes never share the survivor's claim.
 */
final class SurvivorRebuild {
  private SurvivorRebuild() {}

  /**
   * A rebuild the user opted into, carried through from its record in the ConfigMap, and the
   * rebuild pod's clean-up. Right after the rules that make the operator stand still and ahead of
   * every other: while the survivor's claim is in use by the rebuild pod, no member pod may run.
   */
  static final class RebuildUnderWay implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return inProgress(s);
    }
  }

  /**
   * Quorum lost and a majority lost its data: no member can ever bring the quorum back. Report it
   * (naming the most advanced survivor and how to opt in); with the opt-in, record the intent to
   * rebuild, which RebuildUnderWay then carries out. Before QuorumLost, which would wait forever.
   */
  static final class MajorityDataLost implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return QuorumLostRules.lost(s)
          ? majorityLost(s, QuorumLostRules.replicas(s))
          : Optional.empty();
    }
  }

  /** The plan of a rebuild in progress, or of cleaning up after one; empty when there is none. */
  static Optional<Decision> inProgress(Situation s) {
    Target target = s.target();
    Facts facts = s.facts();
    Optional<ClusterState> state = facts.view().clusterState();
    Optional<String> intent = state.flatMap(c -> c.annotation(Names.REBUILDING_ANNOTATION));
    Optional<String> done = state.flatMap(c -> c.annotation(Names.REBUILT_ANNOTATION));
    boolean active =
        intent.isPresent() && intent.equals(target.rebuild().optIn()) && !intent.equals(done);
    Optional<RebuildView> pod = facts.view().rebuild();
    String survivor = state.flatMap(c -> c.annotation(Names.REBUILDING_FROM_ANNOTATION)).orElse("");
    int ordinal = Names.ordinalOf(target.name(), survivor);

    if (pod.isPresent() && !active) {
      Step step =
          pod.get().terminating()
              ? new Step.Wait("the rebuild pod to go away")
              : new Step.DeleteRebuildPod(
                  done.isPresent() ? "the rebuild is done" : "no rebuild is under way");
      return Optional.of(
          Decisions.rebuilding(step, "the rebuild pod goes away; the members start again"));
    }
    if (!active) {
      return Optional.empty();
    }
    if (ordinal < 0) {
      return Optional.of(
          Decisions.rebuilding(
              new Step.Wait("a survivor"),
              "the recorded survivor '" + survivor + "' is not a member name"));
    }
    if (pod.isPresent()) {
      RebuildView rebuild = pod.get();
      if (!rebuild.leadsAlone()) {
        String how =
            rebuild
                .probe()
                .map(p -> p.reachable() ? "it has no leader yet" : p.error())
                .orElse("no address yet");
        return Optional.of(
            Decisions.rebuilding(
                new Step.Wait("the rebuild pod to lead a cluster of its own"),
                "rebuilding from "
                    + survivor
                    + ": pod "
                    + rebuild.name()
                    + " is "
                    + rebuild.phase()
                    + ", "
                    + how));
      }
      Optional<ClaimView> other =
          facts.view().claims().values().stream().filter(c -> c.ordinal() != ordinal).findFirst();
      if (other.isPresent()) {
        String rebuilding = "rebuilding from " + survivor + ": clearing the other members' claims";
        return Optional.of(
            Decisions.rebuilding(
                other.get().terminating()
                    ? new Step.Wait("claim " + other.get().name() + " to be deleted")
                    : new Step.DeleteClaim(
                        other.get().ordinal(),
                        other.get().name(),
                        "the rebuild keeps only "
                            + survivor
                            + "; member "
                            + Names.member(target.name(), other.get().ordinal())
                            + " comes back new, on a fresh claim"),
                rebuilding));
      }
      long revision = rebuild.probe().map(MemberProbe::revision).orElse(0L);
      Map<String, String> annotations = new LinkedHashMap<>(kept(state.get()));
      annotations.put(Names.REBUILT_ANNOTATION, intent.get());
      annotations.put(
          Names.REBUILT_FROM_ANNOTATION, survivor + "@" + revision + "@" + facts.view().now());
      ClusterState rebuilt =
          new ClusterState(
              ClusterState.Kind.EXISTING,
              List.of(
                  new InitialMember(
                      survivor,
                      Names.peerUrl(target.namespace(), target.name(), ordinal, s.peerScheme()))),
              s.desired().clusterToken(),
              annotations);
      return Optional.of(
          Decisions.rebuilding(
              new Step.DeleteRebuildPod("the rebuild is done"),
              Keep.statefulSet(0).withClusterState(rebuilt),
              "rebuilt from " + survivor + " at revision " + revision + "; its pod starts next"));
    }
    if (!facts.view().pods().isEmpty()) {
      return Optional.of(
          Decisions.rebuilding(
              new Step.Wait("every member pod to stop"),
              "rebuilding from " + survivor + ": stopping every member pod first"));
    }
    return Optional.of(
        Decisions.rebuilding(
            new Step.CreateRebuildPod(ordinal, survivor),
            "rebuilding from " + survivor + ": starting it with --force-new-cluster"));
  }

  /**
   * Without quorum: when a majority lost its data, report it, or record the intent to rebuild when
   * the user opted in. Empty when the majority still has its data (then waiting is right).
   */
  static Optional<Decision> majorityLost(Situation s, int replicas) {
    Target target = s.target();
    Facts facts = s.facts();
    SortedSet<Integer> known = facts.knownOrdinals();
    SortedSet<Integer> lost = new TreeSet<>();
    known.stream().filter(facts::lostDataAt).forEach(lost::add);
    int survivors = known.size() - lost.size();
    if (lost.isEmpty() || survivors >= Quorum.of(known.size())) {
      return Optional.empty();
    }
    String lostNames = String.join(", ", s.pods(lost));
    List<Integer> alive = known.stream().filter(i -> !lost.contains(i)).toList();
    // etcd's own order of logs: the later term first, then the longer log. A survivor that answers
    // only on its metrics tells no term: then the index alone decides, for every survivor.
    boolean termsKnown = alive.stream().allMatch(i -> term(facts, i) > 0);
    Comparator<Integer> byIndex = Comparator.comparingLong((Integer i) -> index(facts, i));
    Comparator<Integer> byLog =
        termsKnown
            ? Comparator.comparingLong((Integer i) -> term(facts, i)).thenComparing(byIndex)
            : byIndex;
    Optional<Integer> best = alive.stream().max(byLog.thenComparing(Comparator.reverseOrder()));
    if (best.isEmpty()) {
      return Optional.of(
          Decisions.majorityDataLost(
              s,
              "members "
                  + lostNames
                  + " lost their data and no member holds any: the cluster's"
                  + " data is gone; the operator changes nothing"
                  + Restores.wayOut(target),
              replicas));
    }
    boolean ambiguous =
        survivors > 1
            && known.stream().filter(i -> !lost.contains(i)).allMatch(i -> index(facts, i) == 0);
    String survivor = Names.member(target.name(), best.get());
    String advanced =
        ambiguous
            ? "no survivor tells how far its log goes, so the most advanced one is unknown"
            : survivor
                + " holds the most advanced data ("
                + (termsKnown ? "raft term " + term(facts, best.get()) + ", index " : "raft index ")
                + index(facts, best.get())
                + (termsKnown ? ")" : "; a survivor tells no raft term)");
    Optional<String> done =
        facts.view().clusterState().flatMap(c -> c.annotation(Names.REBUILT_ANNOTATION));
    Optional<String> optIn = target.rebuild().optIn();
    if (optIn.isPresent() && !optIn.equals(done) && !ambiguous) {
      ClusterState state =
          facts
              .view()
              .clusterState()
              .filter(ClusterState::existing)
              .orElseGet(() -> Keeps.rebuiltClusterState(s));
      Map<String, String> annotations = new LinkedHashMap<>(kept(state));
      annotations.put(Names.REBUILDING_ANNOTATION, optIn.get());
      annotations.put(Names.REBUILDING_FROM_ANNOTATION, survivor);
      ClusterState intent =
          new ClusterState(
              ClusterState.Kind.EXISTING, state.members(), s.desired().clusterToken(), annotations);
      return Optional.of(
          Decisions.rebuilding(
              new Step.None(),
              new Keep(true, Optional.of(intent), OptionalInt.empty(), Map.of()),
              "members "
                  + lostNames
                  + " lost their data; "
                  + advanced
                  + "; rebuilding from it, as asked"));
    }
    String why =
        optIn.isPresent() && optIn.equals(done)
            ? "the opt-in "
                + optIn.get()
                + " was used by an earlier rebuild; set a new value ("
                + target.rebuild().uid()
                + "/2, ...) to rebuild again"
            : target
                .rebuild()
                .problem()
                .orElse(
                    "to rebuild the cluster from the most advanced survivor, losing what it lacks: kubectl annotate etcdcluster "
                        + target.name()
                        + " -n "
                        + target.namespace()
                        + " "
                        + Names.REBUILD_OPT_IN_ANNOTATION
                        + "="
                        + target.rebuild().uid());
    return Optional.of(
        Decisions.majorityDataLost(
            s,
            "quorum lost and members "
                + lostNames
                + " lost their data; "
                + advanced
                + ". The operator destroys nothing and starts no new cluster; "
                + why
                + Restores.wayOut(target),
            replicas));
  }

  /** The raft term a member reports (0: unknown, e.g. it answers only on its metrics). */
  private static long term(Facts facts, int ordinal) {
    return facts
        .view()
        .probe(ordinal)
        .filter(MemberProbe::reachable)
        .map(MemberProbe::raftTerm)
        .orElse(0L);
  }

  /** How far a member's log goes, as far as the operator can tell (0: unknown). */
  private static long index(Facts facts, int ordinal) {
    return facts.view().probe(ordinal).map(MemberProbe::knownIndex).orElse(0L);
  }

  /** The record of earlier rebuilds, carried on. */
  static Map<String, String> kept(ClusterState state) {
    Map<String, String> kept = new LinkedHashMap<>();
    state
        .annotation(Names.REBUILT_ANNOTATION)
        .ifPresent(v -> kept.put(Names.REBUILT_ANNOTATION, v));
    state
        .annotation(Names.CLUSTER_ID_ANNOTATION)
        .ifPresent(v -> kept.put(Names.CLUSTER_ID_ANNOTATION, v));
    state
        .annotation(Names.REBUILT_FROM_ANNOTATION)
        .ifPresent(v -> kept.put(Names.REBUILT_FROM_ANNOTATION, v));
    state
        .annotation(Names.RESTORED_FROM_ANNOTATION)
        .ifPresent(v -> kept.put(Names.RESTORED_FROM_ANNOTATION, v));
    for (String other :
        List.of(
            Names.DEFRAGMENTED_ANNOTATION,
            Names.COMPACTED_ANNOTATION,
            Names.SERVER_TLS_ANNOTATION)) {
      state.annotation(other).ifPresent(v -> kept.put(other, v));
    }
    return kept;
  }
}
