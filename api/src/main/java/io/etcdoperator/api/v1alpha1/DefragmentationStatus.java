package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/** A member's last defragmentation, as the operator recorded it in the cluster's ConfigMap. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"time", "duration", "sizeBefore", "sizeAfter", "error"})
public class DefragmentationStatus {
  @JsonPropertyDescription("When it ended (RFC 3339).")
  private String time;

  @JsonPropertyDescription("How long etcd took, e.g. 1.234s.")
  private String duration;

  @JsonPropertyDescription("The member's database size before, in bytes.")
  private Long sizeBefore;

  @JsonPropertyDescription("The member's database size after, in bytes.")
  private Long sizeAfter;

  @JsonPropertyDescription("Why it failed, when it did (the round stopped there).")
  private String error;

  public String getTime() {
    return time;
  }

  public void setTime(String time) {
    this.time = time;
  }

  public String getDuration() {
    return duration;
  }

  public void setDuration(String duration) {
    this.duration = duration;
  }

  public Long getSizeBefore() {
    return sizeBefore;
  }

  public void setSizeBefore(Long sizeBefore) {
    this.sizeBefore = sizeBefore;
  }

  public Long getSizeAfter() {
    return sizeAfter;
  }

  public void setSizeAfter(Long sizeAfter) {
    this.sizeAfter = sizeAfter;
  }

  public String getError() {
    return error;
  }

  public void setError(String error) {
    this.error = error;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DefragmentationStatus d
        && Objects.equals(time, d.time)
        && Objects.equals(duration, d.duration)
        && Objects.equals(sizeBefore, d.sizeBefore)
        && Objects.equals(sizeAfter, d.sizeAfter)
        && Objects.equals(error, d.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(time, duration, sizeBefore, sizeAfter, error);
  }
}
