package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** Restore to a point after the snapshot: its change log replayed up to a revision or a time. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.revision) != has(self.time)",
    message = "set exactly one of revision or time")
public class PointInTimeTarget {
  @Required
  @JsonPropertyDescription(
      "The change log, in the same store as the source: the schedule's status.changeLog without"
          + " its scheme and bucket (or claim), e.g. test/nightly.changes.")
  private String changeLog;

  @JsonPropertyDescription("Restore exactly the writes up to this revision.")
  private Long revision;

  @JsonPropertyDescription(
      "Restore the writes recorded by this time (RFC 3339), to within one flush interval.")
  private String time;

  public String getChangeLog() {
    return changeLog;
  }

  public void setChangeLog(String changeLog) {
    this.changeLog = changeLog;
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
}
