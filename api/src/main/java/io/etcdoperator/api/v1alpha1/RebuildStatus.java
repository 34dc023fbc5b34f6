package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** The last rebuild of the cluster from a survivor, as recorded in the cluster-state ConfigMap. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RebuildStatus {
  @JsonPropertyDescription("The member whose data the cluster was rebuilt from.")
  private String survivor;

  @JsonPropertyDescription("The key-value revision the rebuilt cluster started at.")
  private Long revision;

  @JsonPropertyDescription("When the rebuild finished.")
  private String time;

  @JsonPropertyDescription("The opt-in value it consumed.")
  private String optIn;

  public String getSurvivor() {
    return survivor;
  }

  public void setSurvivor(String survivor) {
    this.survivor = survivor;
  }

  public Long getRevision() {
    return revision;
  }

  public void setRevision(Long revision) {
    this.revision = revision;
  }

  public String getTime() {
    return time;
  }

  public void setTime(String time) {
    this.time = time;
  }

  public String getOptIn() {
    return optIn;
  }

  public void setOptIn(String optIn) {
    this.optIn = optIn;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RebuildStatus r
        && Objects.equals(survivor, r.survivor)
        && Objects.equals(revision, r.revision)
        && Objects.equals(time, r.time)
        && Objects.equals(optIn, r.optIn);
  }

  @Override
  public int hashCode() {
    return Objects.hash(survivor, revision, time, optIn);
  }
}
