package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the schedule's backups look like now: recomputed from the EtcdBackups it owns at every
 * reconcile (aenix's fields, plus the active backup, how many are kept and the next firing).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "conditions",
  "lastScheduleTime",
  "lastSuccessfulBackupTime",
  "lastSuccessfulBackup",
  "active",
  "kept",
  "nextScheduleTime",
  "changeLog"
})
public class EtcdBackupScheduleStatus {
  @JsonPropertyDescription("Ready (the schedule is valid and running), Failed (the last backup).")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("When the schedule last created a backup.")
  private String lastScheduleTime;

  @JsonPropertyDescription("When the newest complete backup was taken.")
  private String lastSuccessfulBackupTime;

  @JsonPropertyDescription("The newest complete backup: the way back if the cluster is lost.")
  private String lastSuccessfulBackup;

  @JsonPropertyDescription("The backup under way, if any.")
  private String active;

  @JsonPropertyDescription("Complete backups kept.")
  private Integer kept;

  @JsonPropertyDescription("When the schedule fires next.")
  private String nextScheduleTime;

  @JsonPropertyDescription(
      "Where continuous backup records changes (s3://bucket/key or pvc://claim/path), when on.")
  private String changeLog;

  public String getChangeLog() {
    return changeLog;
  }

  public void setChangeLog(String changeLog) {
    this.changeLog = changeLog;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public String getLastScheduleTime() {
    return lastScheduleTime;
  }

  public void setLastScheduleTime(String lastScheduleTime) {
    this.lastScheduleTime = lastScheduleTime;
  }

  public String getLastSuccessfulBackupTime() {
    return lastSuccessfulBackupTime;
  }

  public void setLastSuccessfulBackupTime(String lastSuccessfulBackupTime) {
    this.lastSuccessfulBackupTime = lastSuccessfulBackupTime;
  }

  public String getLastSuccessfulBackup() {
    return lastSuccessfulBackup;
  }

  public void setLastSuccessfulBackup(String lastSuccessfulBackup) {
    this.lastSuccessfulBackup = lastSuccessfulBackup;
  }

  public String getActive() {
    return active;
  }

  public void setActive(String active) {
    this.active = active;
  }

  public Integer getKept() {
    return kept;
  }

  public void setKept(Integer kept) {
    this.kept = kept;
  }

  public String getNextScheduleTime() {
    return nextScheduleTime;
  }

  public void setNextScheduleTime(String nextScheduleTime) {
    this.nextScheduleTime = nextScheduleTime;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EtcdBackupScheduleStatus s
        && Objects.equals(conditions, s.conditions)
        && Objects.equals(lastScheduleTime, s.lastScheduleTime)
        && Objects.equals(lastSuccessfulBackupTime, s.lastSuccessfulBackupTime)
        && Objects.equals(lastSuccessfulBackup, s.lastSuccessfulBackup)
        && Objects.equals(active, s.active)
        && Objects.equals(kept, s.kept)
        && Objects.equals(nextScheduleTime, s.nextScheduleTime)
        && Objects.equals(changeLog, s.changeLog);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        conditions,
        lastScheduleTime,
        lastSuccessfulBackupTime,
        lastSuccessfulBackup,
        active,
        kept,
        nextScheduleTime,
        changeLog);
  }
}
