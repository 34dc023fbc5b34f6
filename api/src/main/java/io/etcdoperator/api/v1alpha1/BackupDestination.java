package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * Where a backup goes, or where a restore reads from: exactly one of an S3 bucket or a claim. The
 * same shape in {@code EtcdBackup.spec.destination}, {@code EtcdBackupSchedule.spec.destination}
 * and {@code EtcdCluster.spec.bootstrap.restore.source} (aenix v1alpha1).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.s3) != has(self.pvc)",
    message = "exactly one of s3 or pvc must be specified")
public class BackupDestination {
  @JsonPropertyDescription("An S3-compatible object store.")
  private S3BackupDestination s3;

  @JsonPropertyDescription("A PersistentVolumeClaim in the backup's namespace.")
  private PVCBackupDestination pvc;

  public S3BackupDestination getS3() {
    return s3;
  }

  public void setS3(S3BackupDestination s3) {
    this.s3 = s3;
  }

  public PVCBackupDestination getPvc() {
    return pvc;
  }

  public void setPvc(PVCBackupDestination pvc) {
    this.pvc = pvc;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BackupDestination d
        && Objects.equals(s3, d.s3)
        && Objects.equals(pvc, d.pvc);
  }

  @Override
  public int hashCode() {
    return Objects.hash(s3, pvc);
  }
}
