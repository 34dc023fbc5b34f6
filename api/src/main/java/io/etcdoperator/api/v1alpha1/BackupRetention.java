package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;

/**
 * How long a schedule keeps its complete backups: the last {@code keepLast}, and none older than
 * {@code keepFor}; whichever deletes more wins, but the newest complete backup always stays.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BackupRetention {
  @Min(1)
  @JsonPropertyDescription(
      "Keep at most this many complete backups (overrides successfulJobsHistoryLimit).")
  private Integer keepLast;

  @Pattern("^([0-9]+(d|h|m|s))+$")
  @JsonPropertyDescription(
      "Delete complete backups older than this, e.g. 168h or 7d (units d, h, m, s).")
  private String keepFor;

  public Integer getKeepLast() {
    return keepLast;
  }

  public void setKeepLast(Integer keepLast) {
    this.keepLast = keepLast;
  }

  public String getKeepFor() {
    return keepFor;
  }

  public void setKeepFor(String keepFor) {
    this.keepFor = keepFor;
  }
}
