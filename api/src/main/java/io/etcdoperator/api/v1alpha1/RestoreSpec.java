package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/** The snapshot a new cluster starts from (aenix v1alpha1). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RestoreSpec {
  @Required
  @JsonPropertyDescription(
      "The snapshot: s3 (key: the full object key, e.g. backups/nightly-1.db) or pvc (subPath: the"
          + " file within the claim, default snapshot.db). When a manifest written by an EtcdBackup"
          + " lies beside it, its sha256 and size are checked too.")
  private BackupDestination source;

  @JsonPropertyDescription(
      "Restore to a later point: the schedule's change log replayed over the snapshot up to a"
          + " revision or a time (continuous backup).")
  private PointInTimeTarget pointInTime;

  public PointInTimeTarget getPointInTime() {
    return pointInTime;
  }

  public void setPointInTime(PointInTimeTarget pointInTime) {
    this.pointInTime = pointInTime;
  }

  public BackupDestination getSource() {
    return source;
  }

  public void setSource(BackupDestination source) {
    this.source = source;
  }
}
