package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;

/**
 * Continuous backup (opt-in): every change after the schedule's newest complete backup, recorded as
 * ordered chunks of a change log beside the backups, so that a new cluster can be restored to a
 * revision or a time.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ContinuousBackup {
  @JsonPropertyDescription(
      "Record every change between full backups (an archiver pod watches the cluster).")
  private Boolean enabled;

  @Pattern("^[0-9]+(ms|s)$")
  @JsonPropertyDescription(
      "How often recorded changes are written (default 1s): the most a restore can lack of what"
          + " was acknowledged before the cluster was lost.")
  private String flushInterval;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public String getFlushInterval() {
    return flushInterval;
  }

  public void setFlushInterval(String flushInterval) {
    this.flushInterval = flushInterval;
  }
}
