package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.apps.StatefulSetPersistentVolumeClaimRetentionPolicy;

/** Where members keep their data. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StorageSpec {
  @JsonPropertyDescription(
      "Member data in an emptyDir: lost whenever a pod is deleted or moved. For tests only. Used"
          + " in place of volumeClaimTemplate when both are set, as aenix does.")
  private EmptyDirVolumeSource emptyDir;

  @JsonPropertyDescription(
      "A PersistentVolumeClaim per member (data-<cluster>-<ordinal>); it outlives the pod.")
  private EmbeddedPersistentVolumeClaim volumeClaimTemplate;

  @JsonPropertyDescription(
      "What happens to a member's claim when the cluster scales down (whenScaled) or is deleted"
          + " (whenDeleted): Retain (default) or Delete.")
  private StatefulSetPersistentVolumeClaimRetentionPolicy persistentVolumeClaimRetentionPolicy;

  public EmptyDirVolumeSource getEmptyDir() {
    return emptyDir;
  }

  public void setEmptyDir(EmptyDirVolumeSource emptyDir) {
    this.emptyDir = emptyDir;
  }

  public EmbeddedPersistentVolumeClaim getVolumeClaimTemplate() {
    return volumeClaimTemplate;
  }

  public void setVolumeClaimTemplate(EmbeddedPersistentVolumeClaim volumeClaimTemplate) {
    this.volumeClaimTemplate = volumeClaimTemplate;
  }

  public StatefulSetPersistentVolumeClaimRetentionPolicy getPersistentVolumeClaimRetentionPolicy() {
    return persistentVolumeClaimRetentionPolicy;
  }

  public void setPersistentVolumeClaimRetentionPolicy(
      StatefulSetPersistentVolumeClaimRetentionPolicy persistentVolumeClaimRetentionPolicy) {
    this.persistentVolumeClaimRetentionPolicy = persistentVolumeClaimRetentionPolicy;
  }
}
