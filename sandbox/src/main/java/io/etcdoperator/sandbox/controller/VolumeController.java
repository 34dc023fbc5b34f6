package io.etcdoperator.sandbox.controller;

import io.etcdoperator.sandbox.SandboxConfig;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Provisions claims as directories, as a dynamic provisioner with reclaim policy Delete would, and
 * binds each to a PersistentVolume of its own.
 *
 * <p>Each pass: a claim not yet bound (nor Lost) gets its directory ({@link
 * SandboxConfig#claimDir}), a PersistentVolume {@code pvc-<claim uid>} (claimRef, capacity, access
 * modes, class, reclaim policy Delete; status Bound), the {@code kubernetes.io/pvc-protection}
 * finalizer, {@code spec.volumeName}, and status Bound with the requested capacity. What the volume
 * is depends on the claim's StorageClass: a class of the {@value #LOCAL_PROVISIONER} provisioner
 * ({@code WaitForFirstConsumer}) makes a local volume, provisioned only once the scheduler has
 * annotated the claim with the node of its first pod ({@code volume.kubernetes.io/selected-node};
 * until then the claim is Pending), whose PV has required node affinity {@code
 * kubernetes.io/hostname In [node]} and {@code spec.local.path}; every other class (and an unknown
 * one) makes a network volume, a CSI volume with no node affinity whose directory any node mounts.
 *
 * <p>A claim marked for deletion keeps its finalizer while a pod that is not finished uses it (as
 * the real protection controller does); then the finalizer is removed and the claim disappears. A
 * PersistentVolume whose claim is gone is deleted with its directory (reclaim policy Delete), and
 * so are directories of claims that no longer exist. A bound claim whose PersistentVolume is gone
 * (a node's local volumes die with it, see {@link #deleteLocalVolumes}) gets status phase Lost, and
 * stays so.
 *
 * <p>Expansion: a bound claim whose storage request is above its {@code status.capacity} (the API
 * server let it grow only if its StorageClass allows expansion) is grown, as a CSI driver that
 * expands online does: the new capacity is reported on the claim and its volume, the pod using it
 * keeps running.
 */
public final class VolumeController extends Controller {
  static final String PROTECTION = "kubernetes.io/pvc-protection";

  /** The provisioner of the network-attached default class. */
  public static final String NETWORK_PROVISIONER = "sandbox.etcd-operator.io/directory";

  /** The provisioner of node-local volumes. */
  public static final String LOCAL_PROVISIONER = "sandbox.etcd-operator.io/local";

  static final String PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
  private final SandboxConfig config;

  public VolumeController(KubernetesClient client, SandboxConfig config) {
    super(client, "volume-controller", config.resync());
    this.config = config;
  }

  @Override
  public void start() {
    this.<PersistentVolumeClaim>watch(
        w -> client.persistentVolumeClaims().inAnyNamespace().watch(w));
    this.<Pod>watch(w -> client.pods().inAnyNamespace().watch(w));
    super.start();
  }

  @Override
  protected void reconcile() {
    List<PersistentVolumeClaim> claims =
        client.persistentVolumeClaims().inAnyNamespace().list().getItems();
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
    List<Pod> pods = null;
    List<Path> keep = new ArrayList<>();
    Set<String> uids = new HashSet<>();
    for (PersistentVolumeClaim c : claims) {
      Path dir = config.claimDir(c);
      keep.add(dir);
      uids.add(c.getMetadata().getUid());
      try {
        if (c.getMetadata().getDeletionTimestamp() != null) {
          if (pods == null) {
            pods = client.pods().inAnyNamespace().list().getItems();
          }
          if (!inUse(c, pods) && c.getMetadata().getFinalizers().contains(PROTECTION)) {
            client
                .persistentVolumeClaims()
                .inNamespace(c.getMetadata().getNamespace())
                .withName(c.getMetadata().getName())
                .edit(
                    x -> {
                      x.getMetadata().getFinalizers().remove(PROTECTION);
                      return x;
                    });
          }
          continue;
        }
        String phase = c.getStatus() == null ? null : c.getStatus().getPhase();
        if ("Lost".equals(phase)) {
          continue;
        }
        String volumeName = c.getSpec().getVolumeName();
        if ("Bound".equals(phase)) {
          PersistentVolume pv = volumeName == null ? null : volumes.get(volumeName);
          if (pv == null) {
            lost(c, volumeName);
          } else {
            grow(c, pv);
          }
          continue;
        }
        StorageClass cls = classes.get(c.getSpec().getStorageClassName());
        boolean local = cls != null && LOCAL_PROVISIONER.equals(cls.getProvisioner());
        String node =
            c.getMetadata().getAnnotations() == null
                ? null
                : c.getMetadata().getAnnotations().get(Scheduler.SELECTED_NODE);
        if (local && node == null) {
          if (phase == null) {
            c.setStatus(new PersistentVolumeClaimStatusBuilder().withPhase("Pending").build());
            client.persistentVolumeClaims().resource(c).updateStatus();
          }
          continue;
        }
        provision(c, cls, local ? node : null, dir, volumes.get("pvc-" + c.getMetadata().getUid()));
      } catch (IOException | KubernetesClientException e) {
        log.debug("claim {} not provisioned yet: {}", c.getMetadata().getName(), e.getMessage());
      }
    }
    for (PersistentVolume pv : volumes.values()) {
      if (ours(pv)
          && pv.getSpec().getClaimRef() != null
          && !uids.contains(pv.getSpec().getClaimRef().getUid())) {
        deleteVolume(pv);
      }
    }
    deleteOrphanDirectories(keep);
  }

  private void provision(
      PersistentVolumeClaim c, StorageClass cls, String node, Path dir, PersistentVolume existing)
      throws IOException {
    Files.createDirectories(dir);
    Map<String, Quantity> requested =
        c.getSpec().getResources() == null || c.getSpec().getResources().getRequests() == null
            ? Map.of()
            : c.getSpec().getResources().getRequests();
    String name = "pvc-" + c.getMetadata().getUid();
    if (existing == null) {
      PersistentVolumeBuilder pv =
          new PersistentVolumeBuilder()
              .withNewMetadata()
              .withName(name)
              .addToAnnotations(
                  PROVISIONED_BY, node == null ? NETWORK_PROVISIONER : LOCAL_PROVISIONER)
              .addToFinalizers("kubernetes.io/pv-protection")
              .endMetadata()
              .withNewSpec()
              .withCapacity(requested)
              .withAccessModes(c.getSpec().getAccessModes())
              .withStorageClassName(c.getSpec().getStorageClassName())
              .withPersistentVolumeReclaimPolicy("Delete")
              .withVolumeMode("Filesystem")
              .withNewClaimRef()
              .withApiVersion("v1")
              .withKind("PersistentVolumeClaim")
              .withNamespace(c.getMetadata().getNamespace())
              .withName(c.getMetadata().getName())
              .withUid(c.getMetadata().getUid())
              .endClaimRef()
              .endSpec();
      if (node == null) {
        pv.editSpec()
            .withNewCsi()
            .withDriver(cls == null ? NETWORK_PROVISIONER : cls.getProvisioner())
            .withVolumeHandle(dir.toString())
            .endCsi()
            .endSpec();
      } else {
        pv.editSpec()
            .withNewLocal()
            .withPath(dir.toString())
            .endLocal()
            .withNewNodeAffinity()
            .withNewRequired()
            .addNewNodeSelectorTerm()
            .addNewMatchExpression()
            .withKey("kubernetes.io/hostname")
            .withOperator("In")
            .withValues(node)
            .endMatchExpression()
            .endNodeSelectorTerm()
            .endRequired()
            .endNodeAffinity()
            .endSpec();
      }
      existing = client.persistentVolumes().resource(pv.build()).create();
      existing.setStatus(new PersistentVolumeStatusBuilder().withPhase("Bound").build());
      client.persistentVolumes().resource(existing).updateStatus();
      log.info(
          "claim {}/{} bound to {} ({})",
          c.getMetadata().getNamespace(),
          c.getMetadata().getName(),
          name,
          node == null ? "network" : "local on " + node);
    }
    PersistentVolumeClaim bound =
        client
            .persistentVolumeClaims()
            .inNamespace(c.getMetadata().getNamespace())
            .withName(c.getMetadata().getName())
            .edit(
                x -> {
                  if (!x.getMetadata().getFinalizers().contains(PROTECTION)) {
                    x.getMetadata().getFinalizers().add(PROTECTION);
                  }
                  x.getMetadata().getAnnotations().put("pv.kubernetes.io/bind-completed", "yes");
                  x.getMetadata()
                      .getAnnotations()
                      .put("pv.kubernetes.io/bound-by-controller", "yes");
                  x.getMetadata()
                      .getAnnotations()
                      .put(
                          "volume.kubernetes.io/storage-provisioner",
                          node == null ? NETWORK_PROVISIONER : LOCAL_PROVISIONER);
                  x.getSpec().setVolumeName(name);
                  return x;
                });
    bound.setStatus(
        new PersistentVolumeClaimStatusBuilder()
            .withPhase("Bound")
            .withAccessModes(c.getSpec().getAccessModes())
            .withCapacity(requested)
            .build());
    client.persistentVolumeClaims().resource(bound).updateStatus();
  }

  private void lost(PersistentVolumeClaim c, String volumeName) {
    log.info(
        "claim {}/{} is Lost: its volume {} is gone",
        c.getMetadata().getNamespace(),
        c.getMetadata().getName(),
        volumeName);
    c.getStatus().setPhase("Lost");
    client.persistentVolumeClaims().resource(c).updateStatus();
  }

  private static boolean ours(PersistentVolume pv) {
    String by =
        pv.getMetadata().getAnnotations() == null
            ? null
            : pv.getMetadata().getAnnotations().get(PROVISIONED_BY);
    return NETWORK_PROVISIONER.equals(by) || LOCAL_PROVISIONER.equals(by);
  }

  /** The data directory of one of our volumes. */
  private static Path directory(PersistentVolume pv) {
    if (pv.getSpec().getLocal() != null) {
      return Path.of(pv.getSpec().getLocal().getPath());
    }
    if (pv.getSpec().getCsi() != null) {
      return Path.of(pv.getSpec().getCsi().getVolumeHandle());
    }
    return null;
  }

  private void deleteVolume(PersistentVolume pv) {
    Path dir = directory(pv);
    if (dir != null && dir.startsWith(config.claimsDir())) {
      deleteTree(dir);
    }
    try {
      client
          .persistentVolumes()
          .withName(pv.getMetadata().getName())
          .edit(
              x -> {
                x.getMetadata().getFinalizers().remove("kubernetes.io/pv-protection");
                return x;
              });
      client.persistentVolumes().withName(pv.getMetadata().getName()).delete();
      log.info("volume {} deleted with its data", pv.getMetadata().getName());
    } catch (KubernetesClientException e) {
      log.debug("volume {} not deleted yet: {}", pv.getMetadata().getName(), e.getMessage());
    }
  }

  /**
   * A node is gone: its local volumes (PersistentVolumes of the local provisioner whose node
   * affinity names it) are deleted with their data; their claims become Lost at the next pass.
   * Network volumes are kept. Returns the volumes deleted.
   */
  public List<String> deleteLocalVolumes(String node) {
    List<String> deleted = new ArrayList<>();
    for (PersistentVolume pv : client.persistentVolumes().list().getItems()) {
      if (pv.getSpec().getLocal() == null
          || !ours(pv)
          || pv.getSpec().getNodeAffinity() == null
          || pv.getSpec().getNodeAffinity().getRequired() == null) {
        continue;
      }
      boolean onNode =
          pv.getSpec().getNodeAffinity().getRequired().getNodeSelectorTerms().stream()
              .flatMap(t -> t.getMatchExpressions().stream())
              .anyMatch(
                  e ->
                      "kubernetes.io/hostname".equals(e.getKey())
                          && e.getValues() != null
                          && e.getValues().contains(node));
      if (onNode) {
        deleteVolume(pv);
        deleted.add(pv.getMetadata().getName());
      }
    }
    trigger();
    return deleted;
  }

  /**
   * Reports the requested size as the capacity of a bound claim asked to grow, and its volume's.
   */
  private void grow(PersistentVolumeClaim c, PersistentVolume pv) {
    Quantity requested =
        c.getSpec().getResources() == null || c.getSpec().getResources().getRequests() == null
            ? null
            : c.getSpec().getResources().getRequests().get("storage");
    Quantity capacity =
        c.getStatus().getCapacity() == null ? null : c.getStatus().getCapacity().get("storage");
    if (requested == null
        || capacity != null
            && requested.getNumericalAmount().compareTo(capacity.getNumericalAmount()) <= 0) {
      return;
    }
    log.info(
        "claim {} grows from {} to {}",
        c.getMetadata().getName(),
        capacity == null ? "?" : capacity.toString(),
        requested);
    c.getStatus().setCapacity(new HashMap<>(c.getStatus().getCapacity()));
    c.getStatus().getCapacity().put("storage", requested);
    client
        .persistentVolumes()
        .withName(pv.getMetadata().getName())
        .edit(
            x -> {
              x.getSpec().setCapacity(new HashMap<>(x.getSpec().getCapacity()));
              x.getSpec().getCapacity().put("storage", requested);
              return x;
            });
    client.persistentVolumeClaims().resource(c).updateStatus();
  }

  private static boolean inUse(PersistentVolumeClaim c, List<Pod> pods) {
    for (Pod p : pods) {
      if (!p.getMetadata().getNamespace().equals(c.getMetadata().getNamespace())
          || p.getStatus() != null
              && ("Succeeded".equals(p.getStatus().getPhase())
                  || "Failed".equals(p.getStatus().getPhase()))) {
        continue;
      }
      if (p.getSpec().getVolumes() != null
          && p.getSpec().getVolumes().stream()
              .anyMatch(
                  v ->
                      v.getPersistentVolumeClaim() != null
                          && c.getMetadata()
                              .getName()
                              .equals(v.getPersistentVolumeClaim().getClaimName()))) {
        return true;
      }
    }
    return false;
  }

  private void deleteOrphanDirectories(List<Path> keep) {
    Path root = config.claimsDir();
    if (!Files.isDirectory(root)) {
      return;
    }
    try (Stream<Path> namespaces = Files.list(root)) {
      for (Path ns : namespaces.toList()) {
        try (Stream<Path> dirs = Files.list(ns)) {
          for (Path d : dirs.toList()) {
            if (!keep.contains(d)) {
              deleteTree(d);
            }
          }
        }
      }
    } catch (IOException e) {
      log.debug("claim directories not swept: {}", e.getMessage());
    }
  }

  static void deleteTree(Path root) {
    try (Stream<Path> s = Files.walk(root)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }
}
