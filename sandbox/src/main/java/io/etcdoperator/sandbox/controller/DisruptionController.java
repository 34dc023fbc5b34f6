package io.etcdoperator.sandbox.controller;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The disruption controller: keeps each PodDisruptionBudget's status, which the eviction API reads.
 *
 * <p>Each pass (every resync), for each budget: its pods are those of its namespace its selector
 * selects; healthy are those not being deleted whose Ready condition is True. With an integer
 * {@code minAvailable}, expected is the number of its pods and desired is minAvailable; otherwise
 * (a percentage, or {@code maxUnavailable}) expected is the sum of the replicas of the StatefulSets
 * owning its pods (a pod without one counts itself), and desired is the percentage of expected
 * rounded up, or expected minus maxUnavailable (a percentage of it rounded up). {@code
 * disruptionsAllowed} is healthy minus desired, at least 0; the status also carries currentHealthy,
 * desiredHealthy, expectedPods, observedGeneration and the condition DisruptionAllowed
 * (SufficientPods / InsufficientPods). It is written only when it changed.
 */
public final class DisruptionController extends Controller {
  public DisruptionController(KubernetesClient client, Duration resync) {
    super(client, "disruption-controller", resync);
  }

  @Override
  public void start() {
    // no watch: the resync looks every second (more watches on the shared client delay requests)
    super.start();
  }

  @Override
  protected void reconcile() {
    List<PodDisruptionBudget> budgets =
        client.policy().v1().podDisruptionBudget().inAnyNamespace().list().getItems();
    if (budgets.isEmpty()) {
      return;
    }
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    Map<String, StatefulSet> sets = new HashMap<>();
    for (StatefulSet s : client.apps().statefulSets().inAnyNamespace().list().getItems()) {
      sets.put(s.getMetadata().getNamespace() + "/" + s.getMetadata().getUid(), s);
    }
    for (PodDisruptionBudget pdb : budgets) {
      try {
        PodDisruptionBudgetStatus status = status(pdb, pods, sets);
        PodDisruptionBudgetStatus old = pdb.getStatus();
        if (old != null
            && Objects.equals(old.getDisruptionsAllowed(), status.getDisruptionsAllowed())
            && Objects.equals(old.getCurrentHealthy(), status.getCurrentHealthy())
            && Objects.equals(old.getDesiredHealthy(), status.getDesiredHealthy())
            && Objects.equals(old.getExpectedPods(), status.getExpectedPods())
            && Objects.equals(old.getObservedGeneration(), status.getObservedGeneration())) {
          continue;
        }
        if (old != null && old.getConditions() != null) {
          old.getConditions().stream()
              .filter(
                  c ->
                      "DisruptionAllowed".equals(c.getType())
                          && c.getStatus().equals(status.getConditions().get(0).getStatus()))
              .findFirst()
              .ifPresent(
                  c ->
                      status
                          .getConditions()
                          .get(0)
                          .setLastTransitionTime(c.getLastTransitionTime()));
        }
        pdb.setStatus(status);
        client.policy().v1().podDisruptionBudget().resource(pdb).updateStatus();
      } catch (KubernetesClientException e) {
        log.debug("budget {} not updated yet: {}", pdb.getMetadata().getName(), e.getMessage());
      }
    }
  }

  static PodDisruptionBudgetStatus status(
      PodDisruptionBudget pdb, List<Pod> pods, Map<String, StatefulSet> sets) {
    String ns = pdb.getMetadata().getNamespace();
    int selected = 0;
    int healthy = 0;
    Map<String, Integer> controllers = new HashMap<>();
    int uncontrolled = 0;
    for (Pod p : pods) {
      if (!ns.equals(p.getMetadata().getNamespace())
          || !Selectors.matches(pdb.getSpec().getSelector(), p.getMetadata().getLabels())) {
        continue;
      }
      selected++;
      if (p.getMetadata().getDeletionTimestamp() == null && ready(p)) {
        healthy++;
      }
      StatefulSet owner = null;
      for (OwnerReference ref : p.getMetadata().getOwnerReferences()) {
        if (Boolean.TRUE.equals(ref.getController())) {
          owner = sets.get(ns + "/" + ref.getUid());
        }
      }
      if (owner == null) {
        uncontrolled++;
      } else {
        controllers.put(
            owner.getMetadata().getUid(),
            owner.getSpec().getReplicas() == null ? 1 : owner.getSpec().getReplicas());
      }
    }
    IntOrString min = pdb.getSpec().getMinAvailable();
    IntOrString max = pdb.getSpec().getMaxUnavailable();
    int expected;
    int desired;
    if (min != null && min.getIntVal() != null) {
      expected = selected;
      desired = min.getIntVal();
    } else {
      expected = uncontrolled + controllers.values().stream().mapToInt(Integer::intValue).sum();
      if (min != null) {
        desired = scaled(min, expected);
      } else if (max != null) {
        desired = Math.max(0, expected - scaled(max, expected));
      } else {
        desired = expected;
      }
    }
    int allowed = Math.max(0, healthy - desired);
    return new PodDisruptionBudgetStatusBuilder()
        .withObservedGeneration(
            pdb.getMetadata().getGeneration() == null ? 0L : pdb.getMetadata().getGeneration())
        .withCurrentHealthy(healthy)
        .withDesiredHealthy(desired)
        .withExpectedPods(expected)
        .withDisruptionsAllowed(allowed)
        .addToConditions(
            new ConditionBuilder()
                .withType("DisruptionAllowed")
                .withStatus(allowed > 0 ? "True" : "False")
                .withReason(allowed > 0 ? "SufficientPods" : "InsufficientPods")
                .withMessage("")
                .withObservedGeneration(pdb.getMetadata().getGeneration())
                .withLastTransitionTime(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())
                .build())
        .build();
  }

  /** An int-or-percent of {@code total}, a percentage rounded up. */
  static int scaled(IntOrString v, int total) {
    if (v.getIntVal() != null) {
      return v.getIntVal();
    }
    String s = v.getStrVal().trim();
    int percent = Integer.parseInt(s.substring(0, s.length() - 1));
    return (int) Math.ceil(total * percent / 100.0);
  }

  private static boolean ready(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
