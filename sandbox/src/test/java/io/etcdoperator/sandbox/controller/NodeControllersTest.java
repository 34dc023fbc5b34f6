package io.etcdoperator.sandbox.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decisions of the node lifecycle, scheduler (volumes) and disruption controllers. */
class NodeControllersTest {
  private static final Instant ADDED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Taint UNREACHABLE =
      new TaintBuilder()
          .withKey(NodeLifecycleController.UNREACHABLE)
          .withEffect("NoExecute")
          .withTimeAdded(ADDED.toString())
          .build();

  @Test
  void evictionIsDueWhenTheTolerationRunsOutAtOnceWithoutOneAndNeverWithoutSeconds() {
    Instant now = ADDED.plusSeconds(1);
    assertThat(NodeLifecycleController.evictionDue(UNREACHABLE, List.of(), now)).isEqualTo(now);
    assertThat(
            NodeLifecycleController.evictionDue(
                UNREACHABLE,
                List.of(
                    new TolerationBuilder()
                        .withKey(NodeLifecycleController.UNREACHABLE)
                        .withOperator("Exists")
                        .withEffect("NoExecute")
                        .withTolerationSeconds(300L)
                        .build()),
                now))
        .isEqualTo(ADDED.plusSeconds(300));
    assertThat(
            NodeLifecycleController.evictionDue(
                UNREACHABLE,
                List.of(
                    new TolerationBuilder()
                        .withKey(NodeLifecycleController.UNREACHABLE)
                        .withOperator("Exists")
                        .build()),
                now))
        .isNull();
    // a toleration of another effect does not count
    assertThat(
            NodeLifecycleController.evictionDue(
                UNREACHABLE,
                List.of(
                    new TolerationBuilder()
                        .withKey(NodeLifecycleController.UNREACHABLE)
                        .withOperator("Exists")
                        .withEffect("NoSchedule")
                        .build()),
                now))
        .isEqualTo(now);
  }

  private static PersistentVolumeClaim claim(
      String name, String cls, String volume, String selected) {
    PersistentVolumeClaimBuilder b =
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .withStorageClassName(cls)
            .withVolumeName(volume)
            .endSpec();
    if (selected != null) {
      b.editMetadata().addToAnnotations(Scheduler.SELECTED_NODE, selected).endMetadata();
    }
    return b.build();
  }

  private static Pod podWith(String... claims) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .endSpec();
    for (String c : claims) {
      b.editSpec()
          .addNewVolume()
          .withName(c)
          .withNewPersistentVolumeClaim()
          .withClaimName(c)
          .endPersistentVolumeClaim()
          .endVolume()
          .endSpec();
    }
    return b.build();
  }

  private static final List<Node> NODES =
      List.of("node-0", "node-1").stream()
          .map(
              n ->
                  new NodeBuilder()
                      .withNewMetadata()
                      .withName(n)
                      .withLabels(Map.of("kubernetes.io/hostname", n))
                      .endMetadata()
                      .build())
          .toList();

  private static Scheduler.Volumes volumes(
      Pod pod, List<PersistentVolumeClaim> claims, List<PersistentVolume> pvs) {
    Map<String, PersistentVolumeClaim> cs = new HashMap<>();
    claims.forEach(c -> cs.put("default/" + c.getMetadata().getName(), c));
    Map<String, PersistentVolume> vs = new HashMap<>();
    pvs.forEach(v -> vs.put(v.getMetadata().getName(), v));
    Map<String, StorageClass> classes =
        Map.of(
            "standard",
            new StorageClassBuilder()
                .withNewMetadata()
                .withName("standard")
                .endMetadata()
                .withVolumeBindingMode("Immediate")
                .build(),
            "local",
            new StorageClassBuilder()
                .withNewMetadata()
                .withName("local")
                .endMetadata()
                .withVolumeBindingMode("WaitForFirstConsumer")
                .build());
    return Scheduler.volumes(pod, NODES, cs, vs, classes);
  }

  @Test
  void thePodsClaimsSayWhereItMayGoOrWhyItWaits() {
    assertThat(volumes(podWith("a"), List.of(), List.of()).problem)
        .isEqualTo("persistentvolumeclaim \"a\" not found");
    PersistentVolumeClaim deleting = claim("a", "standard", null, null);
    deleting.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    assertThat(volumes(podWith("a"), List.of(deleting), List.of()).problem)
        .isEqualTo("persistentvolumeclaim \"a\" is being deleted");
    assertThat(
            volumes(podWith("a"), List.of(claim("a", "standard", null, null)), List.of()).problem)
        .isEqualTo("pod has unbound immediate PersistentVolumeClaims");
    assertThat(
            volumes(podWith("a"), List.of(claim("a", "standard", "pvc-1", null)), List.of())
                .problem)
        .isEqualTo("persistentvolumeclaim \"a\" bound to non-existent persistentvolume \"pvc-1\"");
    PersistentVolume local =
        new PersistentVolumeBuilder()
            .withNewMetadata()
            .withName("pvc-2")
            .endMetadata()
            .withNewSpec()
            .withNewNodeAffinity()
            .withNewRequired()
            .addNewNodeSelectorTerm()
            .addNewMatchExpression()
            .withKey("kubernetes.io/hostname")
            .withOperator("In")
            .withValues("node-1")
            .endMatchExpression()
            .endNodeSelectorTerm()
            .endRequired()
            .endNodeAffinity()
            .endSpec()
            .build();
    Scheduler.Volumes v =
        volumes(podWith("a"), List.of(claim("a", "local", "pvc-2", null)), List.of(local));
    assertThat(v.problem).isNull();
    assertThat(v.allowed).containsExactly(List.of("node-1"));
    Scheduler.Volumes first =
        volumes(podWith("b"), List.of(claim("b", "local", null, null)), List.of());
    assertThat(first.allowed).isEmpty();
    assertThat(first.toSelect).hasSize(1);
    assertThat(
            volumes(podWith("b"), List.of(claim("b", "local", null, "node-0")), List.of()).allowed)
        .containsExactly(List.of("node-0"));
  }

  private static Pod member(String name, boolean ready, boolean deleting) {
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .withLabels(Map.of("app", "e"))
            .endMetadata()
            .withNewStatus()
            .addNewCondition()
            .withType("Ready")
            .withStatus(ready ? "True" : "False")
            .endCondition()
            .endStatus()
            .build();
    if (deleting) {
      p.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    }
    return p;
  }

  private static PodDisruptionBudget budget(IntOrString min, IntOrString max) {
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName("b")
        .withNamespace("default")
        .withGeneration(2L)
        .endMetadata()
        .withNewSpec()
        .withMinAvailable(min)
        .withMaxUnavailable(max)
        .withSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", "e")).build())
        .endSpec()
        .build();
  }

  @Test
  void budgetsAllowHealthyMinusDesiredDisruptions() {
    List<Pod> pods =
        List.of(
            member("e-0", true, false),
            member("e-1", true, false),
            member("e-2", false, false),
            member("e-3", true, true));
    var min2 = DisruptionController.status(budget(new IntOrString(2), null), pods, Map.of());
    assertThat(min2.getCurrentHealthy()).isEqualTo(2);
    assertThat(min2.getDesiredHealthy()).isEqualTo(2);
    assertThat(min2.getExpectedPods()).isEqualTo(4);
    assertThat(min2.getDisruptionsAllowed()).isZero();
    assertThat(min2.getObservedGeneration()).isEqualTo(2L);
    assertThat(min2.getConditions().get(0).getReason()).isEqualTo("InsufficientPods");
    var max1 = DisruptionController.status(budget(null, new IntOrString(1)), pods, Map.of());
    assertThat(max1.getDesiredHealthy()).isEqualTo(3);
    assertThat(max1.getDisruptionsAllowed()).isZero();
    var half = DisruptionController.status(budget(new IntOrString("25%"), null), pods, Map.of());
    assertThat(half.getDesiredHealthy()).isEqualTo(1);
    assertThat(half.getDisruptionsAllowed()).isEqualTo(1);
    assertThat(half.getConditions().get(0).getReason()).isEqualTo("SufficientPods");
  }
}
