package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.ServiceSpec;

/** Service metadata and a ServiceSpec laid over a Service the operator builds. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EmbeddedService {
  private EmbeddedObjectMetadata metadata;
  private ServiceSpec spec;

  public EmbeddedObjectMetadata getMetadata() {
    return metadata;
  }

  public void setMetadata(EmbeddedObjectMetadata metadata) {
    this.metadata = metadata;
  }

  public ServiceSpec getSpec() {
    return spec;
  }

  public void setSpec(ServiceSpec spec) {
    this.spec = spec;
  }
}
