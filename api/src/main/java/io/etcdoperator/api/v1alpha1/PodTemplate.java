package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.PodSpec;

/** Pod metadata and a PodSpec laid over the pod the operator builds for each member. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodTemplate {
  private EmbeddedObjectMetadata metadata;
  private PodSpec spec;

  public EmbeddedObjectMetadata getMetadata() {
    return metadata;
  }

  public void setMetadata(EmbeddedObjectMetadata metadata) {
    this.metadata = metadata;
  }

  public PodSpec getSpec() {
    return spec;
  }

  public void setSpec(PodSpec spec) {
    this.spec = spec;
  }
}
