package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LocalObjectReference;

/** Which cluster to back up, and where to (aenix v1alpha1). Immutable. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self == oldSelf", message = "EtcdBackup spec is immutable")
public class EtcdBackupSpec {
  @Required
  @JsonPropertyDescription("The EtcdCluster, in the same namespace.")
  private LocalObjectReference clusterRef;

  @Required
  @JsonPropertyDescription("Where the snapshot goes: exactly one of s3 or pvc.")
  private BackupDestination destination;

  public LocalObjectReference getClusterRef() {
    return clusterRef;
  }

  public void setClusterRef(LocalObjectReference clusterRef) {
    this.clusterRef = clusterRef;
  }

  public BackupDestination getDestination() {
    return destination;
  }

  public void setDestination(BackupDestination destination) {
    this.destination = destination;
  }
}
