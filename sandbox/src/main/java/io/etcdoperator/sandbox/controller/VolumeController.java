package io.etcdoperator.sandbox.controller;

import io.etcdoperator.sandbox.SandboxConfig;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Provisions claims as directories, as a dynamic provisioner with reclaim policy Delete would.
 *
 * <p>Each pass: a claim without status phase Bound gets its directory ({@link
 * SandboxConfig#claimDir}), the {@code kubernetes.io/pvc-protection} finalizer, and status Bound
 * with the requested capacity. A claim marked for deletion keeps its finalizer while a pod that is
 * not finished uses it (as the real protection controller does); then the finalizer is removed, the
 * claim disappears and its directory is deleted. Directories of claims that no longer exist are
 * deleted too.
 *
 * <p>Expansion: a bound claim whose storage request is above its {@code status.capacity} (the API
 * server let it grow only if its StorageClass allows expansion) is grown, as a CSI driver that
 * expands online does: the new capacity is reported, the pod using it keeps running.
 */
public final class VolumeController extends Controller {
  static final String PROTECTION = "kubernetes.io/pvc-protection";
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
    List<Pod> pods = null;
    List<Path> keep = new ArrayList<>();
    for (PersistentVolumeClaim c : claims) {
      Path dir = config.claimDir(c);
      keep.add(dir);
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
        if (c.getStatus() != null && "Bound".equals(c.getStatus().getPhase())) {
          grow(c);
          continue;
        }
        if (c.getStatus() == null || !"Bound".equals(c.getStatus().getPhase())) {
          Files.createDirectories(dir);
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
                        return x;
                      });
          Map<String, Quantity> requested =
              c.getSpec().getResources() == null || c.getSpec().getResources().getRequests() == null
                  ? Map.of()
                  : c.getSpec().getResources().getRequests();
          bound.setStatus(
              new PersistentVolumeClaimStatusBuilder()
                  .withPhase("Bound")
                  .withAccessModes(c.getSpec().getAccessModes())
                  .withCapacity(requested)
                  .build());
          client.persistentVolumeClaims().resource(bound).updateStatus();
        }
      } catch (IOException | KubernetesClientException e) {
        log.debug("claim {} not provisioned yet: {}", c.getMetadata().getName(), e.getMessage());
      }
    }
    deleteOrphanDirectories(keep);
  }

  /** Reports the requested size as the capacity of a bound claim asked to grow. */
  private void grow(PersistentVolumeClaim c) {
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
    c.getStatus().setCapacity(new java.util.HashMap<>(c.getStatus().getCapacity()));
    c.getStatus().getCapacity().put("storage", requested);
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
