package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** PodDisruptionBudget metadata and the two budget fields a user may set. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EmbeddedPodDisruptionBudget {
  private EmbeddedObjectMetadata metadata;
  private PodDisruptionBudgetSpec spec;

  public EmbeddedObjectMetadata getMetadata() {
    return metadata;
  }

  public void setMetadata(EmbeddedObjectMetadata metadata) {
    this.metadata = metadata;
  }

  public PodDisruptionBudgetSpec getSpec() {
    return spec;
  }

  public void setSpec(PodDisruptionBudgetSpec spec) {
    this.spec = spec;
  }
}
