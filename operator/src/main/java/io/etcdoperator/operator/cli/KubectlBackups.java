package io.etcdoperator.operator.cli;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.BootstrapSpec;
import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSpec;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.api.v1alpha1.PVCBackupDestination;
import io.etcdoperator.api.v1alpha1.RestoreSpec;
import io.etcdoperator.api.v1alpha1.S3BackupDestination;
import io.etcdoperator.operator.model.Durations;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code kubectl etcd snapshot} and {@code restore}: each creates the operator's own resource (an
 * EtcdBackup; an EtcdCluster with {@code spec.bootstrap.restore}) and waits, reading it again each
 * second, until the operator says it is done or failed, or the time given runs out: what is created
 * stays either way, for {@code kubectl describe} to explain.
 */
final class KubectlBackups {
  private KubectlBackups() {}

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  /**
   * The destination {@code to} names: {@code pvc://CLAIM[/DIRECTORY]}, or {@code
   * s3://BUCKET[/PREFIX]} with the store's endpoint and the Secret of its access keys.
   */
  static BackupDestination destination(
      String to, String endpoint, String credentials, String region, boolean pathStyle) {
    URI uri = URI.create(to);
    String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    BackupDestination d = new BackupDestination();
    if ("pvc".equals(uri.getScheme()) && uri.getHost() != null) {
      PVCBackupDestination pvc = new PVCBackupDestination();
      pvc.setClaimName(uri.getHost());
      pvc.setSubPath(path.isEmpty() ? null : path);
      d.setPvc(pvc);
      return d;
    }
    if ("s3".equals(uri.getScheme()) && uri.getHost() != null) {
      if (endpoint == null || credentials == null) {
        throw new IllegalArgumentException(
            "--to s3://... needs --endpoint (the store's URL) and --credentials (the Secret holding"
                + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
      }
      S3BackupDestination s3 = new S3BackupDestination();
      s3.setBucket(uri.getHost());
      s3.setKey(path.isEmpty() ? null : path);
      s3.setEndpoint(endpoint);
      s3.setCredentialsSecretRef(new LocalObjectReference(credentials));
      s3.setRegion(region);
      s3.setForcePathStyle(pathStyle ? true : null);
      d.setS3(s3);
      return d;
    }
    throw new IllegalArgumentException(
        "--to " + to + ": give pvc://CLAIM[/DIRECTORY] or s3://BUCKET[/PREFIX]");
  }

  /**
   * Reads {@code current} each second until {@code done} holds of it (true), {@code failed} does
   * (false), or {@code timeout} passes (an exception saying what it was waiting for).
   */
  static <T> boolean await(
      Supplier<T> current,
      Predicate<T> done,
      Predicate<T> failed,
      Duration timeout,
      String waitingFor)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      T now = current.get();
      if (now != null && done.test(now)) {
        return true;
      }
      if (now != null && failed.test(now)) {
        return false;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "gave up after " + timeout.toSeconds() + " s waiting for " + waitingFor);
      }
      Thread.sleep(1000);
    }
  }

  @Command(
      name = "snapshot",
      mixinStandardHelpOptions = true,
      description =
          "Back the cluster up now: creates an EtcdBackup to the destination and waits until it is"
              + " Complete (prints where the snapshot is, its size and revision) or Failed (prints"
              + " why; exit 1).")
  static final class SnapshotCommand implements Callable<Integer> {
    @ParentCommand KubectlEtcd parent;

    @Parameters(paramLabel = "NAME", description = "The EtcdCluster.")
    String cluster;

    @Option(
        names = "--to",
        required = true,
        description = "pvc://CLAIM[/DIRECTORY] or s3://BUCKET[/PREFIX].")
    String to;

    @Option(names = "--endpoint", description = "S3: the store's URL.")
    String endpoint;

    @Option(names = "--credentials", description = "S3: the Secret of the store's access keys.")
    String credentials;

    @Option(names = "--region", description = "S3: the region (default: the store's).")
    String region;

    @Option(names = "--path-style", description = "S3: address the bucket in the path.")
    boolean pathStyle;

    @Option(
        names = "--name",
        description = "The EtcdBackup's name (default: CLUSTER-yyyyMMdd-HHmmss).")
    String name;

    @Option(names = "--timeout", defaultValue = "30m", description = "How long to wait.")
    String timeout;

    @Override
    public Integer call() throws IOException, InterruptedException {
      try (KubernetesClient client = parent.client()) {
        KubectlEtcd.cluster(client, cluster);
        EtcdBackup backup = new EtcdBackup();
        backup.setMetadata(new ObjectMeta());
        backup
            .getMetadata()
            .setName(name != null ? name : cluster + "-" + STAMP.format(Instant.now()));
        EtcdBackupSpec spec = new EtcdBackupSpec();
        spec.setClusterRef(new LocalObjectReference(cluster));
        spec.setDestination(destination(to, endpoint, credentials, region, pathStyle));
        backup.setSpec(spec);
        var backups = client.resources(EtcdBackup.class);
        backups.resource(backup).create();
        String n = backup.getMetadata().getName();
        parent.out().println("etcdbackup/" + n + " created; waiting for it");
        parent.out().flush();
        boolean complete =
            await(
                () -> backups.withName(n).get(),
                b -> b.getStatus() != null && "Complete".equals(b.getStatus().getPhase()),
                b -> b.getStatus() != null && "Failed".equals(b.getStatus().getPhase()),
                duration(timeout),
                "etcdbackup/" + n + " to be Complete or Failed");
        EtcdBackup done = backups.withName(n).get();
        if (!complete) {
          parent
              .out()
              .println(
                  "etcdbackup/"
                      + n
                      + " Failed: "
                      + failure(done.getStatus().getConditions()).orElse("no reason given"));
          return 1;
        }
        var snapshot = done.getStatus().getSnapshot();
        parent
            .out()
            .println(
                "etcdbackup/"
                    + n
                    + " Complete: "
                    + (snapshot == null
                        ? "-"
                        : snapshot.getUri()
                            + ", "
                            + snapshot.getSizeBytes()
                            + " bytes at revision "
                            + snapshot.getRevision()));
        return 0;
      }
    }
  }

  @Command(
      name = "restore",
      mixinStandardHelpOptions = true,
      description =
          "Create a new cluster from a Complete backup (the backed-up cluster's spec when it still"
              + " exists, with spec.bootstrap.restore naming the snapshot) and wait until it is"
              + " Ready.")
  static final class RestoreCommand implements Callable<Integer> {
    @ParentCommand KubectlEtcd parent;

    @Parameters(paramLabel = "BACKUP", description = "The EtcdBackup.")
    String backupName;

    @Option(names = "--as", required = true, description = "The new EtcdCluster's name.")
    String as;

    @Option(
        names = "--replicas",
        description =
            "Members of the new cluster (default: 1; more from a claim only when every member's"
                + " node can mount it).")
    Integer replicas;

    @Option(names = "--timeout", defaultValue = "10m", description = "How long to wait.")
    String timeout;

    @Override
    public Integer call() throws IOException, InterruptedException {
      try (KubernetesClient client = parent.client()) {
        EtcdBackup backup = client.resources(EtcdBackup.class).withName(backupName).get();
        if (backup == null) {
          throw new IllegalStateException(
              "etcdbackup " + backupName + " not found in namespace " + client.getNamespace());
        }
        if (backup.getStatus() == null || !"Complete".equals(backup.getStatus().getPhase())) {
          throw new IllegalStateException(
              "etcdbackup "
                  + backupName
                  + " is not Complete (phase "
                  + Optional.ofNullable(backup.getStatus()).map(s -> s.getPhase()).orElse("none")
                  + "): restore from a Complete one");
        }
        EtcdCluster from =
            client
                .resources(EtcdCluster.class)
                .withName(backup.getSpec().getClusterRef().getName())
                .get();
        EtcdClusterSpec spec =
            from == null || from.getSpec() == null
                ? new EtcdClusterSpec()
                : Serialization.clone(from.getSpec());
        spec.setReplicas(replicas == null ? 1 : replicas);
        RestoreSpec restore = new RestoreSpec();
        restore.setSource(KubectlTables.restoreSource(backup));
        BootstrapSpec bootstrap = new BootstrapSpec();
        bootstrap.setRestore(restore);
        spec.setBootstrap(bootstrap);
        EtcdCluster created = new EtcdCluster();
        created.setMetadata(new ObjectMeta());
        created.getMetadata().setName(as);
        created.setSpec(spec);
        var clusters = client.resources(EtcdCluster.class);
        clusters.resource(created).create();
        parent
            .out()
            .println("etcdcluster/" + as + " created from " + backupName + "; waiting for it");
        parent.out().flush();
        await(
            () -> clusters.withName(as).get(),
            c ->
                c.getStatus() != null
                    && c.getStatus().getConditions().stream()
                        .anyMatch(x -> "Ready".equals(x.getType()) && "True".equals(x.getStatus())),
            c -> false,
            duration(timeout),
            "etcdcluster/"
                + as
                + " to be Ready (kubectl describe etcdcluster "
                + as
                + " says why not)");
        parent.out().println("etcdcluster/" + as + " Ready");
        return 0;
      }
    }
  }

  /** The message of the condition that says why it failed. */
  static Optional<String> failure(List<Condition> conditions) {
    return conditions == null
        ? Optional.empty()
        : conditions.stream()
            .filter(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus()))
            .map(c -> c.getReason() + ": " + c.getMessage())
            .findFirst();
  }

  private static Duration duration(String text) {
    return Durations.parse(text)
        .orElseThrow(() -> new IllegalArgumentException("--timeout " + text + ": give e.g. 30m"));
  }
}
