package io.etcdoperator.operator.observe;

import java.time.Instant;
import java.util.Optional;

/**
 * Where a member's pod runs, and whether what it needs to come back with its data is still there:
 * its node, and the node its volume is pinned to.
 *
 * @param node the node its pod is bound to ({@code spec.nodeName}); empty while not scheduled
 * @param nodeState what the operator sees of that node
 * @param unreachableSince when the node stopped being Ready (its Ready condition's last
 *     transition); for a node that is gone, or a cordoned node holding the volume, when the pod was
 *     last seen Ready (or created, for a pod never Ready: a pod the drain evicted is created again
 *     unscheduled); empty while the node is Ready or not known
 * @param volumeNode the node the member's data volume lives on and cannot leave: its
 *     PersistentVolume's required node affinity on {@code kubernetes.io/hostname}, or the pod's
 *     node for an emptyDir; empty for a volume that can follow the pod to another node, or when not
 *     known
 * @param volumeNodeState what the operator sees of {@code volumeNode}
 * @param volumeLost the member's claim is Lost (its volume is gone) or its PersistentVolume no
 *     longer exists
 */
public record Placement(
    Optional<String> node,
    NodeState nodeState,
    Optional<Instant> unreachableSince,
    Optional<String> volumeNode,
    NodeState volumeNodeState,
    boolean volumeLost) {

  /** What the operator sees of a node. */
  public enum NodeState {
    /** Its Ready condition is True. */
    READY,
    /** It exists, and its Ready condition is False or Unknown: its kubelet stopped posting. */
    UNREACHABLE,
    /**
     * It is Ready but cordoned ({@code spec.unschedulable}: drained, or being drained), and holds
     * the volume of a member whose pod is not scheduled: the pod cannot come back to its data until
     * the node is uncordoned. Only said of a volume's node; a pod that still runs on a cordoned
     * node is on a {@link #READY} one.
     */
    CORDONED,
    /** No Node object of that name: the node was deleted. */
    GONE,
    /** The operator cannot read Nodes (it watches namespaces, not the cluster), or none named. */
    UNKNOWN
  }

  /** A pod that is not scheduled, on a volume that can follow it, or a placement not known. */
  public static final Placement UNKNOWN =
      new Placement(
          Optional.empty(),
          NodeState.UNKNOWN,
          Optional.empty(),
          Optional.empty(),
          NodeState.UNKNOWN,
          false);

  /** Its node is not Ready or is gone. */
  public boolean nodeLost() {
    return nodeState == NodeState.UNREACHABLE || nodeState == NodeState.GONE;
  }

  /** Its data cannot come back: its volume is gone, or pinned to a node that is gone. */
  public boolean dataGone() {
    return volumeLost || volumeNodeState == NodeState.GONE;
  }

  /**
   * Its volume is pinned to a node that is not Ready, or cordoned while the pod waits to be
   * scheduled (it might come back with it).
   */
  public boolean dataAway() {
    return volumeNodeState == NodeState.UNREACHABLE || volumeNodeState == NodeState.CORDONED;
  }
}
