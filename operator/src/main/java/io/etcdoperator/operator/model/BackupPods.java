package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.PVCBackupDestination;
import io.etcdoperator.api.v1alpha1.S3BackupDestination;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pods that do a backup's work: the agent that takes the snapshot ({@link #backup}) and the one
 * that deletes a backup's data ({@link #delete}). Both run the operator's own image ({@code
 * etcd-operator agent ...}), never restart (a failed backup is Failed; the next scheduled one is
 * the retry), write their result to the termination message, and get the destination as arguments,
 * its credentials from the Secret by reference (the operator never reads them), and a claim mounted
 * at {@value #CLAIM_MOUNT}.
 */
public final class BackupPods {
  /** Where a claim destination is mounted in the agent's pod. */
  public static final String CLAIM_MOUNT = "/backup/data";

  public static final String ACCESS_KEY_ENV = "AWS_ACCESS_KEY_ID";
  public static final String SECRET_KEY_ENV = "AWS_SECRET_ACCESS_KEY";
  static final String CONTAINER = "backup-agent";
  private static final String VOLUME = "backup-data";

  private BackupPods() {}

  /**
   * The snapshot's key in its store: {@code <key prefix>/<backup>.db}, or {@code <subPath>/...}.
   */
  public static String snapshotKey(EtcdBackup backup) {
    return snapshotKey(backup.getSpec().getDestination(), backup.getMetadata().getName());
  }

  static String snapshotKey(BackupDestination d, String backupName) {
    String prefix = d.getS3() != null ? d.getS3().getKey() : null;
    String file = backupName + ".db";
    if (prefix == null || prefix.isBlank()) {
      return file;
    }
    String p = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    return p.isEmpty() ? file : p + "/" + file;
  }

  /** The agent pod that snapshots the member at {@code clientUrl} for {@code backup}. */
  public static Pod backup(EtcdBackup backup, String member, String clientUrl, String image) {
    var meta = backup.getMetadata();
    String cluster = backup.getSpec().getClusterRef().getName();
    List<String> args = new ArrayList<>();
    args.add("agent");
    args.add("backup");
    args.add("--cluster=" + meta.getNamespace() + "/" + cluster);
    args.add("--member=" + member);
    args.add("--endpoint=" + clientUrl);
    args.add("--key=" + snapshotKey(backup));
    return pod(backup, Names.backupPod(meta.getName()), "backup", args, image);
  }

  /** The pod that deletes the snapshot and manifest of {@code backup}. */
  public static Pod delete(EtcdBackup backup, String image) {
    List<String> args = new ArrayList<>(List.of("agent", "delete", "--key=" + snapshotKey(backup)));
    return pod(
        backup, Names.backupDeletePod(backup.getMetadata().getName()), "delete", args, image);
  }

  private static Pod pod(
      EtcdBackup backup, String podName, String role, List<String> args, String image) {
    var meta = backup.getMetadata();
    BackupDestination d = backup.getSpec().getDestination();
    args.addAll(destinationArgs(d, CLAIM_MOUNT));
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(Names.LABEL_NAME, "etcd-backup");
    labels.put(Names.LABEL_MANAGED_BY, Names.MANAGER);
    labels.put(Names.LABEL_COMPONENT, role);
    labels.put(Names.BACKUP_LABEL, meta.getName());
    Container agent =
        new ContainerBuilder()
            .withName(CONTAINER)
            .withImage(image)
            .withImagePullPolicy("IfNotPresent")
            .withArgs(args)
            .withEnv(credentials(d))
            .withVolumeMounts(mounts(d))
            .withTerminationMessagePolicy("FallbackToLogsOnError")
            .withNewResources()
            .withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("128Mi")))
            .withLimits(Map.of("memory", new Quantity("512Mi")))
            .endResources()
            .withNewSecurityContext()
            .withAllowPrivilegeEscalation(false)
            .withReadOnlyRootFilesystem(true)
            .withNewCapabilities()
            .withDrop("ALL")
            .endCapabilities()
            .endSecurityContext()
            .build();
    return new PodBuilder()
        .withNewMetadata()
        .withName(podName)
        .withNamespace(meta.getNamespace())
        .withLabels(labels)
        .withOwnerReferences(
            new OwnerReferenceBuilder()
                .withApiVersion(EtcdCluster.API_VERSION)
                .withKind(EtcdBackup.KIND)
                .withName(meta.getName())
                .withUid(meta.getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build())
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .withEnableServiceLinks(false)
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withRunAsUser(65532L)
        .withRunAsGroup(65532L)
        .withFsGroup(65532L)
        .endSecurityContext()
        .withContainers(agent)
        .withVolumes(volumes(d))
        .endSpec()
        .build();
  }

  /**
   * The agent's arguments for a destination (or a restore source): {@code --s3-*} for a bucket,
   * {@code --dir} and {@code --uri-prefix} for a claim mounted at {@code mount}.
   */
  public static List<String> destinationArgs(BackupDestination d, String mount) {
    List<String> args = new ArrayList<>();
    S3BackupDestination s3 = d.getS3();
    if (s3 != null) {
      args.add("--s3-endpoint=" + s3.getEndpoint());
      args.add("--s3-bucket=" + s3.getBucket());
      if (s3.getRegion() != null && !s3.getRegion().isBlank()) {
        args.add("--s3-region=" + s3.getRegion());
      }
      args.add("--s3-force-path-style=" + Boolean.TRUE.equals(s3.getForcePathStyle()));
    } else {
      PVCBackupDestination pvc = d.getPvc();
      String sub = subDirectory(pvc);
      args.add("--dir=" + mount + (sub.isEmpty() ? "" : "/" + sub));
      args.add("--uri-prefix=pvc://" + pvc.getClaimName() + (sub.isEmpty() ? "" : "/" + sub));
    }
    return args;
  }

  /** Where a restore source claim is mounted in a member's restore init container. */
  public static final String SOURCE_MOUNT = "/backup/source";

  static final String RESTORE_CONTAINER = Names.RESTORE_CONTAINER;
  static final String SOURCE_VOLUME = "restore-source";

  /**
   * The init container that restores a member from {@code source} before etcd starts (see {@code
   * RestoreAgent}): the operator's image, the member's data volume, the cluster-state ConfigMap.
   */
  public static Container restoreInitContainer(
      String cluster, BackupDestination source, String image) {
    List<String> args = new ArrayList<>();
    args.add("agent");
    args.add("restore");
    args.add("--data-dir=" + Names.DATA_DIR);
    args.add(
        "--peer-url=http://$("
            + Names.ENV_POD_NAME
            + ")."
            + Names.headlessService(cluster)
            + ".$("
            + Names.ENV_POD_NAMESPACE
            + ").svc:"
            + Names.PEER_PORT);
    List<VolumeMount> mounts = new ArrayList<>();
    mounts.add(
        new VolumeMountBuilder()
            .withName(Names.DATA_VOLUME)
            .withMountPath(Names.DATA_MOUNT_PATH)
            .build());
    if (source.getS3() != null) {
      args.add("--key=" + source.getS3().getKey());
      args.addAll(destinationArgs(source, SOURCE_MOUNT));
    } else {
      String file =
          source.getPvc().getSubPath() == null || source.getPvc().getSubPath().isBlank()
              ? "snapshot.db"
              : source.getPvc().getSubPath();
      args.add("--key=" + file);
      args.add("--dir=" + SOURCE_MOUNT);
      args.add("--uri-prefix=pvc://" + source.getPvc().getClaimName());
      mounts.add(
          new VolumeMountBuilder()
              .withName(SOURCE_VOLUME)
              .withMountPath(SOURCE_MOUNT)
              .withReadOnly(true)
              .build());
    }
    List<EnvVar> env = new ArrayList<>();
    env.add(fieldEnv(Names.ENV_POD_NAME, "metadata.name"));
    env.add(fieldEnv(Names.ENV_POD_NAMESPACE, "metadata.namespace"));
    env.addAll(credentials(source));
    return new ContainerBuilder()
        .withName(RESTORE_CONTAINER)
        .withImage(image)
        .withImagePullPolicy("IfNotPresent")
        .withArgs(args)
        .withEnv(env)
        .addNewEnvFrom()
        .withNewConfigMapRef()
        .withName(Names.clusterStateConfigMap(cluster))
        .endConfigMapRef()
        .endEnvFrom()
        .withVolumeMounts(mounts)
        .withTerminationMessagePolicy("FallbackToLogsOnError")
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("256Mi")))
        .withLimits(Map.of("memory", new Quantity("512Mi")))
        .endResources()
        .build();
  }

  /** The restore source's claim, read-only, when the source is a claim. */
  public static Optional<Volume> restoreSourceVolume(BackupDestination source) {
    return source.getPvc() == null
        ? Optional.empty()
        : Optional.of(
            new VolumeBuilder()
                .withName(SOURCE_VOLUME)
                .withNewPersistentVolumeClaim(source.getPvc().getClaimName(), true)
                .build());
  }

  /** How status names a restore source. */
  public static String sourceUri(BackupDestination source) {
    return source.getS3() != null
        ? "s3://" + source.getS3().getBucket() + "/" + source.getS3().getKey()
        : "pvc://"
            + source.getPvc().getClaimName()
            + "/"
            + (source.getPvc().getSubPath() == null || source.getPvc().getSubPath().isBlank()
                ? "snapshot.db"
                : source.getPvc().getSubPath());
  }

  private static EnvVar fieldEnv(String name, String path) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath(path)
        .endFieldRef()
        .endValueFrom()
        .build();
  }

  /** A backup's subPath is a directory within the claim. */
  private static String subDirectory(PVCBackupDestination pvc) {
    String sub = pvc.getSubPath() == null ? "" : pvc.getSubPath().trim();
    while (sub.endsWith("/")) {
      sub = sub.substring(0, sub.length() - 1);
    }
    return sub;
  }

  /** The access keys from the destination's Secret, by reference. */
  public static List<EnvVar> credentials(BackupDestination d) {
    if (d.getS3() == null) {
      return List.of();
    }
    String secret =
        Optional.ofNullable(d.getS3().getCredentialsSecretRef()).map(r -> r.getName()).orElse("");
    List<EnvVar> env = new ArrayList<>();
    for (String key : List.of(ACCESS_KEY_ENV, SECRET_KEY_ENV)) {
      env.add(
          new EnvVarBuilder()
              .withName(key)
              .withNewValueFrom()
              .withNewSecretKeyRef()
              .withName(secret)
              .withKey(key)
              .endSecretKeyRef()
              .endValueFrom()
              .build());
    }
    return env;
  }

  static List<VolumeMount> mounts(BackupDestination d) {
    return d.getPvc() == null
        ? List.of()
        : List.of(new VolumeMountBuilder().withName(VOLUME).withMountPath(CLAIM_MOUNT).build());
  }

  static List<Volume> volumes(BackupDestination d) {
    return d.getPvc() == null
        ? List.of()
        : List.of(
            new VolumeBuilder()
                .withName(VOLUME)
                .withNewPersistentVolumeClaim(d.getPvc().getClaimName(), false)
                .build());
  }
}
