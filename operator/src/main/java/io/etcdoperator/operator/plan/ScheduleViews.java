package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSchedule;
import io.etcdoperator.api.v1alpha1.EtcdBackupScheduleSpec;
import io.etcdoperator.api.v1alpha1.EtcdBackupSpec;
import io.etcdoperator.operator.model.BackupSpecs;
import io.etcdoperator.operator.model.Names;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What an EtcdBackupSchedule and its backups say, as {@link SchedulePlan} reads it. */
public final class ScheduleViews {
  private ScheduleViews() {}

  /** The view of {@code schedule} and the backups it owns, at {@code now}. */
  public static SchedulePlan.View of(
      EtcdBackupSchedule schedule, List<EtcdBackup> owned, Instant now) {
    var meta = schedule.getMetadata();
    EtcdBackupScheduleSpec spec = schedule.getSpec();
    List<String> problems = new ArrayList<>();
    if (meta.getName() != null && meta.getName().length() > BackupSpecs.MAX_SCHEDULE_NAME) {
      problems.add(
          "metadata.name: at most "
              + BackupSpecs.MAX_SCHEDULE_NAME
              + " characters, got "
              + meta.getName().length()
              + ": each backup is named <schedule>-<yyyyMMddHHmm>, and a backup's name labels"
              + " its agent pod (a label value holds 63); choose a shorter name");
    }
    if (spec.getClusterRef() == null || spec.getClusterRef().getName() == null) {
      problems.add("spec.clusterRef.name: clusterRef.name is required");
    }
    problems.addAll(BackupSpecs.destination(spec.getDestination(), "spec.destination", false));
    var retention = spec.getRetention();
    int keepLast =
        retention != null && retention.getKeepLast() != null
            ? retention.getKeepLast()
            : spec.getSuccessfulJobsHistoryLimit() == null
                ? 3
                : spec.getSuccessfulJobsHistoryLimit();
    List<SchedulePlan.OwnedBackup> backups = new ArrayList<>();
    for (EtcdBackup b : owned) {
      if (b.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      var status = b.getStatus();
      Map<String, String> annotations =
          b.getMetadata().getAnnotations() == null ? Map.of() : b.getMetadata().getAnnotations();
      Instant scheduledAt =
          Optional.ofNullable(annotations.get(Names.SCHEDULED_AT_ANNOTATION))
              .map(Instant::parse)
              .orElse(Instant.parse(b.getMetadata().getCreationTimestamp()));
      Optional<Condition> failed =
          status == null
              ? Optional.empty()
              : status.getConditions().stream()
                  .filter(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus()))
                  .findFirst();
      backups.add(
          new SchedulePlan.OwnedBackup(
              b.getMetadata().getName(),
              scheduledAt,
              status == null ? null : status.getPhase(),
              Optional.ofNullable(status == null ? null : status.getCompletionTime())
                  .map(Instant::parse),
              failed.map(Condition::getReason).orElse(""),
              failed.map(Condition::getMessage).orElse("")));
    }
    return new SchedulePlan.View(
        now,
        meta.getName(),
        spec.getSchedule(),
        Instant.parse(meta.getCreationTimestamp()),
        problems,
        keepLast,
        retention == null || retention.getKeepFor() == null ? "" : retention.getKeepFor(),
        spec.getFailedJobsHistoryLimit() == null ? 1 : spec.getFailedJobsHistoryLimit(),
        Optional.ofNullable(schedule.getStatus())
            .map(s -> s.getLastScheduleTime())
            .map(Instant::parse),
        backups,
        continuous(spec));
  }

  /** Whether {@code spec.continuous.enabled}. */
  public static boolean continuous(EtcdBackupScheduleSpec spec) {
    return spec.getContinuous() != null && Boolean.TRUE.equals(spec.getContinuous().getEnabled());
  }

  /**
   * The EtcdBackup a firing creates: named by the plan, labelled with its schedule, annotated with
   * the firing's time and that deleting it deletes its data; no owner reference, so that deleting
   * the schedule keeps its backups and their data.
   */
  public static EtcdBackup backup(EtcdBackupSchedule schedule, SchedulePlan.Create c) {
    var meta = schedule.getMetadata();
    EtcdBackup b = new EtcdBackup();
    b.getMetadata().setName(c.name());
    b.getMetadata().setNamespace(meta.getNamespace());
    b.getMetadata().setLabels(Map.of(Names.SCHEDULE_LABEL, meta.getName()));
    b.getMetadata()
        .setAnnotations(
            Map.of(
                Names.SCHEDULED_AT_ANNOTATION,
                c.scheduledAt().toString(),
                Names.DELETE_DATA_ANNOTATION,
                "true"));
    EtcdBackupSpec spec = new EtcdBackupSpec();
    spec.setClusterRef(schedule.getSpec().getClusterRef());
    spec.setDestination(schedule.getSpec().getDestination());
    b.setSpec(spec);
    return b;
  }

  /**
   * The EtcdBackup the cluster controller takes before a change ({@code ChangeBackupRules}):
   * labelled with the cluster and the kind of change. No owner reference, so that it outlives the
   * cluster it saves, and no {@value Names#DELETE_DATA_ANNOTATION}: no retention deletes it, and
   * deleting the object (to take a failed one again) leaves whatever is stored, as for a backup a
   * user creates; a failed one's store may refuse the deletion as it refused the backup.
   */
  public static EtcdBackup beforeChange(String namespace, String cluster, Step.CreateBackup step) {
    EtcdBackup b = new EtcdBackup();
    b.getMetadata().setName(step.name());
    b.getMetadata().setNamespace(namespace);
    b.getMetadata()
        .setLabels(Map.of(Names.LABEL_INSTANCE, cluster, Names.BEFORE_CHANGE_LABEL, step.kind()));
    EtcdBackupSpec spec = new EtcdBackupSpec();
    spec.setClusterRef(new LocalObjectReference(cluster));
    spec.setDestination(step.destination());
    b.setSpec(spec);
    return b;
  }
}
