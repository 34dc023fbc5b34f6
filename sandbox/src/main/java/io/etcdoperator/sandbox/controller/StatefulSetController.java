package io.etcdoperator.sandbox.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The StatefulSet controller, one pass over every StatefulSet at a time.
 *
 * <p>For each StatefulSet not being deleted, with ordinals {@code [start, start + replicas)}:
 *
 * <ol>
 *   <li>Revision: the update revision is {@code <name>-<hash of the pod template>}; the current
 *       revision is the one in status (the update revision when there is none). Templates are kept
 *       per revision in memory so that pods below a RollingUpdate partition are recreated at the
 *       current revision.
 *   <li>A pod of the set that Failed or Succeeded is deleted (it is recreated next pass).
 *   <li>Missing pods are created in ordinal order, each after its claims: for every {@code
 *       volumeClaimTemplate} a claim {@code <template>-<set>-<ordinal>} is created when absent (and
 *       the pod waits while a claim of that name is still being deleted); the pod gets the template
 *       with hostname = its name, subdomain = serviceName, the claim volumes, the labels {@code
 *       statefulset.kubernetes.io/pod-name}, {@code apps.kubernetes.io/pod-index}, {@code
 *       controller-revision-hash} and the set as controlling owner. With Parallel all are created
 *       at once; with OrderedReady one at a time, and only when every lower ordinal is Running and
 *       Ready.
 *   <li>Pods with an ordinal out of range are deleted, highest first (Parallel: all at once;
 *       OrderedReady: one at a time while the rest are Running and Ready).
 *   <li>RollingUpdate: when every pod exists and is Running and Ready, the highest ordinal at or
 *       above the partition whose revision is not the update revision is deleted (it comes back at
 *       the update revision). OnDelete: pods are replaced only when someone deletes them.
 *   <li>persistentVolumeClaimRetentionPolicy, through owner references that the garbage collector
 *       acts on, as the real controller does: whenDeleted=Delete makes the set an owner of its
 *       claims; whenScaled=Delete makes a condemned pod the owner of its claims before the pod is
 *       deleted (and takes that reference back if the ordinal returns into range).
 *   <li>Status: replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas,
 *       currentRevision (moves to the update revision once every pod runs it), updateRevision,
 *       observedGeneration; written only when it changed.
 * </ol>
 *
 * <p>Orphan pods of the set's name pattern that its selector matches are adopted (the set becomes
 * their controlling owner), as after {@code kubectl delete statefulset --cascade=orphan} and a new
 * set of the same name.
 *
 * <p>Not done: ControllerRevision objects, minReadySeconds, maxUnavailable above 1, adoption of
 * orphan claims (claims carry no owner unless a retention policy says Delete).
 */
public final class StatefulSetController extends Controller {
  private final Map<String, String> lastRefusal = new ConcurrentHashMap<>();
  static final String REVISION_LABEL = "controller-revision-hash";
  static final String POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
  static final String POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";
  private static final ObjectMapper CANONICAL =
      Serialization.jsonMapper()
          .copy()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private final Map<String, PodTemplateSpec> templates = new ConcurrentHashMap<>();

  public StatefulSetController(KubernetesClient client, Duration resync) {
    super(client, "statefulset-controller", resync);
  }

  @Override
  public void start() {
    this.<StatefulSet>watch(w -> client.apps().statefulSets().inAnyNamespace().watch(w));
    this.<Pod>watch(w -> client.pods().inAnyNamespace().watch(w));
    this.<PersistentVolumeClaim>watch(
        w -> client.persistentVolumeClaims().inAnyNamespace().watch(w));
    super.start();
  }

  @Override
  protected void reconcile() {
    List<StatefulSet> sets = client.apps().statefulSets().inAnyNamespace().list().getItems();
    if (sets.isEmpty()) {
      return;
    }
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    List<PersistentVolumeClaim> claims =
        client.persistentVolumeClaims().inAnyNamespace().list().getItems();
    syncEach(sets, s -> sync(s, pods, claims));
  }

  private void sync(StatefulSet set, List<Pod> allPods, List<PersistentVolumeClaim> allClaims) {
    String ns = set.getMetadata().getNamespace();
    String name = set.getMetadata().getName();
    var spec = set.getSpec();
    String updateRevision = revision(set);
    templates.put(updateRevision, spec.getTemplate());
    StatefulSetStatus old = set.getStatus();
    String currentRevision =
        old != null && old.getCurrentRevision() != null ? old.getCurrentRevision() : updateRevision;
    int replicas = spec.getReplicas() == null ? 1 : spec.getReplicas();
    int start =
        spec.getOrdinals() != null && spec.getOrdinals().getStart() != null
            ? spec.getOrdinals().getStart()
            : 0;
    boolean parallel = "Parallel".equals(spec.getPodManagementPolicy());
    boolean onDelete =
        spec.getUpdateStrategy() != null && "OnDelete".equals(spec.getUpdateStrategy().getType());
    int partition =
        !onDelete
                && spec.getUpdateStrategy() != null
                && spec.getUpdateStrategy().getRollingUpdate() != null
                && spec.getUpdateStrategy().getRollingUpdate().getPartition() != null
            ? spec.getUpdateStrategy().getRollingUpdate().getPartition()
            : 0;

    TreeMap<Integer, Pod> pods = new TreeMap<>();
    for (Pod p : allPods) {
      if (!ns.equals(p.getMetadata().getNamespace())) {
        continue;
      }
      Integer ordinal = ordinal(name, p.getMetadata().getName());
      if (ordinal == null) {
        continue;
      }
      if (ownedBy(p, set)) {
        pods.put(ordinal, p);
      } else if (orphanSelectedBy(p, set) && stillThere(set)) {
        pods.put(
            ordinal, adopt(client.pods().inNamespace(ns).withName(p.getMetadata().getName()), set));
      }
    }
    Map<String, PersistentVolumeClaim> claims = new HashMap<>();
    for (PersistentVolumeClaim c : allClaims) {
      if (ns.equals(c.getMetadata().getNamespace())) {
        claims.put(c.getMetadata().getName(), c);
      }
    }

    // failed pods are replaced
    for (Pod p : pods.values()) {
      String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if (("Failed".equals(phase) || "Succeeded".equals(phase))
          && p.getMetadata().getDeletionTimestamp() == null) {
        delete(p);
      }
    }

    // retention policy on claims of ordinals in range
    String whenDeleted = retention(set, true);
    String whenScaled = retention(set, false);
    for (int ordinal = start; ordinal < start + replicas; ordinal++) {
      for (String claimName : claimNames(set, ordinal)) {
        PersistentVolumeClaim c = claims.get(claimName);
        if (c != null && c.getMetadata().getDeletionTimestamp() == null) {
          fixClaimOwners(c, set, "Delete".equals(whenDeleted), null);
        }
      }
    }

    // create missing pods
    for (int ordinal = start; ordinal < start + replicas; ordinal++) {
      Pod p = pods.get(ordinal);
      if (p == null) {
        if (!ensureClaims(set, ordinal, claims, "Delete".equals(whenDeleted))) {
          if (!parallel) {
            break;
          }
          continue;
        }
        String revision =
            onDelete || ordinal - start >= partition ? updateRevision : currentRevision;
        create(set, ordinal, revision, updateRevision);
        if (!parallel) {
          break;
        }
      } else if (!parallel && !runningAndReady(p)) {
        break;
      }
    }

    // delete condemned pods, highest first
    List<Integer> condemned = new ArrayList<>(pods.descendingMap().keySet());
    condemned.removeIf(o -> o >= start && o < start + replicas);
    boolean restHealthy =
        pods.entrySet().stream()
            .filter(e -> e.getKey() >= start && e.getKey() < start + replicas)
            .allMatch(e -> runningAndReady(e.getValue()));
    for (int ordinal : condemned) {
      Pod p = pods.get(ordinal);
      if (p.getMetadata().getDeletionTimestamp() != null) {
        if (!parallel) {
          break;
        }
        continue;
      }
      if (!parallel && !restHealthy) {
        break;
      }
      if ("Delete".equals(whenScaled)) {
        for (String claimName : claimNames(set, ordinal)) {
          PersistentVolumeClaim c = claims.get(claimName);
          if (c != null) {
            fixClaimOwners(c, set, "Delete".equals(whenDeleted), p);
          }
        }
      }
      delete(p);
      if (!parallel) {
        break;
      }
    }

    // rolling update
    if (!onDelete
        && condemned.isEmpty()
        && pods.size() == replicas
        && pods.values().stream()
            .allMatch(p -> runningAndReady(p) && p.getMetadata().getDeletionTimestamp() == null)) {
      for (int ordinal : pods.descendingKeySet()) {
        Pod p = pods.get(ordinal);
        if (ordinal - start >= partition && !updateRevision.equals(revisionOf(p))) {
          delete(p);
          break;
        }
      }
    }

    writeStatus(set, pods, replicas, currentRevision, updateRevision);
  }

  private void writeStatus(
      StatefulSet set,
      TreeMap<Integer, Pod> pods,
      int replicas,
      String currentRevision,
      String updateRevision) {
    int ready = 0;
    int current = 0;
    int updated = 0;
    for (Pod p : pods.values()) {
      if (ready(p)) {
        ready++;
      }
      if (currentRevision.equals(revisionOf(p))) {
        current++;
      }
      if (updateRevision.equals(revisionOf(p))) {
        updated++;
      }
    }
    if (updated == replicas && pods.size() == replicas) {
      currentRevision = updateRevision;
      current = updated;
    }
    StatefulSetStatus status =
        new StatefulSetStatusBuilder()
            .withObservedGeneration(set.getMetadata().getGeneration())
            .withReplicas(pods.size())
            .withReadyReplicas(ready)
            .withAvailableReplicas(ready)
            .withCurrentReplicas(current)
            .withUpdatedReplicas(updated)
            .withCurrentRevision(currentRevision)
            .withUpdateRevision(updateRevision)
            .withCollisionCount(0)
            .build();
    if (status.equals(set.getStatus())) {
      return;
    }
    StatefulSet copy = Serialization.clone(set);
    copy.setStatus(status);
    client.apps().statefulSets().resource(copy).updateStatus();
  }

  private boolean ensureClaims(
      StatefulSet set, int ordinal, Map<String, PersistentVolumeClaim> claims, boolean ownedBySet) {
    if (set.getSpec().getVolumeClaimTemplates() == null) {
      return true;
    }
    boolean ready = true;
    for (PersistentVolumeClaim template : set.getSpec().getVolumeClaimTemplates()) {
      String claimName =
          template.getMetadata().getName() + "-" + set.getMetadata().getName() + "-" + ordinal;
      PersistentVolumeClaim existing = claims.get(claimName);
      if (existing != null) {
        if (existing.getMetadata().getDeletionTimestamp() != null) {
          ready = false;
        }
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (template.getMetadata().getLabels() != null) {
        labels.putAll(template.getMetadata().getLabels());
      }
      if (set.getSpec().getSelector() != null
          && set.getSpec().getSelector().getMatchLabels() != null) {
        labels.putAll(set.getSpec().getSelector().getMatchLabels());
      }
      PersistentVolumeClaim claim =
          new PersistentVolumeClaimBuilder()
              .withNewMetadata()
              .withName(claimName)
              .withNamespace(set.getMetadata().getNamespace())
              .withLabels(labels)
              .withAnnotations(template.getMetadata().getAnnotations())
              .withOwnerReferences(ownedBySet ? List.of(owner(set, true)) : List.of())
              .endMetadata()
              .withSpec(Serialization.clone(template.getSpec()))
              .build();
      client.persistentVolumeClaims().resource(claim).create();
    }
    return ready;
  }

  /** Makes the claim's owner references say what the retention policy wants. */
  private void fixClaimOwners(
      PersistentVolumeClaim c, StatefulSet set, boolean ownedBySet, Pod condemnedPod) {
    List<OwnerReference> refs = new ArrayList<>();
    for (OwnerReference r : c.getMetadata().getOwnerReferences()) {
      boolean ours = r.getUid().equals(set.getMetadata().getUid()) || "Pod".equals(r.getKind());
      if (!ours) {
        refs.add(r);
      }
    }
    if (ownedBySet) {
      refs.add(owner(set, true));
    }
    if (condemnedPod != null) {
      refs.add(owner(condemnedPod, false));
    }
    if (!sameOwners(refs, c.getMetadata().getOwnerReferences())) {
      client
          .persistentVolumeClaims()
          .inNamespace(c.getMetadata().getNamespace())
          .withName(c.getMetadata().getName())
          .edit(
              x -> {
                x.getMetadata().setOwnerReferences(refs);
                return x;
              });
    }
  }

  private static boolean sameOwners(List<OwnerReference> a, List<OwnerReference> b) {
    return a.stream()
        .map(OwnerReference::getUid)
        .sorted()
        .toList()
        .equals(b.stream().map(OwnerReference::getUid).sorted().toList());
  }

  private void create(StatefulSet set, int ordinal, String revision, String updateRevision) {
    PodTemplateSpec template = templates.getOrDefault(revision, set.getSpec().getTemplate());
    if (!templates.containsKey(revision)) {
      revision = updateRevision;
    }
    String podName = set.getMetadata().getName() + "-" + ordinal;
    Map<String, String> labels = new LinkedHashMap<>();
    if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
      labels.putAll(template.getMetadata().getLabels());
    }
    labels.put(POD_NAME_LABEL, podName);
    labels.put(POD_INDEX_LABEL, String.valueOf(ordinal));
    labels.put(REVISION_LABEL, revision);
    PodSpec spec = Serialization.clone(template.getSpec());
    spec.setHostname(podName);
    spec.setSubdomain(set.getSpec().getServiceName());
    List<Volume> volumes =
        spec.getVolumes() == null ? new ArrayList<>() : new ArrayList<>(spec.getVolumes());
    if (set.getSpec().getVolumeClaimTemplates() != null) {
      for (PersistentVolumeClaim t : set.getSpec().getVolumeClaimTemplates()) {
        String volumeName = t.getMetadata().getName();
        volumes.removeIf(v -> v.getName().equals(volumeName));
        volumes.add(
            new VolumeBuilder()
                .withName(volumeName)
                .withNewPersistentVolumeClaim(
                    volumeName + "-" + set.getMetadata().getName() + "-" + ordinal, false)
                .build());
      }
    }
    spec.setVolumes(volumes);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(podName)
            .withNamespace(set.getMetadata().getNamespace())
            .withLabels(labels)
            .withAnnotations(
                template.getMetadata() == null ? null : template.getMetadata().getAnnotations())
            .withOwnerReferences(owner(set, true))
            .endMetadata()
            .withSpec(spec)
            .build();
    log.debug("creating pod {}", podName);
    try {
      client.pods().resource(pod).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403 || e.getCode() == 422) {
        failedCreate(set, podName, e);
      }
      throw e;
    }
  }

  /**
   * A pod the API server refused (Pod Security, validation): a Warning Event on the StatefulSet, as
   * its controller writes it, once per distinct refusal; the next attempt waits for the next pass
   * rather than retrying at once.
   */
  private void failedCreate(StatefulSet set, String podName, KubernetesClientException e) {
    String reason =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : e.getMessage();
    String message =
        "create Pod "
            + podName
            + " in StatefulSet "
            + set.getMetadata().getName()
            + " failed error: "
            + reason;
    String key = set.getMetadata().getUid() + "/" + podName;
    if (message.equals(lastRefusal.put(key, message))) {
      return;
    }
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      client
          .v1()
          .events()
          .inNamespace(set.getMetadata().getNamespace())
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(set.getMetadata().getName() + "." + Long.toHexString(System.nanoTime()))
                  .withNamespace(set.getMetadata().getNamespace())
                  .endMetadata()
                  .withNewInvolvedObject()
                  .withApiVersion("apps/v1")
                  .withKind("StatefulSet")
                  .withName(set.getMetadata().getName())
                  .withNamespace(set.getMetadata().getNamespace())
                  .withUid(set.getMetadata().getUid())
                  .endInvolvedObject()
                  .withType("Warning")
                  .withReason("FailedCreate")
                  .withMessage(message)
                  .withNewSource("statefulset-controller", null)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .build())
          .create();
    } catch (KubernetesClientException ignored) {
      // Events are a report
    }
  }

  private void delete(Pod p) {
    log.debug("deleting pod {}", p.getMetadata().getName());
    client
        .pods()
        .inNamespace(p.getMetadata().getNamespace())
        .withName(p.getMetadata().getName())
        .delete();
  }

  static List<String> claimNames(StatefulSet set, int ordinal) {
    List<String> out = new ArrayList<>();
    if (set.getSpec().getVolumeClaimTemplates() != null) {
      for (PersistentVolumeClaim t : set.getSpec().getVolumeClaimTemplates()) {
        out.add(t.getMetadata().getName() + "-" + set.getMetadata().getName() + "-" + ordinal);
      }
    }
    return out;
  }

  private static String retention(StatefulSet set, boolean whenDeleted) {
    var policy = set.getSpec().getPersistentVolumeClaimRetentionPolicy();
    if (policy == null) {
      return "Retain";
    }
    String v = whenDeleted ? policy.getWhenDeleted() : policy.getWhenScaled();
    return v == null ? "Retain" : v;
  }

  static String revision(StatefulSet set) {
    return set.getMetadata().getName() + "-" + templateHash(set.getSpec().getTemplate());
  }

  /** Ten hex digits of the SHA-256 of the template's JSON with its map keys in order. */
  static String templateHash(PodTemplateSpec template) {
    try {
      Object canonical = CANONICAL.convertValue(template, Object.class);
      byte[] json = CANONICAL.writeValueAsBytes(canonical);
      byte[] d = MessageDigest.getInstance("SHA-256").digest(json);
      return HexFormat.of().formatHex(d, 0, 5);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static Integer ordinal(String setName, String podName) {
    if (!podName.startsWith(setName + "-")) {
      return null;
    }
    String rest = podName.substring(setName.length() + 1);
    return rest.matches("\\d+") ? Integer.valueOf(rest) : null;
  }

  /**
   * A pod of this set's name pattern that no controller owns and whose labels the set's selector
   * matches (a StatefulSet deleted with {@code --cascade=orphan} left it): the set adopts it, as
   * the real controller does, instead of trying to create a second pod of that name.
   */
  private static boolean orphanSelectedBy(Pod p, StatefulSet set) {
    if (p.getMetadata().getDeletionTimestamp() != null
        || p.getMetadata().getOwnerReferences().stream()
            .anyMatch(r -> Boolean.TRUE.equals(r.getController()))) {
      return false;
    }
    var selector = set.getSpec().getSelector();
    Map<String, String> want =
        selector == null || selector.getMatchLabels() == null
            ? Map.of()
            : selector.getMatchLabels();
    Map<String, String> labels =
        p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
    return !want.isEmpty()
        && want.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  /**
   * Whether the set, read again now, is the same object and not being deleted: the real controller
   * checks so before it adopts, since the copy this pass works from may be older than a deletion
   * with {@code --cascade=orphan}, whose orphans it would otherwise take back under the owner that
   * is going.
   */
  private boolean stillThere(StatefulSet set) {
    StatefulSet now =
        client
            .apps()
            .statefulSets()
            .inNamespace(set.getMetadata().getNamespace())
            .withName(set.getMetadata().getName())
            .get();
    return now != null
        && Objects.equals(now.getMetadata().getUid(), set.getMetadata().getUid())
        && now.getMetadata().getDeletionTimestamp() == null;
  }

  private static boolean ownedBy(HasMetadata o, StatefulSet set) {
    return o.getMetadata().getOwnerReferences().stream()
        .anyMatch(
            r ->
                Boolean.TRUE.equals(r.getController())
                    && Objects.equals(r.getUid(), set.getMetadata().getUid()));
  }

  private static String revisionOf(Pod p) {
    return p.getMetadata().getLabels() == null
        ? null
        : p.getMetadata().getLabels().get(REVISION_LABEL);
  }

  static boolean ready(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean runningAndReady(Pod p) {
    return p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase())
        && ready(p)
        && p.getMetadata().getDeletionTimestamp() == null;
  }

  static OwnerReference owner(HasMetadata o, boolean controller) {
    return new OwnerReferenceBuilder()
        .withApiVersion(
            o.getApiVersion() != null ? o.getApiVersion() : HasMetadata.getApiVersion(o.getClass()))
        .withKind(o.getKind() != null ? o.getKind() : HasMetadata.getKind(o.getClass()))
        .withName(o.getMetadata().getName())
        .withUid(o.getMetadata().getUid())
        .withController(controller)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
