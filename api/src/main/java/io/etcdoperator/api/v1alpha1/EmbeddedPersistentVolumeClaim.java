package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;

/** The claim template of each member's data volume. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EmbeddedPersistentVolumeClaim {
  private EmbeddedObjectMetadata metadata;
  private PersistentVolumeClaimSpec spec;

  public EmbeddedObjectMetadata getMetadata() {
    return metadata;
  }

  public void setMetadata(EmbeddedObjectMetadata metadata) {
    this.metadata = metadata;
  }

  public PersistentVolumeClaimSpec getSpec() {
    return spec;
  }

  public void setSpec(PersistentVolumeClaimSpec spec) {
    this.spec = spec;
  }
}
