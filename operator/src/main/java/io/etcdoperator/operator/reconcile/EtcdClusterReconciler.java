package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.CallHook;
import io.etcdoperator.operator.etcd.EtcdMetrics;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.model.InvalidSpecException;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.SpecProblem;
import io.etcdoperator.operator.observe.ClusterObserver;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.plan.Plan;
import io.etcdoperator.operator.plan.Planner;
import io.etcdoperator.operator.plan.Target;
import io.etcdoperator.operator.reconcile.StepExecutor.Outcome;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EtcdCluster controller. One reconcile is four named steps: observe the world (Kubernetes
 * objects from the informer caches, a probe of every member), plan (a pure function of spec and
 * observation), act (keep the objects as desired, then at most one membership or pod change), and
 * report (status recomputed from the observation, written only when it changed; Events on
 * transitions). Then look again: at once after a change, soon while anything is pending, less often
 * when Ready, and whenever one of the cluster's objects changes.
 */
public final class EtcdClusterReconciler implements Reconciler<EtcdCluster>, Cleaner<EtcdCluster> {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdClusterReconciler.class);

  /** After a membership change, look again this soon: the next step may follow. */
  static final Duration AFTER_CHANGE = Duration.ofMillis(250);

  /** A learner etcd will not promote yet usually catches up within a second. */
  static final Duration NOT_YET = Duration.ofSeconds(1);

  private final EtcdService etcd;
  private final Clock clock;
  private final Duration quorumLossAlarm;
  private final CallHook hook;
  private final ClusterObserver observer;
  private final Map<Class<?>, InformerEventSource<?, EtcdCluster>> caches = new HashMap<>();

  public EtcdClusterReconciler(
      EtcdService etcd, EtcdMetrics metrics, Clock clock, Duration quorumLossAlarm) {
    this(etcd, metrics, clock, quorumLossAlarm, CallHook.NONE);
  }

  public EtcdClusterReconciler(
      EtcdService etcd, EtcdMetrics metrics, Clock clock, Duration quorumLossAlarm, CallHook hook) {
    this.hook = hook;
    this.etcd = etcd;
    this.clock = clock;
    this.quorumLossAlarm = quorumLossAlarm;
    this.observer = new ClusterObserver(etcd, metrics, clock);
  }

  @Override
  public List<EventSource<?, EtcdCluster>> prepareEventSources(
      EventSourceContext<EtcdCluster> context) {
    return List.of(
        cache(context, StatefulSet.class),
        cache(context, Pod.class),
        cache(context, PersistentVolumeClaim.class),
        cache(context, ConfigMap.class),
        cache(context, Service.class),
        cache(context, PodDisruptionBudget.class));
  }

  private <R extends HasMetadata> InformerEventSource<R, EtcdCluster> cache(
      EventSourceContext<EtcdCluster> context, Class<R> type) {
    var config =
        InformerEventSourceConfiguration.from(type, EtcdCluster.class)
            .withName(type.getSimpleName().toLowerCase())
            .withLabelSelector(Names.LABEL_MANAGED_BY + "=" + Names.MANAGER)
            .withSecondaryToPrimaryMapper(
                (R r) -> {
                  Map<String, String> labels = r.getMetadata().getLabels();
                  String instance = labels == null ? null : labels.get(Names.LABEL_INSTANCE);
                  return instance == null
                      ? Set.of()
                      : Set.of(new ResourceID(instance, r.getMetadata().getNamespace()));
                })
            .build();
    InformerEventSource<R, EtcdCluster> source = new InformerEventSource<>(config, context);
    caches.put(type, source);
    return source;
  }

  @Override
  public UpdateControl<EtcdCluster> reconcile(EtcdCluster cluster, Context<EtcdCluster> context) {
    Instant started = clock.instant();
    String namespace = cluster.getMetadata().getNamespace();
    String name = cluster.getMetadata().getName();
    Cached cached = new Cached(context, name);

    Spec spec = Spec.of(cluster);
    ClusterView view = observer.observe(namespace, name, cached.objects());
    Plan plan = Planner.plan(spec.target(), view);
    Actions actions = new Actions(context, cluster);
    if (plan.manageObjects()) {
      actions.keepObjects(spec.model().orElseThrow(), plan, cached);
    }
    Outcome outcome =
        new StepExecutor(context.getClient(), etcd, hook)
            .execute(namespace, name, plan.step(), view, spec.model());
    actions.report(outcome);

    EtcdClusterStatus previous = cluster.getStatus();
    EtcdClusterStatus status =
        Escalation.apply(
            StatusMerger.merge(previous, plan.status(), clock.instant()),
            clock.instant(),
            quorumLossAlarm);
    for (Transitions.Notice n : Transitions.between(previous, status)) {
      actions.event(n.warning(), n.reason(), n.message());
    }
    Duration next =
        outcome instanceof Outcome.Done
            ? AFTER_CHANGE
            : outcome instanceof Outcome.NotYet ? NOT_YET : plan.requeueAfter();
    boolean changed = !status.equals(previous);
    if (changed && !writeStatus(cluster, status, context)) {
      next = AFTER_CHANGE;
    }
    LOG.debug(
        "Reconciled in {} ms (probe {} ms): {}; status {}; next in {} ms",
        Duration.between(started, clock.instant()).toMillis(),
        Duration.between(started, view.now()).toMillis(),
        plan.step().describe(),
        changed ? "written" : "unchanged",
        next.toMillis());
    return UpdateControl.<EtcdCluster>noUpdate().rescheduleAfter(next);
  }

  /**
   * Replaces the whole status (PUT on the status subresource), guarded by the resourceVersion this
   * reconcile read: a status is a function of one observation, so a patch computed against another
   * version would mix two. On a conflict (the resource changed meanwhile) nothing is written, and
   * the next reconcile, soon, computes it afresh.
   */
  private boolean writeStatus(
      EtcdCluster cluster, EtcdClusterStatus status, Context<EtcdCluster> context) {
    cluster.setStatus(status);
    try {
      context.getClient().resource(cluster).updateStatus();
      hook.after("k8s updateStatus EtcdCluster " + cluster.getMetadata().getName());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public DeleteControl cleanup(EtcdCluster cluster, Context<EtcdCluster> context) {
    etcd.closeCluster(cluster.getMetadata().getNamespace() + "/" + cluster.getMetadata().getName());
    return DeleteControl.defaultDelete();
  }

  /** The spec, validated once: the planner's target, and the model when the spec is valid. */
  record Spec(Target target, Optional<EtcdClusterModel> model) {
    static Spec of(EtcdCluster cluster) {
      var meta = cluster.getMetadata();
      long generation = meta.getGeneration() == null ? 0 : meta.getGeneration();
      String optIn =
          meta.getAnnotations() == null
              ? null
              : meta.getAnnotations().get(Names.REBUILD_OPT_IN_ANNOTATION);
      Target.Rebuild rebuild = Target.Rebuild.of(meta.getUid(), optIn);
      try {
        EtcdClusterModel model = EtcdClusterModel.of(cluster);
        Target.Desired desired =
            new Target.Desired(
                model.replicas(), model.podTemplateHash(), model.usesPersistentStorage());
        return new Spec(
            Target.valid(meta.getNamespace(), meta.getName(), generation, desired)
                .withRebuild(rebuild),
            Optional.of(model));
      } catch (InvalidSpecException e) {
        List<String> problems = e.problems().stream().map(SpecProblem::toString).toList();
        return new Spec(
            Target.invalid(meta.getNamespace(), meta.getName(), generation, problems),
            Optional.empty());
      }
    }
  }

  /** The cluster's objects as the informer caches hold them. */
  private final class Cached {
    private final Context<EtcdCluster> context;
    private final String name;

    Cached(Context<EtcdCluster> context, String name) {
      this.context = context;
      this.name = name;
    }

    <R extends HasMetadata> Optional<R> named(Class<R> type, String objectName) {
      return context.getSecondaryResources(type).stream()
          .filter(r -> objectName.equals(r.getMetadata().getName()))
          .findFirst();
    }

    ClusterObserver.Objects objects() {
      return new ClusterObserver.Objects(
          named(StatefulSet.class, Names.statefulSet(name)),
          context.getSecondaryResources(Pod.class),
          context.getSecondaryResources(PersistentVolumeClaim.class),
          named(ConfigMap.class, Names.clusterStateConfigMap(name)),
          named(Pod.class, Names.rebuildPod(name)));
    }
  }

  /** The writes of one reconcile. */
  private final class Actions {
    private final Context<EtcdCluster> context;
    private final EtcdCluster cluster;
    private final ObjectWriter writer;
    private final EventRecorder events;

    Actions(Context<EtcdCluster> context, EtcdCluster cluster) {
      this.context = context;
      this.cluster = cluster;
      this.writer = new ObjectWriter(context.getClient(), hook);
      this.events = new EventRecorder(context.getClient(), clock);
    }

    void keepObjects(EtcdClusterModel model, Plan plan, Cached cached) {
      String name = cluster.getMetadata().getName();
      ensure(
          Service.class,
          model.headlessService(),
          cached.named(Service.class, Names.headlessService(name)));
      ensure(
          Service.class,
          model.clientService(),
          cached.named(Service.class, Names.clientService(name)));
      plan.clusterState()
          .ifPresent(
              decision -> {
                ClusterState state =
                    new ClusterState(
                        decision.existing() ? ClusterState.Kind.EXISTING : ClusterState.Kind.NEW,
                        decision.members(),
                        model.clusterToken());
                ConfigMap desired = model.clusterStateConfigMap(state);
                if (!decision.annotations().isEmpty()) {
                  Map<String, String> annotations = new HashMap<>();
                  if (desired.getMetadata().getAnnotations() != null) {
                    annotations.putAll(desired.getMetadata().getAnnotations());
                  }
                  annotations.putAll(decision.annotations());
                  desired.getMetadata().setAnnotations(annotations);
                }
                ensure(
                    ConfigMap.class,
                    desired,
                    cached.named(ConfigMap.class, Names.clusterStateConfigMap(name)));
              });
      plan.statefulSetReplicas()
          .ifPresent(
              replicas ->
                  ensure(
                      StatefulSet.class,
                      model.statefulSet(replicas),
                      cached.named(StatefulSet.class, Names.statefulSet(name))));
      plan.claimMembers().forEach((claim, memberId) -> markClaim(claim, memberId));
      Optional<PodDisruptionBudget> livePdb =
          cached.named(PodDisruptionBudget.class, Names.podDisruptionBudget(name));
      // The budget follows the members that exist, not the target: scaling 5 -> 3 must not
      // allow three disruptions while five members still need three for quorum.
      Optional<PodDisruptionBudget> pdb =
          model.podDisruptionBudget(plan.statefulSetReplicas().orElse(model.replicas()));
      if (pdb.isPresent()) {
        ensure(PodDisruptionBudget.class, pdb.get(), livePdb);
      } else {
        livePdb.ifPresent(
            p -> {
              context.getClient().resource(p).delete();
              hook.after("k8s delete PodDisruptionBudget " + p.getMetadata().getName());
            });
      }
    }

    /** Marks a claim with the member whose data it holds (a merge patch of one annotation). */
    private void markClaim(String claim, long memberId) {
      String patch =
          "{\"metadata\":{\"annotations\":{\""
              + Names.MEMBER_ID_ANNOTATION
              + "\":\""
              + Long.toHexString(memberId)
              + "\"}}}";
      context
          .getClient()
          .persistentVolumeClaims()
          .inNamespace(cluster.getMetadata().getNamespace())
          .withName(claim)
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      hook.after("k8s patch PersistentVolumeClaim " + claim);
    }

    @SuppressWarnings("unchecked")
    private <R extends HasMetadata> void ensure(Class<R> type, R desired, Optional<R> live) {
      Optional<R> written = writer.ensure(desired, live);
      if (written.isEmpty()) {
        return;
      }
      var cache = (InformerEventSource<R, EtcdCluster>) caches.get(type);
      ResourceID primary = ResourceID.fromResource(cluster);
      if (live.isPresent()) {
        cache.handleRecentResourceUpdate(primary, written.get(), live.get());
      } else {
        cache.handleRecentResourceCreate(primary, written.get());
      }
    }

    void report(Outcome outcome) {
      if (outcome instanceof Outcome.Done d) {
        events.normal(cluster, d.reason(), d.message());
      } else if (outcome instanceof Outcome.Failed f) {
        events.warning(cluster, "StepFailed", f.message());
      }
    }

    void event(boolean warning, String reason, String message) {
      if (warning) {
        events.warning(cluster, reason, message);
      } else {
        events.normal(cluster, reason, message);
      }
    }
  }
}
