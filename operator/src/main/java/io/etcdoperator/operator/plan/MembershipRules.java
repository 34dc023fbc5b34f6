package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.EtcdSigns;
import io.etcdoperator.operator.observe.MemberHash;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;

/**
 * Membership with quorum held: one change at a time, never one that would leave the rest without
 * quorum ({@link Quorum}). Members that lost their data go before scaling, because they are members
 * only in name; scaling goes before a roll, because a roll restarts members that scaling would add
 * or remove anyway.
 */
final class MembershipRules {
  private MembershipRules() {}

  /** Members of our ordinals, in ordinal order. */
  static List<Member> ours(Situation s) {
    return s.facts().members().stream().filter(m -> m.ordinal() >= 0).toList();
  }

  /**
   * Scaled to 0 with quorum still held: the StatefulSet goes to 0 and stops every member; the
   * member list and the claims stay, so that the same members come back. First among the quorum
   * rules: while stopping, no membership change makes sense.
   */
  static final class Hibernate implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return s.hibernating() ? Optional.of(Decisions.hibernating(s)) : Optional.empty();
    }
  }

  /**
   * A member whose pod runs without its data (its last termination shows raft's panic over a lost
   * log, or a refusal to bootstrap again): remove it, if the rest keep quorum; it comes back as a
   * new learner with empty data, through ScaleUp. One that refused to start because its data
   * differs from a peer's is removed only once the running voters agree with each other.
   */
  static final class ReplaceLostMember implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Facts f = s.facts();
      for (Member m : ours(s)) {
        Optional<String> lost = f.lostData(m);
        if (lost.isPresent()) {
          if (EtcdSigns.corruptAtStart(lost.get())) {
            Optional<Decision> unsure = othersDisagree(s, m);
            if (unsure.isPresent()) {
              return unsure;
            }
          }
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
   * A member refused to start because its data differs from a peer's: etcd's check at start fails
   * on a difference with any one peer, so it may be a running member whose data went wrong. The
   * refused member is replaced only when the other voters that answer hold one hash, shared by a
   * quorum of the voters; until then, wait and say every member's hash.
   */
  private static Optional<Decision> othersDisagree(Situation s, Member refused) {
    Facts f = s.facts();
    DataHashes data = new DataHashes(f, false);
    Optional<MemberHash> agreed = data.agreed();
    boolean othersAgree = false;
    if (agreed.isPresent()) {
      List<Member> odd = data.disagreeing(agreed.get());
      othersAgree =
          f.voters().stream()
              .filter(m -> m.id() != refused.id())
              .filter(m -> f.probeOf(m).map(MemberProbe::reachable).orElse(false))
              .allMatch(m -> data.comparable(agreed.get(), m) && !odd.contains(m));
    }
    if (othersAgree) {
      return Optional.empty();
    }
    return Optional.of(
        Decisions.dataDiverged(
            s,
            new Step.Wait("the running members' hashes of their data to agree"),
            refused.name()
                + " refused to start: its data differs from a peer's (etcd's check at start), and"
                + " the running voters' data do not agree with each other ("
                + CorruptionRules.ReplaceCorruptMember.hashes(s)
                + "): which member's data is wrong cannot be told"));
  }

  /**
   * Every member as wanted and no pod to roll: Ready, or, not Ready, an alarm etcd raised, the
   * members that are unhealthy (nothing is done about them: a member that is down comes back with
   * its pod), or a healthy member whose pod is not Ready yet or is being deleted. Ready promises
   * that clients reach every member through the client Service, which sends them to Ready pods
   * only, never to a terminating one (its EndpointSlice marks the endpoint not ready): a member
   * that serves before its kubelet's readiness probe passed is not there yet, and one whose pod is
   * being deleted (the last pod of a roll, a pod deleted by hand) is going, while etcd still
   * answers for its grace period. Last of the quorum rules: it is what is left when nothing needs
   * changing.
   */
  static final class InSync implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Facts f = s.facts();
      if (!f.alarms().isEmpty()) {
        return Optional.of(Decisions.withQuorum(s, Conditions.ALARM, new Step.None()));
      }
      if (!ours(s).stream().allMatch(f::healthy)) {
        return Optional.of(
            Decisions.withQuorum(s, Conditions.MEMBERS_UNREACHABLE, new Step.None()));
      }
      Optional<PodView> unready = f.unreadyMemberPod();
      if (unready.isPresent()) {
        return Optional.of(
            Decisions.withQuorum(
                s,
                Conditions.PODS_NOT_READY,
                new Step.Wait(
                    unready.get().terminating()
                        ? "pod "
                            + unready.get().name()
                            + " to be replaced: it is terminating, and the client Service sends no"
                            + " client to a terminating pod"
                        : "pod "
                            + unready.get().name()
                            + " to be Ready: the client Service sends clients to Ready pods"
                            + " only")));
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
   *
   * <p>A pod whose etcd answers that it holds nothing at all ({@link #answersEmptyAt}) is not such
   * a pod, whatever member ID it runs: a member removed because it lost its data whose pod was
   * replaced before the member came back runs that removed member's ID on the fresh data dir its
   * first crash initialised, with nothing committed; no leader ever sends it anything again, so it
   * never shows the panic the lost data would otherwise cause.
   */
  static boolean upOnForeignData(Situation s, int ordinal) {
    Facts f = s.facts();
    return f.view()
        .pod(ordinal)
        .map(
            p ->
                !p.terminating()
                    && p.running()
                    && !f.lostDataAt(ordinal)
                    && !answersEmptyAt(f, ordinal))
        .orElse(false);
  }

  /**
   * Whether etcd at this ordinal says its data dir holds no key: its key-value store is at revision
   * 1, the revision of a store no write was ever applied to (from its Status, or, when its client
   * port does not answer, from its metrics), and, when it answers, no raft entry is committed
   * either. Every write advances the revision, and nothing (compaction, defragmentation) takes it
   * back: such a data dir has nothing to lose.
   */
  private static boolean answersEmptyAt(Facts f, int ordinal) {
    return f.view()
        .probe(ordinal)
        .map(p -> p.revision() == 1 && (!p.reachable() || p.raftIndex() == 0))
        .orElse(false);
  }
}
