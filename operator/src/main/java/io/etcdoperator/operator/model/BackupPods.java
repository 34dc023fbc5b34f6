package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSchedule;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.PVCBackupDestination;
import io.etcdoperator.api.v1alpha1.S3BackupDestination;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
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
 * etcd-operator agent ...}), never restart (an agent whose member went away exits with {@link
 * #EXIT_MEMBER_FAILED}, and the operator starts another pod on a healthy member; any other failure
 * is final, and the next scheduled backup is the retry), write their result to the termination
 * message, and get the destination as arguments, its credentials from the Secret by reference (the
 * operator never reads them), and a claim mounted at {@value #CLAIM_MOUNT}.
 */
public final class BackupPods {
  /** The agent's exit code when its member failed it (sysexits' TEMPFAIL; not the JVM's 3). */
  public static final int EXIT_MEMBER_FAILED = 75;

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

  private static OwnerReferenceBuilder ownerOf(EtcdBackup backup) {
    return new OwnerReferenceBuilder()
        .withApiVersion(EtcdCluster.API_VERSION)
        .withKind(EtcdBackup.KIND)
        .withName(backup.getMetadata().getName())
        .withUid(backup.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true);
  }

  /** Where the agent finds the CA it trusts for the members' server certificates. */
  public static final String TLS_TRUST_MOUNT = "/etc/etcd-operator/trust";

  /** Where the agent finds the client certificate it presents (the operator's). */
  public static final String TLS_CLIENT_MOUNT = "/etc/etcd-operator/client";

  /**
   * The agent pod that snapshots the member at {@code clientUrl} for {@code backup}, over TLS when
   * the cluster serves clients so ({@link #withTls}).
   */
  public static Pod backup(
      EtcdBackup backup,
      String member,
      String clientUrl,
      int attempt,
      String image,
      Security security) {
    var meta = backup.getMetadata();
    String cluster = backup.getSpec().getClusterRef().getName();
    List<String> args = new ArrayList<>();
    args.add("agent");
    args.add("backup");
    args.add("--cluster=" + meta.getNamespace() + "/" + cluster);
    args.add("--member=" + member);
    args.add("--endpoint=" + clientUrl);
    args.add("--key=" + snapshotKey(backup));
    args.addAll(destinationArgs(backup.getSpec().getDestination(), CLAIM_MOUNT));
    Pod pod =
        pod(
            meta.getName(),
            meta.getNamespace(),
            Names.backupPod(meta.getName()),
            "backup",
            args,
            image,
            backup.getSpec().getDestination(),
            ownerOf(backup).build());
    pod.getMetadata().getAnnotations().put(Names.BACKUP_ATTEMPT_ANNOTATION, "" + attempt);
    withTls(pod, security);
    return pod;
  }

  /**
   * With server TLS: the agent's trust (the CA the operator trusts: {@code serverTrustedCASecret}'s
   * ca.crt, else the server Secret's) and its client certificate (the operator's, {@code
   * clientSecret}), mounted read-only from their Secrets and named in its arguments.
   */
  static void withTls(Pod pod, Security security) {
    if (!security.serverTls()) {
      return;
    }
    Container agent = pod.getSpec().getContainers().get(0);
    List<String> args = new ArrayList<>(agent.getArgs());
    List<Volume> volumes = new ArrayList<>(pod.getSpec().getVolumes());
    List<VolumeMount> mounts = new ArrayList<>(agent.getVolumeMounts());
    security
        .operatorTrustSecret()
        .ifPresent(
            secret -> {
              args.add("--tls-ca=" + TLS_TRUST_MOUNT + "/" + Security.CA_KEY);
              volumes.add(secretVolume("etcd-trust", secret));
              mounts.add(mount("etcd-trust", TLS_TRUST_MOUNT));
            });
    security
        .clientSecret()
        .ifPresent(
            secret -> {
              args.add("--tls-cert=" + TLS_CLIENT_MOUNT + "/" + Security.CERT_KEY);
              args.add("--tls-key=" + TLS_CLIENT_MOUNT + "/" + Security.PRIVATE_KEY);
              volumes.add(secretVolume("etcd-client", secret));
              mounts.add(mount("etcd-client", TLS_CLIENT_MOUNT));
            });
    agent.setArgs(args);
    agent.setVolumeMounts(mounts);
    pod.getSpec().setVolumes(volumes);
  }

  private static Volume secretVolume(String name, String secret) {
    return new VolumeBuilder()
        .withName(name)
        .withNewSecret()
        .withSecretName(secret)
        .withDefaultMode(0440)
        .endSecret()
        .build();
  }

  private static VolumeMount mount(String name, String path) {
    return new VolumeMountBuilder().withName(name).withMountPath(path).withReadOnly(true).build();
  }

  /** The pod that deletes the snapshot and manifest of {@code backup}. */
  public static Pod delete(EtcdBackup backup, String image) {
    List<String> args = new ArrayList<>(List.of("agent", "delete", "--key=" + snapshotKey(backup)));
    args.addAll(destinationArgs(backup.getSpec().getDestination(), CLAIM_MOUNT));
    return pod(
        backup.getMetadata().getName(),
        backup.getMetadata().getNamespace(),
        Names.backupDeletePod(backup.getMetadata().getName()),
        "delete",
        args,
        image,
        backup.getSpec().getDestination(),
        ownerOf(backup).build());
  }

  private static Pod pod(
      String backupName,
      String namespace,
      String podName,
      String role,
      List<String> args,
      String image,
      BackupDestination d,
      OwnerReference owner) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(Names.LABEL_NAME, "etcd-backup");
    labels.put(Names.LABEL_MANAGED_BY, Names.MANAGER);
    labels.put(Names.LABEL_COMPONENT, role);
    if (backupName != null) {
      labels.put(Names.BACKUP_LABEL, backupName);
    }
    String claim = d.getPvc() == null ? null : Names.claimLabelValue(d.getPvc().getClaimName());
    if (claim != null) {
      labels.put(Names.BACKUP_CLAIM_LABEL, claim);
    }
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
            .withSecurityContext(Restricted.container(true))
            .build();
    return new PodBuilder()
        .withNewMetadata()
        .withName(podName)
        .withNamespace(namespace)
        .withLabels(labels)
        .withOwnerReferences(owner)
        .withAnnotations(new LinkedHashMap<>())
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .withEnableServiceLinks(false)
        .withSecurityContext(Restricted.pod(65532L))
        .withContainers(agent)
        .withVolumes(volumes(d))
        .withAffinity(claim == null ? null : sharingTheClaim(claim))
        .endSpec()
        .build();
  }

  /**
   * On the node of any other agent pod that mounts the same claim ({@code claim}: its label value).
   * A ReadWriteOnce volume (most block storage) is attached to one node at a time: a schedule's
   * backup placed on another node than the schedule's archiver, which holds the claim for as long
   * as it runs, would wait in ContainerCreating (Multi-Attach) and never finish. The first pod of
   * the claim matches its own term, so it may go anywhere (the scheduler's rule for a pod that
   * matches its own affinity). Pods that finished count no more, so the claim follows the running
   * ones.
   */
  static Affinity sharingTheClaim(String claim) {
    return new AffinityBuilder()
        .withNewPodAffinity()
        .addNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withNewLabelSelector()
        .withMatchLabels(Map.of(Names.BACKUP_CLAIM_LABEL, claim))
        .endLabelSelector()
        .withTopologyKey("kubernetes.io/hostname")
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endPodAffinity()
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

  /** The pod of a schedule's continuous backup: {@code <schedule>-archiver}. */
  public static Pod archiver(EtcdBackupSchedule schedule, String image, Security security) {
    var meta = schedule.getMetadata();
    var spec = schedule.getSpec();
    String cluster = spec.getClusterRef().getName();
    BackupDestination d = spec.getDestination();
    String backups = d.getS3() != null ? prefix(d.getS3().getKey()) : "";
    String flush =
        spec.getContinuous().getFlushInterval() == null
            ? "1s"
            : spec.getContinuous().getFlushInterval();
    long flushMs =
        flush.endsWith("ms")
            ? Long.parseLong(flush.substring(0, flush.length() - 2))
            : Long.parseLong(flush.substring(0, flush.length() - 1)) * 1000;
    List<String> args = new ArrayList<>();
    args.add("agent");
    args.add("archive");
    args.add("--cluster=" + meta.getNamespace() + "/" + cluster);
    args.add(
        "--endpoint="
            + Names.serviceUrl(meta.getNamespace(), cluster)
                .replaceFirst("^http:", security.clientScheme() + ":"));
    args.add("--backups=" + (backups.isEmpty() ? "." : backups));
    args.add("--backup-prefix=" + meta.getName() + "-");
    args.add("--log=" + changeLog(schedule));
    args.add("--flush-ms=" + flushMs);
    args.addAll(destinationArgs(d, CLAIM_MOUNT));
    Pod pod =
        pod(
            null,
            meta.getNamespace(),
            Names.archiverPod(meta.getName()),
            "archive",
            args,
            image,
            d,
            new OwnerReferenceBuilder()
                .withApiVersion(EtcdCluster.API_VERSION)
                .withKind(EtcdBackupSchedule.KIND)
                .withName(meta.getName())
                .withUid(meta.getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build());
    pod.getMetadata().getLabels().remove(Names.BACKUP_LABEL);
    pod.getMetadata().getLabels().put(Names.SCHEDULE_LABEL, meta.getName());
    pod.getSpec().setRestartPolicy("Always");
    withTls(pod, security);
    return pod;
  }

  /** Where a schedule's continuous backup writes its change log, within its store. */
  public static String changeLog(EtcdBackupSchedule schedule) {
    BackupDestination d = schedule.getSpec().getDestination();
    String prefix = d.getS3() != null ? prefix(d.getS3().getKey()) : "";
    String log = schedule.getMetadata().getName() + ".changes";
    return prefix.isEmpty() ? log : prefix + "/" + log;
  }

  private static String prefix(String key) {
    String p = key == null ? "" : key.trim();
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
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
