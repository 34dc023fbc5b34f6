package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Durations;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.Placement;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Members whose node is lost: a node that stopped posting status (NotReady: partitioned, powered
 * off, its kubelet dead), that was deleted, or that was drained of a member whose volume it holds.
 *
 * <h2>What is waited for, and what is replaced</h2>
 *
 * A member on an unreachable node is only reported while the rest keep quorum: most nodes come back
 * (a reboot, a partition that heals), and the member then rejoins with its data, under its own ID,
 * having missed nothing etcd cannot send it. It is replaced only when the user set {@code
 * spec.replaceLostMemberAfter}, that long has passed, the others keep quorum without it, and its
 * data cannot come back:
 *
 * <ul>
 *   <li>its volume is gone: the claim is Lost, its PersistentVolume deleted, or the node the volume
 *       is pinned to was deleted; or
 *   <li>its volume is pinned to the node (a local volume; an emptyDir) and that node has been
 *       unreachable the whole time; or
 *   <li>its volume is pinned to a node that is cordoned ({@code kubectl drain}), and its pod,
 *       evicted by the drain and created again, has waited unscheduled the whole time (the
 *       scheduler cannot put it back on its data until the node is uncordoned; a maintenance
 *       shorter than the wait ends with the member back on its data).
 * </ul>
 *
 * A member whose volume can follow its pod (network-attached storage) is not replaced when its pod
 * can move: a drained or deleted node's pod is deleted and started again elsewhere, and its data
 * comes back with it. But a pod bound to a node that stopped answering stays Terminating there (its
 * kubelet never confirms) and its StatefulSet starts no other: its volume cannot follow, and the
 * member stays down until a person acts. So a member whose pod's node has been unreachable for the
 * whole wait is replaced too, whatever its storage. It is not moved instead (its pod deleted
 * forcibly with its member kept): the old process may still run on the partitioned node, on the
 * same volume, as the same member; removing the member from etcd first makes it a stranger.
 *
 * <h2>Replacing, one step per reconcile</h2>
 *
 * <ol>
 *   <li>Remove it from etcd.
 *   <li>Delete its claim when the claim is bound to the lost node or Lost (a volume that cannot be
 *       mounted anywhere would keep the new pod Pending), or when its pod's node is lost (a network
 *       volume would first wait to be detached from that node, for the former member's data, which
 *       no one needs).
 *   <li>Delete its pod, forcibly when the pod is bound to a lost node: such a pod stays Terminating
 *       until its kubelet confirms, which a lost node never does, and its StatefulSet creates no
 *       replacement meanwhile.
 *   <li>The StatefulSet creates the pod again, with a new claim; ScaleUp then adds the member back
 *       as a learner (empty data), and PromoteLearner promotes it once it caught up.
 * </ol>
 *
 * <h2>Never two processes for one member identity</h2>
 *
 * A force-deleted pod's process may still run on the node that cannot be reached. It is harmless
 * only because its member left etcd first (step 1 comes before step 3, and step 3 is only planned
 * while the member list, read from the leader, no longer has it): etcd drops the raft messages of a
 * removed member ID, and a member that learns of its own removal stops itself. The new pod joins
 * under a new member ID on empty data, so the old process, if its node ever returns, is a stranger
 * the cluster refuses, never a second copy of a current member. No step forcibly deletes the pod of
 * a member that is still in etcd.
 */
final class NodeRules {
  private NodeRules() {}

  /**
   * Quorum held, spec.replaceLostMemberAfter set, and a member whose node is lost for good (see the
   * class): remove it, then clear its claim and its pod. After the rules that act on learners and
   * lost data, before ScaleUp (which adds the member back once it is gone).
   */
  static final class ReplaceMemberOnLostNode implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<Duration> wait = s.target().replaceLostMemberAfter();
      if (wait.isEmpty()) {
        return Optional.empty();
      }
      Facts f = s.facts();
      Instant now = f.view().now();
      // 1. A member still in etcd whose data cannot come back, once the wait is over.
      for (Member m : MembershipRules.ours(s)) {
        Placement p = f.view().placement(m.ordinal());
        Optional<String> why = lostForGood(p, wait.get(), now);
        if (why.isEmpty() || f.healthy(m)) {
          continue;
        }
        // Quorum holds and this member is not healthy, so the healthy voters that make the
        // quorum are all others: removing it leaves them a quorum of the smaller cluster.
        Step step =
            new Step.RemoveMember(
                m.ordinal(),
                m.name(),
                m.id(),
                why.get() + "; it comes back as a new member (spec.replaceLostMemberAfter)");
        return Optional.of(Decisions.withQuorum(s, Conditions.MEMBER_NODE_LOST, step));
      }
      // 2 and 3. An ordinal whose member is gone from etcd and whose claim or pod is held by a
      // lost node: clear them, claim first, so that the StatefulSet starts it afresh.
      for (int ordinal = 0; ordinal < s.desired().replicas(); ordinal++) {
        if (f.memberAt(ordinal).isPresent()) {
          continue;
        }
        Placement p = f.view().placement(ordinal);
        Optional<ClaimView> claim = Optional.ofNullable(f.view().claims().get(ordinal));
        Optional<PodView> pod = f.view().pod(ordinal);
        boolean claimHeld = claim.isPresent() && (p.dataGone() || p.dataAway());
        // A volume that could follow the pod holds the removed member's data only: cleared
        // before the pod starts elsewhere, it need not first be detached from the lost node.
        boolean claimStale = claim.isPresent() && !claimHeld && p.nodeLost();
        if ((claimHeld || claimStale) && !claim.get().terminating()) {
          return Optional.of(
              Decisions.withQuorum(
                  s,
                  Conditions.MEMBER_NODE_LOST,
                  new Step.DeleteClaim(
                      ordinal, claim.get().name(), claimHeld ? heldReason(p) : staleReason(p))));
        }
        if (pod.isPresent() && (p.nodeLost() || claimHeld)) {
          Step step =
              p.nodeLost()
                  ? new Step.ForceDeletePod(
                      pod.get().name(),
                      "its node "
                          + p.node().orElse("?")
                          + " is lost and its member was removed from etcd; a pod on a lost node"
                          + " stays Terminating until deleted forcibly, its kubelet cannot confirm")
                  : new Step.DeletePods(
                      List.of(pod.get().name()),
                      "its claim goes with its lost volume; a new pod starts on a new one");
          return Optional.of(Decisions.withQuorum(s, Conditions.MEMBER_NODE_LOST, step));
        }
      }
      return Optional.empty();
    }
  }

  /** Why a claim bound to its lost volume, or to a lost node, goes. */
  private static String heldReason(Placement p) {
    return "its volume "
        + (p.volumeLost()
            ? "is lost"
            : "is bound to node "
                + p.volumeNode().orElse("?")
                + ", which is "
                + (p.volumeNodeState() == Placement.NodeState.GONE
                    ? "gone"
                    : p.volumeNodeState() == Placement.NodeState.CORDONED
                        ? "cordoned"
                        : "unreachable"))
        + "; its member was removed from etcd, a new one starts empty";
  }

  /** Why a claim that could follow its pod goes, once the pod's node is lost. */
  private static String staleReason(Placement p) {
    return "its pod's node "
        + p.node().orElse("?")
        + " is lost and its member was removed from etcd; the claim holds the former member's"
        + " data, a new one starts empty";
  }

  /**
   * Why the member's data cannot come back, once {@code wait} has passed since its node (or its
   * volume's node) was lost; empty when it may yet come back, or when nothing is known.
   */
  static Optional<String> lostForGood(Placement p, Duration wait, Instant now) {
    if (p.unreachableSince().isEmpty()) {
      return Optional.empty();
    }
    Duration away = Duration.between(p.unreachableSince().get(), now);
    if (away.compareTo(wait) < 0) {
      return Optional.empty();
    }
    String forHow = "for " + Durations.format(away.withNanos(0));
    if (p.volumeLost()) {
      return Optional.of("its volume is lost (" + forHow + ")");
    }
    if (p.volumeNodeState() == Placement.NodeState.GONE) {
      return Optional.of(
          "node "
              + p.volumeNode().orElse("?")
              + ", which held its volume, is gone ("
              + forHow
              + ")");
    }
    if (p.volumeNodeState() == Placement.NodeState.UNREACHABLE) {
      return Optional.of(
          "node "
              + p.volumeNode().orElse("?")
              + ", to which its volume is bound, has been unreachable "
              + forHow);
    }
    if (p.volumeNodeState() == Placement.NodeState.CORDONED) {
      return Optional.of(
          "node "
              + p.volumeNode().orElse("?")
              + ", to which its volume is bound, is cordoned and its pod has waited unscheduled "
              + forHow);
    }
    if (p.nodeState() == Placement.NodeState.UNREACHABLE && p.volumeNode().isEmpty()) {
      return Optional.of(
          "its pod is bound to node "
              + p.node().orElse("?")
              + ", unreachable "
              + forHow
              + ": the pod stays Terminating there and its StatefulSet starts no other, so its"
              + " volume cannot follow it");
    }
    return Optional.empty();
  }
}
