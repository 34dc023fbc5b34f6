package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * When the operator defragments members: at the times of a schedule, when a member's database is
 * fragmented past a threshold, or both. Always one member at a time, followers first, the leader
 * last after leadership moved away, and only while every member is healthy.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"schedule", "threshold"})
public class DefragmentationSpec {
  @JsonPropertyDescription(
      "Cron schedule in UTC (5 fields, or @daily, @weekly, ...): every member is defragmented"
          + " once after each firing. A firing missed by more than an hour is skipped.")
  private String schedule;

  @JsonPropertyDescription(
      "Defragment a member whose database file is fragmented past this threshold.")
  private DefragmentationThreshold threshold;

  public String getSchedule() {
    return schedule;
  }

  public void setSchedule(String schedule) {
    this.schedule = schedule;
  }

  public DefragmentationThreshold getThreshold() {
    return threshold;
  }

  public void setThreshold(DefragmentationThreshold threshold) {
    this.threshold = threshold;
  }
}
