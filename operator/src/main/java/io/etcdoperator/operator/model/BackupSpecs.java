package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.PVCBackupDestination;
import io.etcdoperator.api.v1alpha1.S3BackupDestination;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of a backup destination (and a restore source), with the field's path and what to do:
 * the same texts as aenix's webhook, since the CRD's CEL rules need an API server that runs them.
 */
public final class BackupSpecs {
  private BackupSpecs() {}

  /** Problems of an EtcdBackup's spec, as {@code field: reason}. */
  public static List<String> validate(EtcdBackup backup) {
    List<String> problems = new ArrayList<>();
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
