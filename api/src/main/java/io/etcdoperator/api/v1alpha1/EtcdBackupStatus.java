package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a backup went. Unlike an EtcdCluster's status, this one is a record, as a Job's is: once
 * Complete or Failed it is final, since the agent pod that did the work may be gone.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "phase",
  "conditions",
  "snapshot",
  "startTime",
  "completionTime",
  "duration",
  "attempts",
  "nextAttemptTime"
})
public class EtcdBackupStatus {
  public static final String PENDING = "Pending";
  public static final String STARTED = "Started";
  public static final String COMPLETE = "Complete";
  public static final String FAILED = "Failed";

  @JsonPropertyDescription("Pending, Started, Complete or Failed.")
  private String phase;

  @JsonPropertyDescription("Started, Complete, Failed.")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("What the backup holds, once Complete.")
  private BackupSnapshot snapshot;

  @JsonPropertyDescription("When the agent started.")
  private String startTime;

  @JsonPropertyDescription("When the backup became Complete or Failed.")
  private String completionTime;

  @JsonPropertyDescription("Time taken by the snapshot and its upload, e.g. 3.2s.")
  private String duration;

  @JsonPropertyDescription(
      "Agent pods started for this backup. One whose member failed it (stopped, wiped, moved,"
          + " its stream broke or stalled) is followed by another, on a member that is healthy"
          + " then, up to 4 in all.")
  private Integer attempts;

  @JsonPropertyDescription(
      "When the next agent pod starts, after the last one failed because its member failed it;"
          + " absent otherwise.")
  private String nextAttemptTime;

  public String getPhase() {
    return phase;
  }

  public void setPhase(String phase) {
    this.phase = phase;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public BackupSnapshot getSnapshot() {
    return snapshot;
  }

  public void setSnapshot(BackupSnapshot snapshot) {
    this.snapshot = snapshot;
  }

  public String getStartTime() {
    return startTime;
  }

  public void setStartTime(String startTime) {
    this.startTime = startTime;
  }

  public String getCompletionTime() {
    return completionTime;
  }

  public void setCompletionTime(String completionTime) {
    this.completionTime = completionTime;
  }

  public String getDuration() {
    return duration;
  }

  public void setDuration(String duration) {
    this.duration = duration;
  }

  public Integer getAttempts() {
    return attempts;
  }

  public void setAttempts(Integer attempts) {
    this.attempts = attempts;
  }

  public String getNextAttemptTime() {
    return nextAttemptTime;
  }

  public void setNextAttemptTime(String nextAttemptTime) {
    this.nextAttemptTime = nextAttemptTime;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EtcdBackupStatus s
        && Objects.equals(phase, s.phase)
        && Objects.equals(conditions, s.conditions)
        && Objects.equals(snapshot, s.snapshot)
        && Objects.equals(startTime, s.startTime)
        && Objects.equals(completionTime, s.completionTime)
        && Objects.equals(duration, s.duration)
        && Objects.equals(attempts, s.attempts)
        && Objects.equals(nextAttemptTime, s.nextAttemptTime);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        phase,
        conditions,
        snapshot,
        startTime,
        completionTime,
        duration,
        attempts,
        nextAttemptTime);
  }
}
