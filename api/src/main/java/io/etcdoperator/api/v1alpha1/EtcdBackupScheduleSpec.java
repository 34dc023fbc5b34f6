package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LocalObjectReference;

/** A cron schedule of backups (aenix v1alpha1), with retention (ours). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EtcdBackupScheduleSpec {
  @Required
  @JsonPropertyDescription("The EtcdCluster, in the same namespace.")
  private LocalObjectReference clusterRef;

  @Required
  @ValidationRule(
      value = "!self.startsWith('@every')",
      message = "@every expressions are not supported by Kubernetes CronJobs")
  @JsonPropertyDescription(
      "Cron: minute hour day-of-month month day-of-week (UTC), e.g. \"0 */6 * * *\"; also @hourly,"
          + " @daily, @weekly, @monthly, @yearly.")
  private String schedule;

  @Required
  @JsonPropertyDescription("Where each snapshot goes: exactly one of s3 or pvc.")
  private BackupDestination destination;

  @Min(0)
  @JsonPropertyDescription(
      "Complete backups to keep (default 3); older ones are deleted with their data.")
  private Integer successfulJobsHistoryLimit;

  @Min(0)
  @JsonPropertyDescription("Failed backups to keep (default 1).")
  private Integer failedJobsHistoryLimit;

  @JsonPropertyDescription(
      "Retention beyond the history limits: keep the last N complete backups, or keep them for a"
          + " duration; the newest complete backup is never deleted.")
  private BackupRetention retention;

  @JsonPropertyDescription(
      "Continuous backup: record every change between the full backups, for point-in-time"
          + " restores (see status.changeLog).")
  private ContinuousBackup continuous;

  public ContinuousBackup getContinuous() {
    return continuous;
  }

  public void setContinuous(ContinuousBackup continuous) {
    this.continuous = continuous;
  }

  public LocalObjectReference getClusterRef() {
    return clusterRef;
  }

  public void setClusterRef(LocalObjectReference clusterRef) {
    this.clusterRef = clusterRef;
  }

  public String getSchedule() {
    return schedule;
  }

  public void setSchedule(String schedule) {
    this.schedule = schedule;
  }

  public BackupDestination getDestination() {
    return destination;
  }

  public void setDestination(BackupDestination destination) {
    this.destination = destination;
  }

  public Integer getSuccessfulJobsHistoryLimit() {
    return successfulJobsHistoryLimit;
  }

  public void setSuccessfulJobsHistoryLimit(Integer successfulJobsHistoryLimit) {
    this.successfulJobsHistoryLimit = successfulJobsHistoryLimit;
  }

  public Integer getFailedJobsHistoryLimit() {
    return failedJobsHistoryLimit;
  }

  public void setFailedJobsHistoryLimit(Integer failedJobsHistoryLimit) {
    this.failedJobsHistoryLimit = failedJobsHistoryLimit;
  }

  public BackupRetention getRetention() {
    return retention;
  }

  public void setRetention(BackupRetention retention) {
    this.retention = retention;
  }
}
