package io.etcdoperator.sandbox.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The ReplicaSet controller, one pass over every ReplicaSet at a time.
 *
 * <p>For each ReplicaSet not being deleted: its pods are those it controls (owner reference with
 * {@code controller: true} and its uid); a pod no controller owns, not terminating, whose labels
 * its selector matches, is adopted. Active pods are those not terminating and neither Failed nor
 * Succeeded. Fewer active pods than {@code replicas}: pods are created from the template, named
 * {@code <set>-<random>} (generateName), with the set as controlling owner. More: the surplus is
 * deleted, those that serve least first (unscheduled, then not running, then not ready, then the
 * newest), as the real controller ranks them. Status: replicas (active), fullyLabeledReplicas,
 * readyReplicas, availableReplicas (ready; minReadySeconds is not applied), observedGeneration,
 * written only when it changed.
 *
 * <p>Not done: minReadySeconds, slow-start batches of creations, expectations (a pass sees its own
 * writes through the API server's list, which in the sandbox is read-your-writes).
 */
public final class ReplicaSetController extends Controller {
  public ReplicaSetController(KubernetesClient client, Duration resync) {
    super(client, "replicaset-controller", resync);
  }

  @Override
  public void start() {
    this.<ReplicaSet>watch(w -> client.apps().replicaSets().inAnyNamespace().watch(w));
    this.<Pod>watch(w -> client.pods().inAnyNamespace().watch(w));
    super.start();
  }

  @Override
  protected void reconcile() {
    List<ReplicaSet> sets = client.apps().replicaSets().inAnyNamespace().list().getItems();
    if (sets.isEmpty()) {
      return;
    }
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    syncEach(sets, s -> sync(s, pods));
  }

  private void sync(ReplicaSet set, List<Pod> allPods) {
    String ns = set.getMetadata().getNamespace();
    List<Pod> owned = new ArrayList<>();
    for (Pod p : allPods) {
      if (!ns.equals(p.getMetadata().getNamespace())) {
        continue;
      }
      if (controlledBy(p, set)) {
        owned.add(p);
      } else if (orphan(p) && selects(set, p)) {
        owned.add(
            adopt(
                client.pods().inNamespace(ns).withName(p.getMetadata().getName()),
                (HasMetadata) set));
      }
    }
    List<Pod> active = owned.stream().filter(ReplicaSetController::active).toList();
    int replicas = set.getSpec().getReplicas() == null ? 1 : set.getSpec().getReplicas();
    if (active.size() < replicas) {
      for (int i = active.size(); i < replicas; i++) {
        create(set);
      }
    } else if (active.size() > replicas) {
      List<Pod> ranked = new ArrayList<>(active);
      ranked.sort(SERVES_LEAST_FIRST);
      for (Pod p : ranked.subList(0, active.size() - replicas)) {
        client.pods().inNamespace(ns).withName(p.getMetadata().getName()).delete();
      }
    }
    writeStatus(set, active);
  }

  /** Deletion order: unscheduled, not running, not ready, then the newest. */
  static final Comparator<Pod> SERVES_LEAST_FIRST =
      Comparator.<Pod, Boolean>comparing(p -> p.getSpec().getNodeName() != null)
          .thenComparing(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
          .thenComparing(StatefulSetController::ready)
          .thenComparing(
              (Pod p) ->
                  p.getMetadata().getCreationTimestamp() == null
                      ? ""
                      : p.getMetadata().getCreationTimestamp(),
              Comparator.reverseOrder());

  private void create(ReplicaSet set) {
    var template = set.getSpec().getTemplate();
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withGenerateName(set.getMetadata().getName() + "-")
            .withNamespace(set.getMetadata().getNamespace())
            .withLabels(template.getMetadata() == null ? null : template.getMetadata().getLabels())
            .withAnnotations(
                template.getMetadata() == null ? null : template.getMetadata().getAnnotations())
            .withOwnerReferences(StatefulSetController.owner(set, true))
            .endMetadata()
            .withSpec(Serialization.clone(template.getSpec()))
            .build();
    client.pods().resource(pod).create();
  }

  private void writeStatus(ReplicaSet set, List<Pod> active) {
    int ready = (int) active.stream().filter(StatefulSetController::ready).count();
    int labeled = (int) active.stream().filter(p -> selects(set, p)).count();
    ReplicaSetStatus status =
        new ReplicaSetStatusBuilder()
            .withReplicas(active.size())
            .withFullyLabeledReplicas(labeled)
            .withReadyReplicas(ready)
            .withAvailableReplicas(ready)
            .withObservedGeneration(set.getMetadata().getGeneration())
            .build();
    if (status.equals(set.getStatus())) {
      return;
    }
    ReplicaSet copy = Serialization.clone(set);
    copy.setStatus(status);
    client.apps().replicaSets().resource(copy).updateStatus();
  }

  static boolean active(Pod p) {
    String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
    return p.getMetadata().getDeletionTimestamp() == null
        && !"Failed".equals(phase)
        && !"Succeeded".equals(phase);
  }

  /** Not terminating, and no controller owns it. */
  static boolean orphan(HasMetadata o) {
    return o.getMetadata().getDeletionTimestamp() == null
        && o.getMetadata().getOwnerReferences().stream()
            .noneMatch(r -> Boolean.TRUE.equals(r.getController()));
  }

  static boolean controlledBy(HasMetadata o, HasMetadata owner) {
    return o.getMetadata().getOwnerReferences().stream()
        .anyMatch(
            r ->
                Boolean.TRUE.equals(r.getController())
                    && Objects.equals(r.getUid(), owner.getMetadata().getUid()));
  }

  private static boolean selects(ReplicaSet set, HasMetadata o) {
    Map<String, String> labels =
        o.getMetadata().getLabels() == null ? Map.of() : o.getMetadata().getLabels();
    return set.getSpec().getSelector() != null
        && Selectors.matches(set.getSpec().getSelector(), labels);
  }
}
