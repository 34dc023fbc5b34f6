package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSchedule;
import io.etcdoperator.api.v1alpha1.EtcdBackupScheduleStatus;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.metrics.OperatorMetrics;
import io.etcdoperator.operator.model.BackupPods;
import io.etcdoperator.operator.model.Cron;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.plan.SchedulePlan;
import io.etcdoperator.operator.plan.ScheduleViews;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EtcdBackupSchedule controller: reads the schedule and the EtcdBackups it owns (by label),
 * asks {@link SchedulePlan} (pure) what to create and delete, does it, and writes the status. The
 * backups it creates carry the schedule's label, the firing in an annotation and {@value
 * Names#DELETE_DATA_ANNOTATION} (deleting one deletes its data, as retention does); they have no
 * owner reference, so that deleting the schedule keeps them and their data.
 */
public final class EtcdBackupScheduleReconciler implements Reconciler<EtcdBackupSchedule> {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdBackupScheduleReconciler.class);
  private final Clock clock;
  private final String image;
  private final OperatorMetrics metrics;

  public EtcdBackupScheduleReconciler(Clock clock) {
    this(clock, Names.DEFAULT_OPERATOR_IMAGE);
  }

  /**
   * @param image what the archiver pod of a continuous backup runs
   */
  public EtcdBackupScheduleReconciler(Clock clock, String image) {
    this(clock, image, OperatorMetrics.discarding());
  }

  /**
   * @param image what the archiver pod of a continuous backup runs
   * @param metrics where each schedule's newest backup and interval go
   */
  public EtcdBackupScheduleReconciler(Clock clock, String image, OperatorMetrics metrics) {
    this.clock = clock;
    this.image = image;
    this.metrics = metrics;
  }

  @Override
  public List<EventSource<?, EtcdBackupSchedule>> prepareEventSources(
      EventSourceContext<EtcdBackupSchedule> context) {
    var config =
        InformerEventSourceConfiguration.from(EtcdBackup.class, EtcdBackupSchedule.class)
            .withName("scheduled-backups")
            .withLabelSelector(Names.SCHEDULE_LABEL)
            .withSecondaryToPrimaryMapper(
                (EtcdBackup b) ->
                    Set.of(
                        new ResourceID(
                            b.getMetadata().getLabels().get(Names.SCHEDULE_LABEL),
                            b.getMetadata().getNamespace())))
            .build();
    return List.of(new InformerEventSource<>(config, context));
  }

  @Override
  public UpdateControl<EtcdBackupSchedule> reconcile(
      EtcdBackupSchedule schedule, Context<EtcdBackupSchedule> context) {
    KubernetesClient client = context.getClient();
    var meta = schedule.getMetadata();
    if (context.isPrimaryResourceDeleted()) {
      metrics.forgetSchedule(meta.getNamespace(), meta.getName());
    }
    List<EtcdBackup> owned =
        client
            .resources(EtcdBackup.class)
            .inNamespace(meta.getNamespace())
            .withLabel(Names.SCHEDULE_LABEL, meta.getName())
            .list()
            .getItems();
    SchedulePlan.Decision d =
        SchedulePlan.decide(
            ScheduleViews.of(schedule, owned, clock.instant()), schedule.getStatus());
    d.create().ifPresent(c -> create(client, schedule, c));
    for (String name : d.delete()) {
      LOG.info(
          "EtcdBackupSchedule {}/{}: deleting old backup {}",
          meta.getNamespace(),
          meta.getName(),
          name);
      client.resources(EtcdBackup.class).inNamespace(meta.getNamespace()).withName(name).delete();
    }
    d.status().setChangeLog(archiver(client, schedule, d));
    if (!context.isPrimaryResourceDeleted()) {
      measure(schedule, d.status());
    }
    if (!d.status().equals(schedule.getStatus())) {
      schedule.setStatus(d.status());
      try {
        client.resource(schedule).updateStatus();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        // Read again soon: waiting for the next firing would leave the status stale that long.
        return UpdateControl.<EtcdBackupSchedule>noUpdate().rescheduleAfter(Duration.ofMillis(250));
      }
    }
    return UpdateControl.<EtcdBackupSchedule>noUpdate().rescheduleAfter(d.requeueAfter());
  }

  /** The schedule's newest complete backup and the longest time between its firings. */
  private void measure(EtcdBackupSchedule schedule, EtcdBackupScheduleStatus status) {
    var spec = schedule.getSpec();
    String cluster =
        spec == null || spec.getClusterRef() == null || spec.getClusterRef().getName() == null
            ? ""
            : spec.getClusterRef().getName();
    Optional<Instant> last = Optional.empty();
    if (status.getLastSuccessfulBackupTime() != null) {
      try {
        last = Optional.of(Instant.parse(status.getLastSuccessfulBackupTime()));
      } catch (DateTimeParseException e) {
        // not a time: no value
      }
    }
    Optional<Duration> interval = Optional.empty();
    if (spec != null && spec.getSchedule() != null && Cron.problem(spec.getSchedule()).isEmpty()) {
      interval = Cron.parse(spec.getSchedule()).longestInterval(clock.instant());
    }
    metrics.schedule(
        schedule.getMetadata().getNamespace(),
        schedule.getMetadata().getName(),
        cluster,
        last,
        interval);
  }

  /**
   * Continuous backup: keeps the archiver pod running while {@code spec.continuous.enabled} (one
   * pod of a fixed name, so never two writers of the log; a pod that ended is replaced), deletes it
   * otherwise; returns where the change log is, or null.
   */
  private String archiver(
      KubernetesClient client, EtcdBackupSchedule schedule, SchedulePlan.Decision d) {
    var meta = schedule.getMetadata();
    var pods = client.pods().inNamespace(meta.getNamespace());
    var pod = pods.withName(Names.archiverPod(meta.getName())).get();
    boolean valid =
        d.status().getConditions().stream()
            .noneMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()));
    if (!ScheduleViews.continuous(schedule.getSpec()) || !valid) {
      if (pod != null) {
        pods.withName(pod.getMetadata().getName()).delete();
      }
      return null;
    }
    String phase = pod == null || pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if (pod == null) {
      try {
        // The cluster's TLS, read when the pod is made: its agent calls members as the operator.
        var target =
            client
                .resources(EtcdCluster.class)
                .inNamespace(meta.getNamespace())
                .withName(schedule.getSpec().getClusterRef().getName())
                .get();
        var security =
            target == null || target.getSpec() == null
                ? Security.NONE
                : Security.of(target.getSpec().getSecurity());
        client.resource(BackupPods.archiver(schedule, image, security)).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    } else if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
      pods.withName(pod.getMetadata().getName()).delete();
    }
    var dest = schedule.getSpec().getDestination();
    String log = BackupPods.changeLog(schedule);
    return dest.getS3() != null
        ? "s3://" + dest.getS3().getBucket() + "/" + log
        : "pvc://"
            + dest.getPvc().getClaimName()
            + (dest.getPvc().getSubPath() == null || dest.getPvc().getSubPath().isBlank()
                ? ""
                : "/" + dest.getPvc().getSubPath())
            + "/"
            + log;
  }

  private static void create(
      KubernetesClient client, EtcdBackupSchedule schedule, SchedulePlan.Create c) {
    var meta = schedule.getMetadata();
    EtcdBackup b = ScheduleViews.backup(schedule, c);
    try {
      client.resource(b).create();
      LOG.info(
          "EtcdBackupSchedule {}/{}: created backup {}",
          meta.getNamespace(),
          meta.getName(),
          c.name());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }
}
