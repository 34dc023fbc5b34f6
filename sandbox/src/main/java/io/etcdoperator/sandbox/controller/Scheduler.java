package io.etcdoperator.sandbox.controller;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The scheduler: binds every pod that has no node to one.
 *
 * <p>Each pass (on any change of pods, and every resync, which sees nodes and claims): the pods
 * without {@code spec.nodeName}, not being deleted, not finished and for the default scheduler,
 * oldest first, are placed one by one, each seeing the choices made before it in the pass. For each
 * pod, its claims are looked at first, as the VolumeBinding plugin does: a missing or deleting
 * claim, an unbound claim whose class binds at once ({@code Immediate}: the provisioner has not
 * bound it yet), or a claim whose volume is gone keep the pod Pending with that message; a bound
 * claim whose PersistentVolume has node affinity allows only the nodes it names; an unbound claim
 * of a {@code WaitForFirstConsumer} class allows any node, and once the node is chosen it is
 * annotated {@code volume.kubernetes.io/selected-node} for the provisioner. Then {@link Placement}
 * picks the node and the pod is bound through the {@code binding} subresource (which sets
 * PodScheduled True). A pod that cannot be placed gets PodScheduled False, reason {@code
 * Unschedulable}, the real scheduler's message, and a FailedScheduling Event, both written only
 * when the message changes; later passes try it again.
 */
public final class Scheduler extends Controller {
  public static final String SELECTED_NODE = "volume.kubernetes.io/selected-node";
  private final Map<String, String> reported = new HashMap<>();

  public Scheduler(KubernetesClient client, Duration resync) {
    super(client, "scheduler", resync);
  }

  @Override
  public void start() {
    this.<Pod>watch(w -> client.pods().inAnyNamespace().watch(w));
    // A pod waits for its claims to be bound: their binding must wake the scheduler, not the next
    // resync (a whole resync period of every new cluster's bootstrap). Nodes: the resync.
    this.<PersistentVolumeClaim>watch(
        w -> client.persistentVolumeClaims().inAnyNamespace().watch(w));
    super.start();
  }

  @Override
  protected void reconcile() {
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    List<Pod> pending = new ArrayList<>();
    List<Pod> bound = new ArrayList<>();
    for (Pod p : pods) {
      if (finished(p)) {
        continue;
      }
      if (p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty()) {
        bound.add(p);
      } else if (p.getMetadata().getDeletionTimestamp() == null
          && (p.getSpec().getSchedulerName() == null
              || "default-scheduler".equals(p.getSpec().getSchedulerName()))) {
        pending.add(p);
      }
    }
    if (pending.isEmpty()) {
      reported.clear();
      return;
    }
    List<Node> nodes = client.nodes().list().getItems();
    nodes.sort(Comparator.comparing(n -> n.getMetadata().getName()));
    Map<String, PersistentVolumeClaim> claims = new HashMap<>();
    for (PersistentVolumeClaim c :
        client.persistentVolumeClaims().inAnyNamespace().list().getItems()) {
      claims.put(c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(), c);
    }
    Map<String, PersistentVolume> volumes = new HashMap<>();
    client
        .persistentVolumes()
        .list()
        .getItems()
        .forEach(v -> volumes.put(v.getMetadata().getName(), v));
    Map<String, StorageClass> classes = new HashMap<>();
    client
        .storage()
        .v1()
        .storageClasses()
        .list()
        .getItems()
        .forEach(c -> classes.put(c.getMetadata().getName(), c));
    pending.sort(
        Comparator.comparing((Pod p) -> String.valueOf(p.getMetadata().getCreationTimestamp()))
            .thenComparing(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()));
    for (Pod pod : pending) {
      String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
      try {
        Volumes v = volumes(pod, nodes, claims, volumes, classes);
        Placement.Result r =
            v.problem != null
                ? Placement.Result.none(
                    "0/" + nodes.size() + " nodes are available: " + v.problem + ".")
                : Placement.place(pod, nodes, bound, v.allowed);
        if (r.node() == null) {
          unschedulable(pod, r.message());
          continue;
        }
        for (PersistentVolumeClaim c : v.toSelect) {
          client
              .persistentVolumeClaims()
              .inNamespace(c.getMetadata().getNamespace())
              .withName(c.getMetadata().getName())
              .edit(
                  x -> {
                    x.getMetadata().getAnnotations().put(SELECTED_NODE, r.node());
                    return x;
                  });
        }
        client
            .bindings()
            .inNamespace(pod.getMetadata().getNamespace())
            .resource(
                new BindingBuilder()
                    .withNewMetadata()
                    .withName(pod.getMetadata().getName())
                    .withNamespace(pod.getMetadata().getNamespace())
                    .withUid(pod.getMetadata().getUid())
                    .endMetadata()
                    .withNewTarget()
                    .withApiVersion("v1")
                    .withKind("Node")
                    .withName(r.node())
                    .endTarget()
                    .build())
            .create();
        reported.remove(key);
        pod.getSpec().setNodeName(r.node());
        bound.add(pod);
        log.info("pod {} bound to {}", key, r.node());
        event(pod, "Normal", "Scheduled", "Successfully assigned " + key + " to " + r.node());
      } catch (KubernetesClientException e) {
        log.debug("pod {} not scheduled yet: {}", key, e.getMessage());
      }
    }
  }

  private static boolean finished(Pod p) {
    return p.getStatus() != null
        && ("Succeeded".equals(p.getStatus().getPhase())
            || "Failed".equals(p.getStatus().getPhase()));
  }

  /** What a pod's claims allow: a problem that keeps it Pending, or nodes per bound volume. */
  static final class Volumes {
    String problem;
    final List<List<String>> allowed = new ArrayList<>();
    final List<PersistentVolumeClaim> toSelect = new ArrayList<>();
  }

  static Volumes volumes(
      Pod pod,
      List<Node> nodes,
      Map<String, PersistentVolumeClaim> claims,
      Map<String, PersistentVolume> pvs,
      Map<String, StorageClass> classes) {
    Volumes out = new Volumes();
    if (pod.getSpec().getVolumes() == null) {
      return out;
    }
    for (Volume vol : pod.getSpec().getVolumes()) {
      if (vol.getPersistentVolumeClaim() == null) {
        continue;
      }
      String name = vol.getPersistentVolumeClaim().getClaimName();
      PersistentVolumeClaim c = claims.get(pod.getMetadata().getNamespace() + "/" + name);
      if (c == null) {
        out.problem = "persistentvolumeclaim \"" + name + "\" not found";
        return out;
      }
      if (c.getMetadata().getDeletionTimestamp() != null) {
        out.problem = "persistentvolumeclaim \"" + name + "\" is being deleted";
        return out;
      }
      String volumeName = c.getSpec().getVolumeName();
      if (volumeName != null && !volumeName.isEmpty()) {
        PersistentVolume pv = pvs.get(volumeName);
        if (pv == null) {
          out.problem =
              "persistentvolumeclaim \""
                  + name
                  + "\" bound to non-existent persistentvolume \""
                  + volumeName
                  + "\"";
          return out;
        }
        if (pv.getSpec().getNodeAffinity() != null
            && pv.getSpec().getNodeAffinity().getRequired() != null) {
          List<String> ok = new ArrayList<>();
          for (Node n : nodes) {
            for (NodeSelectorTerm t :
                pv.getSpec().getNodeAffinity().getRequired().getNodeSelectorTerms()) {
              if (Placement.termMatchesNode(t, n)) {
                ok.add(n.getMetadata().getName());
                break;
              }
            }
          }
          out.allowed.add(ok);
        }
        continue;
      }
      StorageClass cls = classes.get(c.getSpec().getStorageClassName());
      if (cls == null || !"WaitForFirstConsumer".equals(cls.getVolumeBindingMode())) {
        out.problem = "pod has unbound immediate PersistentVolumeClaims";
        return out;
      }
      String selected =
          c.getMetadata().getAnnotations() == null
              ? null
              : c.getMetadata().getAnnotations().get(SELECTED_NODE);
      if (selected != null) {
        out.allowed.add(List.of(selected));
      } else {
        out.toSelect.add(c);
      }
    }
    return out;
  }

  private void unschedulable(Pod pod, String message) {
    String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    PodCondition old = condition(pod.getStatus());
    if (Objects.equals(reported.get(key), message)
        && old != null
        && message.equals(old.getMessage())) {
      return;
    }
    Pod update =
        client
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .get();
    if (update == null
        || !update.getMetadata().getUid().equals(pod.getMetadata().getUid())
        || update.getSpec().getNodeName() != null) {
      return;
    }
    PodStatus st = update.getStatus() == null ? new PodStatus() : update.getStatus();
    List<PodCondition> conditions = new ArrayList<>();
    if (st.getConditions() != null) {
      st.getConditions().stream()
          .filter(c -> !"PodScheduled".equals(c.getType()))
          .forEach(conditions::add);
    }
    PodCondition prior = condition(st);
    conditions.add(
        new PodConditionBuilder()
            .withType("PodScheduled")
            .withStatus("False")
            .withReason("Unschedulable")
            .withMessage(message)
            .withLastTransitionTime(
                prior != null
                        && "False".equals(prior.getStatus())
                        && prior.getLastTransitionTime() != null
                    ? prior.getLastTransitionTime()
                    : Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())
            .build());
    st.setConditions(conditions);
    if (st.getPhase() == null) {
      st.setPhase("Pending");
    }
    update.setStatus(st);
    client.pods().resource(update).updateStatus();
    if (!message.equals(reported.put(key, message))) {
      log.info("pod {} unschedulable: {}", key, message);
      event(pod, "Warning", "FailedScheduling", message);
    }
  }

  private static PodCondition condition(PodStatus st) {
    if (st == null || st.getConditions() == null) {
      return null;
    }
    return st.getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  private void event(Pod pod, String type, String reason, String message) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      client
          .v1()
          .events()
          .inNamespace(pod.getMetadata().getNamespace())
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withGenerateName(pod.getMetadata().getName() + ".")
                  .withNamespace(pod.getMetadata().getNamespace())
                  .endMetadata()
                  .withNewInvolvedObject()
                  .withApiVersion("v1")
                  .withKind("Pod")
                  .withName(pod.getMetadata().getName())
                  .withNamespace(pod.getMetadata().getNamespace())
                  .withUid(pod.getMetadata().getUid())
                  .endInvolvedObject()
                  .withType(type)
                  .withReason(reason)
                  .withMessage(message)
                  .withNewSource("default-scheduler", null)
                  .withReportingComponent("default-scheduler")
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      log.debug("event not recorded: {}", e.getMessage());
    }
  }
}
