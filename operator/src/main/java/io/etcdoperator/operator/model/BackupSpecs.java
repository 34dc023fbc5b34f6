package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.PVCBackupDestination;
import io.etcdoperator.api.v1alpha1.S3BackupDestination;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rules of a backup destination (and a restore source), with the field's path and what to do:
 * the same texts as aenix's webhook, since the CRD's CEL rules need an API server that runs them.
 */
public final class BackupSpecs {
  /** An EtcdBackup's name labels its agent pod: a label value's length. */
  public static final int MAX_BACKUP_NAME = 63;

  /**
   * A schedule names its backups {@code <schedule>-<yyyyMMddHHmm>}, each at most {@link
   * #MAX_BACKUP_NAME}.
   */
  public static final int MAX_SCHEDULE_NAME = MAX_BACKUP_NAME - 13;

  private static final Pattern CLAIM_NAME =
      Pattern.compile(
          "(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private BackupSpecs() {}

  /** Problems of an EtcdBackup's spec, as {@code field: reason}. */
  public static List<String> validate(EtcdBackup backup) {
    List<String> problems = new ArrayList<>();
    String name = backup.getMetadata() == null ? null : backup.getMetadata().getName();
    if (name != null && name.length() > MAX_BACKUP_NAME) {
      problems.add(
          "metadata.name: at most "
              + MAX_BACKUP_NAME
              + " characters, got "
              + name.length()
              + ": the name labels the backup's agent pod, and a label value holds 63; choose a"
              + " shorter name");
    }
    var spec = backup.getSpec();
    if (spec == null
        || spec.getClusterRef() == null
        || spec.getClusterRef().getName() == null
        || spec.getClusterRef().getName().isBlank()) {
      problems.add("spec.clusterRef.name: clusterRef.name is required");
    }
    problems.addAll(
        destination(spec == null ? null : spec.getDestination(), "spec.destination", false));
    return problems;
  }

  /**
   * Problems of a destination at {@code path}; {@code restore}: a source, whose subPath and key
   * name a file rather than a directory or prefix.
   */
  public static List<String> destination(BackupDestination d, String path, boolean restore) {
    List<String> problems = new ArrayList<>();
    if (d == null || (d.getS3() == null && d.getPvc() == null)) {
      problems.add(path + ": exactly one of s3 or pvc must be specified");
      return problems;
    }
    if (d.getS3() != null && d.getPvc() != null) {
      problems.add(path + ": exactly one of s3 or pvc must be specified, not both");
      return problems;
    }
    S3BackupDestination s3 = d.getS3();
    if (s3 != null) {
      String p = path + ".s3";
      if (blank(s3.getEndpoint())) {
        problems.add(p + ".endpoint: endpoint is required");
      } else if (!s3.getEndpoint().startsWith("http://")
          && !s3.getEndpoint().startsWith("https://")) {
        problems.add(p + ".endpoint: endpoint must start with http:// or https://");
      }
      if (blank(s3.getBucket())) {
        problems.add(p + ".bucket: bucket is required");
      }
      if (s3.getCredentialsSecretRef() == null || blank(s3.getCredentialsSecretRef().getName())) {
        problems.add(p + ".credentialsSecretRef.name: credentialsSecretRef.name is required");
      }
      if (restore && blank(s3.getKey())) {
        problems.add(p + ".key: the snapshot's full object key is required for a restore");
      }
    }
    PVCBackupDestination pvc = d.getPvc();
    if (pvc != null) {
      String p = path + ".pvc";
      if (blank(pvc.getClaimName())) {
        problems.add(p + ".claimName: claimName is required");
      } else if (!CLAIM_NAME.matcher(pvc.getClaimName()).matches()) {
        problems.add(
            p
                + ".claimName: '"
                + pvc.getClaimName()
                + "' is not a PersistentVolumeClaim's name (lower-case letters, digits, '-' and"
                + " '.', starting and ending with a letter or digit, at most 253)");
      }
      String sub = pvc.getSubPath();
      if (sub != null && (sub.startsWith("/") || List.of(sub.split("/")).contains(".."))) {
        problems.add(
            p + ".subPath: subPath must be a relative path and must not contain '..' components");
      }
    }
    return problems;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
