package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.Placement.NodeState;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Each member pod's {@link Placement}, from the pods, their claims, the Nodes and the claims'
 * PersistentVolumes. Pure: the lookups are handed in (the reconciler's caches).
 *
 * <p>A volume is pinned to a node when its PersistentVolume requires, in its only node-affinity
 * term, {@code kubernetes.io/hostname In [one node]} (local volumes, local-path provisioners); a
 * volume whose affinity names a zone, or none, can follow the pod. An emptyDir is pinned to the
 * pod's node. A pinned volume's node that is Ready but cordoned, while the member's pod waits
 * unscheduled (a drain evicted it, and the scheduler may not put it back), is {@link
 * NodeState#CORDONED}: the data is away as on an unreachable node. A volume is looked up only for a
 * pod whose node is not Ready (or that has none): one read per such member per reconcile, none for
 * a healthy cluster. Without Node access (an operator of some namespaces only) nothing is known:
 * the node states are {@link NodeState#UNKNOWN}, and the operator never replaces a member for its
 * node.
 */
public final class Placements {
  static final String HOSTNAME = "kubernetes.io/hostname";

  private Placements() {}

  /**
   * @param nodesVisible whether the operator can read Nodes at all
   * @param volumesVisible whether it can read PersistentVolumes
   * @param node a Node by name, from the cache
   * @param volume a PersistentVolume by name (empty: none)
   * @param persistent whether members keep their data on claims (else emptyDir)
   */
  public static SortedMap<Integer, Placement> of(
      String cluster,
      List<Pod> pods,
      List<PersistentVolumeClaim> claims,
      boolean persistent,
      boolean nodesVisible,
      boolean volumesVisible,
      Function<String, Optional<Node>> node,
      Volumes volume) {
    SortedMap<Integer, Placement> out = new TreeMap<>();
    if (!nodesVisible) {
      return out;
    }
    for (Pod p : pods) {
      int ordinal = Names.ordinalOf(cluster, p.getMetadata().getName());
      if (ordinal < 0) {
        continue;
      }
      Optional<String> podNode =
          Optional.ofNullable(p.getSpec() == null ? null : p.getSpec().getNodeName())
              .filter(n -> !n.isEmpty());
      Optional<PersistentVolumeClaim> claim =
          claims.stream()
              .filter(c -> c.getMetadata().getName().equals(Names.dataClaim(cluster, ordinal)))
              .findFirst();
      NodeState nodeState = podNode.map(n -> state(node.apply(n))).orElse(NodeState.UNKNOWN);
      Optional<String> volumeNode;
      boolean lost;
      if (nodeState == NodeState.READY) {
        // On a Ready node the member's data is where it should be: no volume to look up.
        volumeNode = Optional.empty();
        lost = false;
      } else if (persistent && volumesVisible) {
        Optional<String> volumeName =
            claim
                .map(c -> c.getSpec() == null ? null : c.getSpec().getVolumeName())
                .filter(n -> !n.isEmpty());
        Optional<PersistentVolume> pv;
        try {
          pv = volumeName.isEmpty() ? Optional.empty() : volume.get(volumeName.get());
        } catch (Unknown e) {
          // Not seen is not gone: nothing is concluded about this member's volume.
          out.put(
              ordinal,
              new Placement(
                  podNode,
                  nodeState,
                  since(node, p, podNode, nodeState),
                  Optional.empty(),
                  NodeState.UNKNOWN,
                  false));
          continue;
        }
        volumeNode = pv.flatMap(Placements::pinnedTo);
        boolean claimLost = claimLost(claim);
        boolean bound =
            claim
                .map(c -> c.getSpec() != null && c.getSpec().getVolumeName() != null)
                .orElse(false);
        lost = claimLost || (bound && pv.isEmpty());
      } else if (persistent) {
        volumeNode = Optional.empty();
        lost = claimLost(claim);
      } else {
        volumeNode = podNode;
        lost = false;
      }
      Optional<Node> volumeNodeSeen = volumeNode.flatMap(node);
      NodeState volumeState = volumeNode.isEmpty() ? NodeState.UNKNOWN : state(volumeNodeSeen);
      if (volumeState == NodeState.READY
          && podNode.isEmpty()
          && volumeNodeSeen.map(Placements::cordoned).orElse(false)) {
        volumeState = NodeState.CORDONED;
      }
      Optional<Instant> since = Optional.empty();
      String lostNode =
          nodeState == NodeState.UNREACHABLE || nodeState == NodeState.GONE
              ? podNode.orElseThrow()
              : volumeState == NodeState.UNREACHABLE
                      || volumeState == NodeState.GONE
                      || volumeState == NodeState.CORDONED
                  ? volumeNode.orElseThrow()
                  : null;
      if (lostNode != null) {
        since =
            node.apply(lostNode).flatMap(Placements::notReadySince).or(() -> podNotReadySince(p));
      } else if (lost) {
        since = podNotReadySince(p);
      }
      out.put(ordinal, new Placement(podNode, nodeState, since, volumeNode, volumeState, lost));
    }
    return out;
  }

  /** The claim's status says Lost: its volume is gone. */
  private static boolean claimLost(Optional<PersistentVolumeClaim> claim) {
    return claim
        .map(c -> c.getStatus() != null && "Lost".equals(c.getStatus().getPhase()))
        .orElse(false);
  }

  /** PersistentVolumes by name. */
  public interface Volumes {
    /**
     * The volume, or empty when there is none of that name.
     *
     * @throws Unknown when it could not be read (no permission, the API failed)
     */
    Optional<PersistentVolume> get(String name) throws Unknown;
  }

  /** A volume that could not be read: neither there nor gone. */
  public static final class Unknown extends Exception {
    private static final long serialVersionUID = 1L;

    public Unknown(String message) {
      super(message, null, false, false);
    }
  }

  /** Since when the pod's node is lost, when it is. */
  private static Optional<Instant> since(
      Function<String, Optional<Node>> node, Pod p, Optional<String> podNode, NodeState state) {
    if (state != NodeState.UNREACHABLE && state != NodeState.GONE) {
      return Optional.empty();
    }
    return node.apply(podNode.orElseThrow())
        .flatMap(Placements::notReadySince)
        .or(() -> podNotReadySince(p));
  }

  /** The one node a volume's required node affinity pins it to, if it pins it to one. */
  static Optional<String> pinnedTo(PersistentVolume pv) {
    if (pv.getSpec() == null
        || pv.getSpec().getNodeAffinity() == null
        || pv.getSpec().getNodeAffinity().getRequired() == null) {
      return Optional.empty();
    }
    List<NodeSelectorTerm> terms =
        pv.getSpec().getNodeAffinity().getRequired().getNodeSelectorTerms();
    if (terms == null || terms.size() != 1 || terms.get(0).getMatchExpressions() == null) {
      return Optional.empty();
    }
    for (NodeSelectorRequirement r : terms.get(0).getMatchExpressions()) {
      if (HOSTNAME.equals(r.getKey())
          && "In".equals(r.getOperator())
          && r.getValues() != null
          && r.getValues().size() == 1) {
        return Optional.of(r.getValues().get(0));
      }
    }
    return Optional.empty();
  }

  static NodeState state(Optional<Node> node) {
    if (node.isEmpty()) {
      return NodeState.GONE;
    }
    return ready(node.get()).map(r -> "True".equals(r.getStatus())).orElse(false)
        ? NodeState.READY
        : NodeState.UNREACHABLE;
  }

  /** Cordoned: {@code kubectl cordon} or {@code drain} set {@code spec.unschedulable}. */
  static boolean cordoned(Node node) {
    return node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
  }

  private static Optional<NodeCondition> ready(Node node) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return node.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()))
        .findFirst();
  }

  private static Optional<Instant> notReadySince(Node node) {
    return ready(node)
        .filter(c -> !"True".equals(c.getStatus()))
        .map(NodeCondition::getLastTransitionTime)
        .flatMap(Placements::time);
  }

  private static Optional<Instant> podNotReadySince(Pod p) {
    Optional<PodCondition> ready =
        p.getStatus() == null || p.getStatus().getConditions() == null
            ? Optional.empty()
            : p.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .findFirst();
    return ready
        .filter(c -> !"True".equals(c.getStatus()))
        .map(PodCondition::getLastTransitionTime)
        .flatMap(Placements::time)
        .or(() -> time(p.getMetadata().getCreationTimestamp()));
  }

  private static Optional<Instant> time(String text) {
    try {
      return text == null ? Optional.empty() : Optional.of(Instant.parse(text));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
