package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.model.Target;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the StorageClass of a cluster's claims, only while the spec asks for claims larger than
 * they are (one GET per reconcile then, none otherwise: no StorageClass informer, no watch
 * permission). An operator that may not read StorageClasses (one watching its own namespace has
 * Roles only, and StorageClasses are cluster-scoped) goes on without knowing: the API server
 * refuses to grow a claim whose class does not allow it, and that refusal is reported instead.
 */
public final class StorageClasses {
  private StorageClasses() {}

  public static Optional<StorageClassView> ofExpansion(
      KubernetesClient client, Target target, ClusterView view) {
    Optional<Target.Desired> desired = target.desired();
    if (desired.isEmpty() || !desired.get().persistentStorage()) {
      return Optional.empty();
    }
    long want = desired.get().maintenance().storageBytes();
    boolean growing =
        view.statefulSet().map(s -> s.claimBytes() > 0 && s.claimBytes() < want).orElse(false)
            || view.claims().values().stream()
                .anyMatch(c -> c.requestedBytes() > 0 && c.requestedBytes() < want);
    if (!growing) {
      return Optional.empty();
    }
    Optional<String> name =
        view.claims().values().stream()
            .map(ClaimView::storageClass)
            .filter(Objects::nonNull)
            .filter(n -> !n.isEmpty())
            .findFirst();
    if (name.isEmpty()) {
      return Optional.empty();
    }
    try {
      StorageClass cls = client.storage().v1().storageClasses().withName(name.get()).get();
      if (cls == null) {
        return Optional.of(
            new StorageClassView(name.get(), Optional.empty(), "StorageClass not found"));
      }
      return Optional.of(
          new StorageClassView(
              name.get(), Optional.of(Boolean.TRUE.equals(cls.getAllowVolumeExpansion())), ""));
    } catch (KubernetesClientException e) {
      return Optional.of(
          new StorageClassView(
              name.get(),
              Optional.empty(),
              "cannot read StorageClass "
                  + name.get()
                  + ": "
                  + e.getCode()
                  + " "
                  + e.getMessage()));
    }
  }
}
