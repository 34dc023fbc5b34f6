package io.etcdoperator.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.observe.Placement.NodeState;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/** Where members run, from Kubernetes objects built here (no API server: a pure function). */
class PlacementsTest {
  static final String T0 = "2026-12-01T12:00:00Z";
  static final String T1 = "2026-12-01T12:05:00Z";

  static Node node(String name, String ready, String since) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready)
        .withLastTransitionTime(since)
        .endCondition()
        .endStatus()
        .build();
  }

  static Pod pod(int ordinal, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("test-" + ordinal)
        .withCreationTimestamp(T0)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("False")
        .withLastTransitionTime(T1)
        .endCondition()
        .endStatus()
        .build();
  }

  static PersistentVolumeClaim claim(int ordinal, String volume, String phase) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata()
        .withName("data-test-" + ordinal)
        .endMetadata()
        .withNewSpec()
        .withVolumeName(volume)
        .endSpec()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }

  static PersistentVolume pinned(String name, String key, String node) {
    return new PersistentVolumeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNewNodeAffinity()
        .withNewRequired()
        .addNewNodeSelectorTerm()
        .addNewMatchExpression()
        .withKey(key)
        .withOperator("In")
        .withValues(node)
        .endMatchExpression()
        .endNodeSelectorTerm()
        .endRequired()
        .endNodeAffinity()
        .endSpec()
        .build();
  }

  final List<String> looked = new ArrayList<>();

  SortedMap<Integer, Placement> of(
      List<Pod> pods,
      List<PersistentVolumeClaim> claims,
      boolean persistent,
      Map<String, Node> nodes,
      Map<String, PersistentVolume> volumes) {
    return Placements.of(
        "test",
        pods,
        claims,
        persistent,
        true,
        true,
        n -> Optional.ofNullable(nodes.get(n)),
        v -> {
          looked.add(v);
          return Optional.ofNullable(volumes.get(v));
        });
  }

  @Test
  void onAReadyNodeNoVolumeIsReadAndNothingIsLost() {
    Placement p =
        of(
                List.of(pod(0, "node-0")),
                List.of(claim(0, "pv-0", "Bound")),
                true,
                Map.of("node-0", node("node-0", "True", T0)),
                Map.of())
            .get(0);
    assertThat(p.nodeState()).isEqualTo(NodeState.READY);
    assertThat(p.nodeLost()).isFalse();
    assertThat(p.dataGone() || p.dataAway()).isFalse();
    assertThat(looked).isEmpty();
  }

  @Test
  void anUnreachableNodeWithALocalVolumeIsLostSinceItsReadyTransition() {
    Placement p =
        of(
                List.of(pod(1, "node-1")),
                List.of(claim(1, "pv-1", "Bound")),
                true,
                Map.of("node-1", node("node-1", "Unknown", T0)),
                Map.of("pv-1", pinned("pv-1", "kubernetes.io/hostname", "node-1")))
            .get(1);
    assertThat(p.nodeState()).isEqualTo(NodeState.UNREACHABLE);
    assertThat(p.volumeNode()).contains("node-1");
    assertThat(p.dataAway()).isTrue();
    assertThat(p.unreachableSince()).contains(Instant.parse(T0));
  }

  @Test
  void aVolumeAffineToAZoneCanFollowThePod() {
    Placement p =
        of(
                List.of(pod(1, "node-1")),
                List.of(claim(1, "pv-1", "Bound")),
                true,
                Map.of("node-1", node("node-1", "False", T0)),
                Map.of("pv-1", pinned("pv-1", "topology.kubernetes.io/zone", "zone-a")))
            .get(1);
    assertThat(p.nodeLost()).isTrue();
    assertThat(p.volumeNode()).isEmpty();
    assertThat(p.dataGone() || p.dataAway()).isFalse();
  }

  @Test
  void aPendingPodOnAVolumeOfADeletedNodeHasItsDataGone() {
    Placement p =
        of(
                List.of(pod(2, null)),
                List.of(claim(2, "pv-2", "Bound")),
                true,
                Map.of(),
                Map.of("pv-2", pinned("pv-2", "kubernetes.io/hostname", "node-2")))
            .get(2);
    assertThat(p.node()).isEmpty();
    assertThat(p.volumeNodeState()).isEqualTo(NodeState.GONE);
    assertThat(p.dataGone()).isTrue();
    // No node to ask since when: since the pod stopped being Ready.
    assertThat(p.unreachableSince()).contains(Instant.parse(T1));
  }

  static Node cordoned(Node n) {
    n.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
    n.getSpec().setUnschedulable(true);
    return n;
  }

  @Test
  void aPendingPodWhoseLocalVolumeIsOnACordonedNodeHasItsDataAway() {
    Map<String, Node> nodes = Map.of("node-2", cordoned(node("node-2", "True", T0)));
    Map<String, PersistentVolume> volumes =
        Map.of("pv-2", pinned("pv-2", "kubernetes.io/hostname", "node-2"));
    Placement waiting =
        of(List.of(pod(2, null)), List.of(claim(2, "pv-2", "Bound")), true, nodes, volumes).get(2);
    assertThat(waiting.volumeNodeState()).isEqualTo(NodeState.CORDONED);
    assertThat(waiting.dataAway()).isTrue();
    assertThat(waiting.dataGone()).isFalse();
    assertThat(waiting.nodeLost()).isFalse();
    // Since the evicted pod, created again, stopped being Ready (else since it was created).
    assertThat(waiting.unreachableSince()).contains(Instant.parse(T1));

    // Still running on the cordoned node (not evicted yet): nothing is away.
    Placement running =
        of(List.of(pod(2, "node-2")), List.of(claim(2, "pv-2", "Bound")), true, nodes, volumes)
            .get(2);
    assertThat(running.nodeState()).isEqualTo(NodeState.READY);
    assertThat(running.dataAway() || running.dataGone() || running.nodeLost()).isFalse();
    assertThat(running.unreachableSince()).isEmpty();

    // Uncordoned: the pod can go back to its data.
    Placement uncordoned =
        of(
                List.of(pod(2, null)),
                List.of(claim(2, "pv-2", "Bound")),
                true,
                Map.of("node-2", node("node-2", "True", T0)),
                volumes)
            .get(2);
    assertThat(uncordoned.volumeNodeState()).isEqualTo(NodeState.READY);
    assertThat(uncordoned.dataAway()).isFalse();
  }

  @Test
  void aPendingPodOnANetworkVolumeIsNotHeldByACordonedNode() {
    Placement p =
        of(
                List.of(pod(2, null)),
                List.of(claim(2, "pv-2", "Bound")),
                true,
                Map.of("node-2", cordoned(node("node-2", "True", T0))),
                Map.of("pv-2", pinned("pv-2", "topology.kubernetes.io/zone", "zone-a")))
            .get(2);
    assertThat(p.dataAway() || p.dataGone()).isFalse();
  }

  @Test
  void aLostClaimOrAVanishedVolumeIsLost() {
    Map<String, Node> nodes = Map.of("node-1", node("node-1", "Unknown", T0));
    assertThat(
            of(List.of(pod(1, "node-1")), List.of(claim(1, "pv-1", "Lost")), true, nodes, Map.of())
                .get(1)
                .volumeLost())
        .isTrue();
    assertThat(
            of(List.of(pod(1, "node-1")), List.of(claim(1, "pv-1", "Bound")), true, nodes, Map.of())
                .get(1)
                .volumeLost())
        .isTrue();
  }

  @Test
  void aVolumeThatCannotBeReadIsNeitherThereNorGone() {
    Placement p =
        Placements.of(
                "test",
                List.of(pod(1, "node-1")),
                List.of(claim(1, "pv-1", "Bound")),
                true,
                true,
                true,
                n -> Optional.of(node("node-1", "Unknown", T0)),
                v -> {
                  throw new Placements.Unknown("403 forbidden");
                })
            .get(1);
    assertThat(p.nodeLost()).isTrue();
    assertThat(p.volumeLost()).isFalse();
    assertThat(p.dataGone() || p.dataAway()).isFalse();
  }

  @Test
  void anEmptyDirIsPinnedToThePodsNode() {
    Placement p =
        of(
                List.of(pod(0, "node-0")),
                List.of(),
                false,
                Map.of("node-0", node("node-0", "Unknown", T0)),
                Map.of())
            .get(0);
    assertThat(p.volumeNode()).contains("node-0");
    assertThat(p.dataAway()).isTrue();
  }

  @Test
  void withoutNodeAccessNothingIsKnown() {
    assertThat(
            Placements.of(
                "test",
                List.of(pod(0, "node-0")),
                List.of(),
                true,
                false,
                false,
                n -> Optional.empty(),
                v -> Optional.empty()))
        .isEmpty();
  }
}
