package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** How a new cluster starts (aenix v1alpha1): empty, or from a snapshot. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BootstrapSpec {
  @JsonPropertyDescription(
      "Start every member from this snapshot instead of empty (a new cluster ID, this cluster's"
          + " member names and peer URLs). Read only while the cluster has never formed.")
  private RestoreSpec restore;

  public RestoreSpec getRestore() {
    return restore;
  }

  public void setRestore(RestoreSpec restore) {
    this.restore = restore;
  }
}
