package io.etcdoperator.sandbox.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlacementTest {
  private static Node node(String name, Taint... taints) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(
            Map.of("kubernetes.io/hostname", name, "disk", name.equals("node-2") ? "ssd" : "hdd"))
        .endMetadata()
        .withNewSpec()
        .withTaints(taints)
        .endSpec()
        .build();
  }

  private static final List<Node> THREE = List.of(node("node-0"), node("node-1"), node("node-2"));

  private static Pod pod(String name, String app, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .withLabels(Map.of("app", app))
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .build();
  }

  private static PodAffinityTerm term(String app) {
    return new PodAffinityTermBuilder()
        .withTopologyKey("kubernetes.io/hostname")
        .withLabelSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", app)).build())
        .build();
  }

  private static Pod antiAffine(String name, String app, String node) {
    Pod p = pod(name, app, node);
    p.getSpec()
        .setAffinity(
            new AffinityBuilder()
                .withNewPodAntiAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term(app))
                .endPodAntiAffinity()
                .build());
    return p;
  }

  private static Placement.Result place(Pod p, List<Node> nodes, Pod... bound) {
    return Placement.place(p, nodes, List.of(bound), List.of());
  }

  @Test
  void tiesGoToTheNodeWithFewestPodsThenTheLowestName() {
    assertThat(place(pod("a", "x", null), THREE).node()).isEqualTo("node-0");
    assertThat(place(pod("a", "x", null), THREE, pod("b", "y", "node-0")).node())
        .isEqualTo("node-1");
  }

  @Test
  void antiAffinityBothWaysAndTheMessagesOfTheRealScheduler() {
    Placement.Result r =
        place(
            antiAffine("e-3", "e", null),
            THREE,
            pod("e-0", "e", "node-0"),
            pod("e-1", "e", "node-1"),
            pod("e-2", "e", "node-2"));
    assertThat(r.node()).isNull();
    assertThat(r.message())
        .isEqualTo("0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.");
    // an existing pod's anti-affinity keeps a matching newcomer off its node
    assertThat(
            place(pod("n", "e", null), List.of(node("node-0")), antiAffine("e-0", "e", "node-0"))
                .message())
        .isEqualTo(
            "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.");
  }

  @Test
  void podAffinityLetsTheFirstOfAGroupGoAnywhereAndTheRestFollowIt() {
    Pod first = pod("f-0", "f", null);
    first
        .getSpec()
        .setAffinity(
            new AffinityBuilder()
                .withNewPodAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term("f"))
                .endPodAffinity()
                .build());
    assertThat(place(first, THREE).node()).isEqualTo("node-0");
    Pod second = pod("f-1", "f", null);
    second.getSpec().setAffinity(first.getSpec().getAffinity());
    assertThat(place(second, THREE, pod("f-0", "f", "node-2"), pod("o", "o", "node-1")).node())
        .isEqualTo("node-2");
    Pod other = pod("g", "g", null);
    other.getSpec().setAffinity(first.getSpec().getAffinity());
    assertThat(place(other, List.of(node("node-1")), pod("f-0", "f", "node-0")).message())
        .isEqualTo("0/1 nodes are available: 1 node(s) didn't match pod affinity rules.");
  }

  @Test
  void taintsTolerationsAndNodeAffinity() {
    Taint unreachable =
        new TaintBuilder()
            .withKey("node.kubernetes.io/unreachable")
            .withEffect("NoExecute")
            .build();
    Taint dedicated =
        new TaintBuilder().withKey("dedicated").withValue("etcd").withEffect("NoSchedule").build();
    Taint soft = new TaintBuilder().withKey("soft").withEffect("PreferNoSchedule").build();
    List<Node> nodes =
        List.of(node("node-0", unreachable), node("node-1", dedicated), node("node-2", soft));
    Pod p = pod("p", "p", null);
    p.getSpec().setNodeSelector(Map.of("disk", "hdd"));
    assertThat(place(p, nodes).message())
        .isEqualTo(
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s)"
                + " had untolerated taint {dedicated: etcd}, 1 node(s) had untolerated taint"
                + " {node.kubernetes.io/unreachable: }.");
    List<Toleration> ts = new ArrayList<>();
    ts.add(
        new TolerationBuilder()
            .withKey("dedicated")
            .withOperator("Equal")
            .withValue("other")
            .build());
    p.getSpec().setTolerations(ts);
    assertThat(Placement.tolerated(dedicated, ts)).isFalse();
    ts.add(
        new TolerationBuilder()
            .withKey("dedicated")
            .withOperator("Exists")
            .withEffect("NoSchedule")
            .build());
    assertThat(Placement.tolerated(dedicated, ts)).isTrue();
    assertThat(Placement.tolerated(unreachable, ts)).isFalse();
    assertThat(
            Placement.tolerated(
                unreachable, List.of(new TolerationBuilder().withOperator("Exists").build())))
        .isTrue();
    assertThat(place(p, nodes).node()).isEqualTo("node-1");

    Pod q = pod("q", "q", null);
    q.getSpec()
        .setAffinity(
            new AffinityBuilder()
                .withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm()
                .withMatchExpressions(
                    new NodeSelectorRequirementBuilder()
                        .withKey("disk")
                        .withOperator("NotIn")
                        .withValues("hdd")
                        .build(),
                    new NodeSelectorRequirementBuilder()
                        .withKey("gpu")
                        .withOperator("DoesNotExist")
                        .build())
                .endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity()
                .build());
    assertThat(place(q, THREE).node()).isEqualTo("node-2");
  }

  @Test
  void aVolumeWithNodeAffinityAndACordonedNode() {
    Node cordoned = node("node-0");
    cordoned.getSpec().setUnschedulable(true);
    Placement.Result r =
        Placement.place(
            pod("v", "v", null),
            List.of(cordoned, node("node-1"), node("node-2")),
            List.of(),
            List.of(List.of("node-0")));
    assertThat(r.message())
        .isEqualTo(
            "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) had volume node"
                + " affinity conflict.");
  }
}
