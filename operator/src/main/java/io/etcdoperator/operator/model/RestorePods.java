package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.PointInTimeTarget;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code spec.bootstrap.restore} adds to every member pod: the {@code restore} init container
 * (the operator's image, {@code etcd-operator agent restore}) that restores the member's data from
 * the snapshot before etcd starts, and the source claim, read-only, when the source is a claim.
 */
public final class RestorePods {
  private RestorePods() {}

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
    return restoreInitContainer(cluster, source, null, image);
  }

  /** As above, replaying a change log up to {@code pointInTime} when it is given. */
  public static Container restoreInitContainer(
      String cluster, BackupDestination source, PointInTimeTarget pointInTime, String image) {
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
      args.addAll(BackupPods.destinationArgs(source, SOURCE_MOUNT));
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
    if (pointInTime != null && pointInTime.getChangeLog() != null) {
      args.add("--change-log=" + pointInTime.getChangeLog());
      if (pointInTime.getRevision() != null) {
        args.add("--target-revision=" + pointInTime.getRevision());
      }
      if (pointInTime.getTime() != null) {
        args.add("--target-time=" + pointInTime.getTime());
      }
    }
    List<EnvVar> env = new ArrayList<>();
    env.add(fieldEnv(Names.ENV_POD_NAME, "metadata.name"));
    env.add(fieldEnv(Names.ENV_POD_NAMESPACE, "metadata.namespace"));
    env.addAll(BackupPods.credentials(source));
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
        .withSecurityContext(Restricted.container(false))
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
}
