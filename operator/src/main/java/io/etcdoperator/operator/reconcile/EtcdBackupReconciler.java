package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.etcd.EtcdHttp;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.model.BackupPods;
import io.etcdoperator.operator.model.BackupSpecs;
import io.etcdoperator.operator.model.Conditions;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.observe.ClusterObserver;
import io.etcdoperator.operator.observe.ClusterTls;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.plan.BackupPlan;
import io.etcdoperator.operator.plan.BackupView;
import io.etcdoperator.operator.tls.TlsReport;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EtcdBackup controller: observe (the backup, its cluster's objects and a probe of its members,
 * the agent pod), plan ({@link BackupPlan}, pure), act (create or delete the agent pod), report
 * (the status, written when it changed). The snapshot itself is taken by the agent pod ({@link
 * io.etcdoperator.operator.backup.BackupAgent} says why there); this controller survives being
 * killed at any point, since all it knows is in the world: the pod and the backup's status.
 *
 * <p>Deleting a backup that carries {@value Names#DELETE_DATA_ANNOTATION}{@code : "true"} (a
 * schedule's backups do) first runs a pod that deletes its snapshot and manifest; the object goes
 * once that pod succeeded. A deletion that fails is retried every {@link #RETRY_DELETE}; removing
 * the annotation lets the object go and keeps the data.
 */
public final class EtcdBackupReconciler implements Reconciler<EtcdBackup>, Cleaner<EtcdBackup> {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdBackupReconciler.class);
  static final Duration RETRY_DELETE = Duration.ofSeconds(10);

  /** The condition that says why a backup's data could not be deleted. */
  static final String DATA_DELETED = "DataDeleted";

  private final Clock clock;
  private final String image;
  private final ClusterObserver observer;

  public EtcdBackupReconciler(EtcdService etcd, EtcdHttp metrics, Clock clock, String image) {
    this.clock = clock;
    this.image = image;
    this.observer = new ClusterObserver(etcd, metrics, clock);
  }

  @Override
  public List<EventSource<?, EtcdBackup>> prepareEventSources(
      EventSourceContext<EtcdBackup> context) {
    var config =
        InformerEventSourceConfiguration.from(Pod.class, EtcdBackup.class)
            .withName("backup-pods")
            .withLabelSelector(Names.BACKUP_LABEL)
            .withSecondaryToPrimaryMapper(
                (Pod p) ->
                    Set.of(
                        new ResourceID(
                            p.getMetadata().getLabels().get(Names.BACKUP_LABEL),
                            p.getMetadata().getNamespace())))
            .build();
    return List.of(new InformerEventSource<>(config, context));
  }

  @Override
  public UpdateControl<EtcdBackup> reconcile(EtcdBackup backup, Context<EtcdBackup> context) {
    KubernetesClient client = context.getClient();
    Pod agent =
        client
            .pods()
            .inNamespace(backup.getMetadata().getNamespace())
            .withName(Names.backupPod(backup.getMetadata().getName()))
            .get();
    if (agent != null && !ownedBy(agent, backup)) {
      // The agent pod of an earlier EtcdBackup of this name (deleted, and created again before
      // its pod was collected): its result is not this backup's. Remove it, then start afresh.
      LOG.info(
          "EtcdBackup {}/{}: pod {} belongs to an earlier EtcdBackup of this name; deleting it",
          backup.getMetadata().getNamespace(),
          backup.getMetadata().getName(),
          agent.getMetadata().getName());
      client.resource(agent).withGracePeriod(0).delete();
      return UpdateControl.<EtcdBackup>noUpdate().rescheduleAfter(Duration.ofSeconds(1));
    }
    Observed observed = observe(backup, agent, client);
    BackupPlan.Decision d = BackupPlan.decide(observed.view());
    // A pod is deleted only once the status that says why is stored: deleted first, a conflict on
    // the status write would leave Started and no pod, which the next look takes for a lost pod.
    boolean statusFirst = d.action() instanceof BackupPlan.Action.DeletePod;
    if (!statusFirst) {
      act(backup, client, d.action(), observed.security());
    }
    EtcdBackupStatus previous = backup.getStatus();
    if (!d.status().equals(previous)) {
      backup.setStatus(d.status());
      try {
        client.resource(backup).updateStatus();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        return UpdateControl.<EtcdBackup>noUpdate().rescheduleAfter(Duration.ofMillis(250));
      }
      LOG.info(
          "EtcdBackup {}/{}: {} ({})",
          backup.getMetadata().getNamespace(),
          backup.getMetadata().getName(),
          d.status().getPhase(),
          d.rule());
    }
    if (statusFirst) {
      act(backup, client, d.action(), observed.security());
    }
    UpdateControl<EtcdBackup> control = UpdateControl.noUpdate();
    return d.requeueAfter().map(control::rescheduleAfter).orElse(control);
  }

  /** The backup's view, and the TLS of its cluster (what its agent pod is given). */
  private record Observed(BackupView view, Security security) {}

  /** Whether {@code pod} names {@code backup} (this object, by UID) as its owner. */
  static boolean ownedBy(Pod pod, EtcdBackup backup) {
    var owners = pod.getMetadata().getOwnerReferences();
    return owners != null
        && owners.stream().anyMatch(o -> o.getUid().equals(backup.getMetadata().getUid()));
  }

  private Observed observe(EtcdBackup backup, Pod agent, KubernetesClient client) {
    var meta = backup.getMetadata();
    String ns = meta.getNamespace();
    String cluster =
        backup.getSpec() == null || backup.getSpec().getClusterRef() == null
            ? ""
            : String.valueOf(backup.getSpec().getClusterRef().getName());
    Optional<BackupView.AgentPod> pod =
        Optional.ofNullable(agent).map(EtcdBackupReconciler::agentPod);
    Optional<ClusterView> clusterView = Optional.empty();
    boolean finished =
        backup.getStatus() != null
            && (EtcdBackupStatus.COMPLETE.equals(backup.getStatus().getPhase())
                || EtcdBackupStatus.FAILED.equals(backup.getStatus().getPhase()));
    List<String> problems = new ArrayList<>(BackupSpecs.validate(backup));
    EtcdCluster target =
        finished || cluster.isBlank()
            ? null
            : client.resources(EtcdCluster.class).inNamespace(ns).withName(cluster).get();
    Security security =
        target == null || target.getSpec() == null
            ? Security.NONE
            : Security.of(target.getSpec().getSecurity());
    if (target != null) {
      TlsReport tls =
          ClusterTls.check(
              target,
              name -> Optional.ofNullable(client.secrets().inNamespace(ns).withName(name).get()),
              new TreeSet<>(),
              clock.instant());
      if (!tls.invalid().isEmpty()) {
        problems.add(
            "spec.clusterRef.name: the TLS Secrets of EtcdCluster "
                + cluster
                + " are not usable ("
                + String.join("; ", tls.invalid().stream().map(Object::toString).toList())
                + "); fix them (the cluster's CertificatesReady condition says the same)");
      } else {
        clusterView = Optional.of(observeCluster(client, ns, cluster, security, tls));
      }
    }
    Instant created =
        meta.getCreationTimestamp() == null
            ? clock.instant()
            : Instant.parse(meta.getCreationTimestamp());
    return new Observed(
        new BackupView(
            clock.instant(),
            meta.getName(),
            ns,
            cluster,
            created,
            Optional.ofNullable(backup.getStatus()),
            clusterView,
            problems,
            pod),
        security);
  }

  /** The cluster's objects (read from the API: this controller keeps no cache of them). */
  private ClusterView observeCluster(
      KubernetesClient client, String ns, String cluster, Security security, TlsReport tls) {
    Map<String, String> selector = Names.selectorLabels(cluster);
    StatefulSet sts =
        client.apps().statefulSets().inNamespace(ns).withName(Names.statefulSet(cluster)).get();
    List<Pod> pods = client.pods().inNamespace(ns).withLabels(selector).list().getItems();
    List<PersistentVolumeClaim> claims =
        client.persistentVolumeClaims().inNamespace(ns).withLabels(selector).list().getItems();
    ConfigMap state =
        client.configMaps().inNamespace(ns).withName(Names.clusterStateConfigMap(cluster)).get();
    return observer.observe(
        ns,
        cluster,
        new ClusterObserver.Objects(
            Optional.ofNullable(sts), pods, claims, Optional.ofNullable(state), Optional.empty()),
        security.clientScheme(),
        tls);
  }

  static BackupView.AgentPod agentPod(Pod p) {
    String phase =
        p.getStatus() == null || p.getStatus().getPhase() == null
            ? "Pending"
            : p.getStatus().getPhase();
    Optional<ContainerStatus> c =
        p.getStatus() == null || p.getStatus().getContainerStatuses() == null
            ? Optional.empty()
            : p.getStatus().getContainerStatuses().stream().findFirst();
    var state = c.map(ContainerStatus::getState);
    var terminated = state.map(s -> s.getTerminated());
    var waiting = state.map(s -> s.getWaiting());
    Optional<Instant> started =
        state
            .map(s -> s.getRunning() != null ? s.getRunning().getStartedAt() : null)
            .or(() -> terminated.map(t -> t.getStartedAt()))
            .map(Instant::parse);
    return new BackupView.AgentPod(
        p.getMetadata().getName(),
        phase,
        started,
        terminated.map(t -> t.getMessage()).orElse(""),
        terminated.map(t -> t.getExitCode()),
        waiting.map(w -> w.getReason()).orElse(""),
        waiting.map(w -> w.getMessage()).orElse(""),
        attemptOf(p),
        p.getMetadata().getCreationTimestamp() == null
            ? Instant.now()
            : Instant.parse(p.getMetadata().getCreationTimestamp()));
  }

  /** The attempt a pod's annotation names; 1 when absent or unreadable. */
  static int attemptOf(Pod p) {
    var annotations = p.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(Names.BACKUP_ATTEMPT_ANNOTATION);
    try {
      return value == null ? 1 : Math.max(1, Integer.parseInt(value));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  private void act(
      EtcdBackup backup, KubernetesClient client, BackupPlan.Action action, Security security) {
    if (action instanceof BackupPlan.Action.CreatePod create) {
      Pod pod =
          BackupPods.backup(
              backup, create.member(), create.clientUrl(), create.attempt(), image, security);
      try {
        client.resource(pod).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    } else if (action instanceof BackupPlan.Action.DeletePod delete) {
      client
          .pods()
          .inNamespace(backup.getMetadata().getNamespace())
          .withName(delete.name())
          .delete();
    }
  }

  @Override
  public DeleteControl cleanup(EtcdBackup backup, Context<EtcdBackup> context) {
    var meta = backup.getMetadata();
    boolean deleteData =
        meta.getAnnotations() != null
            && "true".equals(meta.getAnnotations().get(Names.DELETE_DATA_ANNOTATION));
    if (!deleteData || backup.getStatus() == null || backup.getStatus().getStartTime() == null) {
      return DeleteControl.defaultDelete();
    }
    KubernetesClient client = context.getClient();
    var pods = client.pods().inNamespace(meta.getNamespace());
    Pod pod = pods.withName(Names.backupDeletePod(meta.getName())).get();
    if (pod == null) {
      try {
        client.resource(BackupPods.delete(backup, image)).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(Duration.ofSeconds(1));
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase)) {
      LOG.info("EtcdBackup {}/{}: its data was deleted", meta.getNamespace(), meta.getName());
      return DeleteControl.defaultDelete();
    }
    if ("Failed".equals(phase)) {
      BackupView.AgentPod ended = agentPod(pod);
      String said =
          ended.message().isBlank()
              ? "exit code " + ended.exitCode().map(String::valueOf).orElse("?")
              : ended.message().trim();
      LOG.warn(
          "EtcdBackup {}/{}: deleting its data failed ({}); trying again in {} s",
          meta.getNamespace(),
          meta.getName(),
          said,
          RETRY_DELETE.toSeconds());
      reportDeletionFailed(client, backup, said);
      pods.withName(pod.getMetadata().getName()).delete();
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(RETRY_DELETE);
    }
    return DeleteControl.noFinalizerRemoval().rescheduleAfter(Duration.ofSeconds(1));
  }

  /**
   * Says in the backup's status (condition {@value #DATA_DELETED}) why its data could not be
   * deleted and the two ways on: the deletion is tried again every {@link #RETRY_DELETE} for as
   * long as the annotation asks for it, and the EtcdBackup (with its finalizer) stays until then. A
   * write that fails is left to the next try: the status is a report here, not the state.
   */
  private void reportDeletionFailed(KubernetesClient client, EtcdBackup backup, String said) {
    EtcdBackupStatus status = backup.getStatus();
    String message =
        "deleting the backup's data failed: "
            + said
            + "; tried again every "
            + RETRY_DELETE.toSeconds()
            + " s. Fix what it says (the store, the credentials Secret), or remove the annotation "
            + Names.DELETE_DATA_ANNOTATION
            + " to keep the data and let the EtcdBackup go";
    List<Condition> conditions = new ArrayList<>(status.getConditions());
    Optional<Condition> before =
        conditions.stream().filter(c -> DATA_DELETED.equals(c.getType())).findFirst();
    if (before.filter(c -> message.equals(c.getMessage())).isPresent()) {
      return;
    }
    before.ifPresent(conditions::remove);
    conditions.add(
        Conditions.keepingSince(
            before.stream().toList(),
            clock.instant(),
            DATA_DELETED,
            false,
            "DeletionFailed",
            message));
    status.setConditions(conditions);
    try {
      client.resource(backup).updateStatus();
    } catch (KubernetesClientException e) {
      LOG.debug("status of a backup being deleted not written: {}", e.getMessage());
    }
  }
}
