package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSchedule;
import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.model.ChangeBackups;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The EtcdBackups of each cluster, as the cluster controller sees them: a cache of every backup,
 * mapped to its cluster by {@code spec.clusterRef.name}, so that a cluster whose data is gone can
 * name its newest complete backup as the way out.
 */
final class Backups {
  private Backups() {}

  static InformerEventSource<EtcdBackup, EtcdCluster> source(
      EventSourceContext<EtcdCluster> context) {
    return byClusterRef(
        context,
        EtcdBackup.class,
        "etcdbackups",
        b -> b.getSpec() == null ? null : b.getSpec().getClusterRef());
  }

  /** The EtcdBackupSchedules, mapped to their cluster by {@code spec.clusterRef.name}. */
  static InformerEventSource<EtcdBackupSchedule, EtcdCluster> schedules(
      EventSourceContext<EtcdCluster> context) {
    return byClusterRef(
        context,
        EtcdBackupSchedule.class,
        "etcdbackupschedules",
        s -> s.getSpec() == null ? null : s.getSpec().getClusterRef());
  }

  /** An informer of {@code type}, each object mapped to the cluster its clusterRef names. */
  private static <R extends HasMetadata> InformerEventSource<R, EtcdCluster> byClusterRef(
      EventSourceContext<EtcdCluster> context,
      Class<R> type,
      String name,
      Function<R, LocalObjectReference> clusterRef) {
    var config =
        InformerEventSourceConfiguration.from(type, EtcdCluster.class)
            .withName(name)
            .withSecondaryToPrimaryMapper(
                (R r) -> {
                  LocalObjectReference ref = clusterRef.apply(r);
                  return ref == null || ref.getName() == null
                      ? Set.of()
                      : Set.of(new ResourceID(ref.getName(), r.getMetadata().getNamespace()));
                })
            .build();
    return new InformerEventSource<>(config, context);
  }

  /**
   * What the planner needs to back {@code cluster} up before a change: spec.backupBeforeChanges,
   * the first schedule by name with a destination, and the cluster's backups by name.
   */
  static ChangeBackups beforeChanges(
      EtcdCluster cluster,
      Collection<EtcdBackup> backups,
      Collection<EtcdBackupSchedule> schedules) {
    Optional<EtcdBackupSchedule> schedule =
        schedules.stream()
            .filter(s -> s.getSpec() != null && s.getSpec().getDestination() != null)
            .min(Comparator.comparing(s -> s.getMetadata().getName()));
    Map<String, ChangeBackups.Seen> seen = new HashMap<>();
    for (EtcdBackup b : backups) {
      EtcdBackupStatus status = b.getStatus();
      seen.put(
          b.getMetadata().getName(),
          new ChangeBackups.Seen(
              status == null || status.getPhase() == null ? "" : status.getPhase(),
              status == null
                  ? ""
                  : status.getConditions().stream()
                      .filter(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus()))
                      .map(c -> c.getMessage() == null ? "" : c.getMessage())
                      .findFirst()
                      .orElse("")));
    }
    return new ChangeBackups(
        ChangeBackups.Policy.of(
            cluster.getSpec() == null ? null : cluster.getSpec().getBackupBeforeChanges()),
        schedule.map(s -> s.getMetadata().getName()),
        schedule.map(s -> s.getSpec().getDestination()),
        seen);
  }

  /** When the newest complete backup was taken (its completion time). */
  static Optional<Instant> newestCompletion(Collection<EtcdBackup> backups) {
    return backups.stream()
        .filter(
            b ->
                b.getStatus() != null && EtcdBackupStatus.COMPLETE.equals(b.getStatus().getPhase()))
        .map(b -> b.getStatus().getCompletionTime())
        .filter(t -> t != null)
        .map(
            t -> {
              try {
                return Instant.parse(t);
              } catch (DateTimeParseException e) {
                return null;
              }
            })
        .filter(t -> t != null)
        .max(Comparator.naturalOrder());
  }

  /** The newest complete backup, described: name, revision, when, where. */
  static Optional<String> newest(Collection<EtcdBackup> backups) {
    return backups.stream()
        .filter(
            b ->
                b.getStatus() != null && EtcdBackupStatus.COMPLETE.equals(b.getStatus().getPhase()))
        .filter(
            b -> b.getStatus().getSnapshot() != null && b.getStatus().getCompletionTime() != null)
        .max(Comparator.comparing(b -> b.getStatus().getCompletionTime()))
        .map(
            b ->
                "EtcdBackup "
                    + b.getMetadata().getName()
                    + " (revision "
                    + b.getStatus().getSnapshot().getRevision()
                    + ", taken "
                    + b.getStatus().getCompletionTime()
                    + ", "
                    + b.getStatus().getSnapshot().getUri()
                    + ")");
  }
}
