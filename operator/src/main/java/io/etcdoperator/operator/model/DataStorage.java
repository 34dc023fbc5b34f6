package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EmbeddedObjectMetadata;
import io.etcdoperator.api.v1alpha1.EmbeddedPersistentVolumeClaim;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.api.v1alpha1.StorageSpec;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetPersistentVolumeClaimRetentionPolicy;
import io.fabric8.kubernetes.api.model.apps.StatefulSetPersistentVolumeClaimRetentionPolicyBuilder;
import java.util.List;
import java.util.Optional;

/**
 * Each member's data volume, named {@value Names#DATA_VOLUME}: by default a 4Gi ReadWriteOnce claim
 * per member that outlives its pod; an emptyDir that dies with the pod when {@code
 * spec.storage.emptyDir} is set.
 */
final class DataStorage {
  static final String DEFAULT_SIZE = "4Gi";
  static final String RETAIN = "Retain";

  private DataStorage() {}

  static boolean persistent(EtcdClusterSpec spec) {
    return spec.getStorage() == null || spec.getStorage().getEmptyDir() == null;
  }

  /** The pod's data volume when it is an emptyDir; a claim template provides it otherwise. */
  static Optional<Volume> podVolume(EtcdClusterSpec spec) {
    if (persistent(spec)) {
      return Optional.empty();
    }
    EmptyDirVolumeSource emptyDir =
        Overlay.copy(spec.getStorage().getEmptyDir(), EmptyDirVolumeSource.class);
    return Optional.of(
        new VolumeBuilder().withName(Names.DATA_VOLUME).withEmptyDir(emptyDir).build());
  }

  /** The StatefulSet's claim templates: one, or none for emptyDir. */
  static List<PersistentVolumeClaim> claimTemplates(String cluster, EtcdClusterSpec spec) {
    if (!persistent(spec)) {
      return List.of();
    }
    EmbeddedPersistentVolumeClaim template =
        spec.getStorage() == null ? null : spec.getStorage().getVolumeClaimTemplate();
    EmbeddedObjectMetadata metadata = template == null ? null : template.getMetadata();
    PersistentVolumeClaimSpec claim;
    if (template == null || template.getSpec() == null) {
      claim = new PersistentVolumeClaimSpec();
      claim.setResources(
          new VolumeResourceRequirementsBuilder()
              .addToRequests("storage", new Quantity(DEFAULT_SIZE))
              .build());
    } else {
      claim = Overlay.copy(template.getSpec(), PersistentVolumeClaimSpec.class);
    }
    if (claim.getAccessModes().isEmpty()) {
      claim.setAccessModes(List.of("ReadWriteOnce"));
    }
    if (claim.getVolumeMode() == null) {
      claim.setVolumeMode("Filesystem");
    }
    return List.of(
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(Names.DATA_VOLUME)
            .withLabels(Overlay.labels(cluster, metadata))
            .withAnnotations(Overlay.annotations(metadata))
            .endMetadata()
            .withSpec(claim)
            .build());
  }

  /**
   * The StatefulSet's own claim policy: always Retain on scale-down and deletion. The operator
   * alone decides when a member's claim goes ({@link #claimPolicy}): with the StatefulSet's policy
   * set to Delete, scaling it to 0 (hibernation, a rebuild) or deleting it would delete every
   * member's data behind the operator's back.
   */
  static StatefulSetPersistentVolumeClaimRetentionPolicy retentionPolicy() {
    return new StatefulSetPersistentVolumeClaimRetentionPolicyBuilder()
        .withWhenDeleted(RETAIN)
        .withWhenScaled(RETAIN)
        .build();
  }

  /**
   * What the spec's {@code persistentVolumeClaimRetentionPolicy} asks of the operator: whenScaled
   * Delete deletes the claim of a member the operator removed from etcd on a scale-down (only
   * that); whenDeleted Delete makes the EtcdCluster the owner of its claims, so that they go with
   * it. Retain where it says nothing.
   */
  static Target.ClaimPolicy claimPolicy(EtcdClusterSpec spec) {
    StorageSpec storage = spec.getStorage();
    StatefulSetPersistentVolumeClaimRetentionPolicy given =
        storage == null ? null : storage.getPersistentVolumeClaimRetentionPolicy();
    return new Target.ClaimPolicy(
        given != null && "Delete".equals(given.getWhenScaled()),
        given != null && "Delete".equals(given.getWhenDeleted()));
  }
}
