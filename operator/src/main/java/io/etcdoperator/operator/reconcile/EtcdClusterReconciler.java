package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.CallHook;
import io.etcdoperator.operator.etcd.EtcdHttp;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.metrics.OperatorMetrics;
import io.etcdoperator.operator.model.DesiredCluster;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.model.TlsMove;
import io.etcdoperator.operator.observe.ClusterObserver;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberWatch;
import io.etcdoperator.operator.plan.ClusterGauges;
import io.etcdoperator.operator.plan.Plan;
import io.etcdoperator.operator.plan.Planner;
import io.etcdoperator.operator.plan.TlsMoves;
import io.etcdoperator.operator.reconcile.StepExecutor.Outcome;
import io.etcdoperator.operator.tls.TlsReport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EtcdCluster controller. One reconcile is four named steps: observe the world (Kubernetes
 * objects from the informer caches, a probe of every member), plan (a pure function of spec and
 * observation), act (keep the objects as desired, then at most one membership or pod change), and
 * report (status recomputed from the observation, written only when it changed; Events on
 * transitions). Then look again: at once after a change, soon while anything is pending, less often
 * when Ready, and whenever one of the cluster's objects changes.
 *
 * <p>No finalizer: every object of a cluster is owned by its EtcdCluster (owner references, so the
 * garbage collector removes them with it), and what the operator keeps in memory for a cluster (its
 * connections to the members) is dropped on the delete event (the controller is registered to be
 * called for every event, deletes included), and in any case once unused for a while. So deleting
 * an EtcdCluster never waits for the operator, and uninstalling the operator leaves nothing stuck
 * Terminating.
 */
public final class EtcdClusterReconciler implements Reconciler<EtcdCluster> {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdClusterReconciler.class);

  /** After a membership change, look again this soon: the next step may follow. */
  static final Duration AFTER_CHANGE = Duration.ofMillis(250);

  /** A learner etcd will not promote yet usually catches up within a second. */
  static final Duration NOT_YET = Duration.ofSeconds(1);

  /** After the API server refused a write: no hot loop; a human or a controller must act. */
  static final Duration REFUSED = Duration.ofSeconds(10);

  private final EtcdService etcd;
  private final Clock clock;
  private final Duration quorumLossAlarm;
  private final CallHook hook;
  private final ClusterObserver observer;
  private final String operatorImage;
  private final OperatorMetrics metrics;
  private final DesiredClusters desiredClusters = new DesiredClusters();
  private final Deletions deletions = new Deletions();

  /** Reconciles the member watch asks for. */
  private final SimpleInboundEventSource<EtcdCluster> wakeups =
      new SimpleInboundEventSource<>("member-watch");

  private volatile MemberWatch memberWatch;
  private final Map<Class<?>, InformerEventSource<?, EtcdCluster>> caches =
      new ConcurrentHashMap<>();
  private volatile InformerEventSource<Secret, EtcdCluster> secretCache;
  private volatile NodeWatch nodeWatch;
  private volatile boolean clusterWide = true;

  /**
   * Whether this operator watches every namespace (and has its ClusterRole): only then does it read
   * Nodes and PersistentVolumes, which are cluster-scoped.
   */
  public EtcdClusterReconciler clusterWide(boolean value) {
    this.clusterWide = value;
    return this;
  }

  public EtcdClusterReconciler(
      EtcdService etcd, EtcdHttp metrics, Clock clock, Duration quorumLossAlarm) {
    this(etcd, metrics, clock, quorumLossAlarm, CallHook.NONE);
  }

  public EtcdClusterReconciler(
      EtcdService etcd, EtcdHttp metrics, Clock clock, Duration quorumLossAlarm, CallHook hook) {
    this(etcd, metrics, clock, quorumLossAlarm, hook, Names.DEFAULT_OPERATOR_IMAGE);
  }

  /**
   * @param operatorImage what a restore's init container runs
   */
  public EtcdClusterReconciler(
      EtcdService etcd,
      EtcdHttp metrics,
      Clock clock,
      Duration quorumLossAlarm,
      CallHook hook,
      String operatorImage) {
    this(etcd, metrics, clock, quorumLossAlarm, hook, operatorImage, OperatorMetrics.discarding());
  }

  /**
   * @param operatorImage what a restore's init container runs
   * @param meters where each cluster's metrics go
   */
  public EtcdClusterReconciler(
      EtcdService etcd,
      EtcdHttp metrics,
      Clock clock,
      Duration quorumLossAlarm,
      CallHook hook,
      String operatorImage,
      OperatorMetrics meters) {
    this.metrics = meters;
    this.operatorImage = operatorImage;
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
        cache(context, PodDisruptionBudget.class),
        Backups.source(context),
        secrets(context),
        wakeups);
  }

  /**
   * From now on, clusters that need nothing are reconciled again only after {@link
   * Planner#READY_RESYNC}, unless an event or {@code watch} (which the caller closes) says
   * something changed. Without a watch (tests of the reconciler alone), they are looked at again
   * every {@link MemberWatch#PERIOD}.
   */
  public EtcdClusterReconciler withMemberWatch(MemberWatch watch) {
    this.memberWatch = watch;
    return this;
  }

  /**
   * Reconciles each cluster that has a member pod on {@code node}: a Node event (Ready, cordoned,
   * tainted, deleted) changes what the status says of its members and what may be done to them.
   */
  void nodeChanged(String node) {
    var pods = caches.get(Pod.class);
    if (pods == null) {
      return;
    }
    @SuppressWarnings("unchecked")
    var podCache = (InformerEventSource<Pod, EtcdCluster>) pods;
    podCache
        .list(p -> node.equals(p.getSpec() == null ? null : p.getSpec().getNodeName()))
        .map(
            p ->
                p.getMetadata().getLabels() == null
                    ? null
                    : new ResourceID(
                        p.getMetadata().getLabels().get(Names.LABEL_INSTANCE),
                        p.getMetadata().getNamespace()))
        .filter(id -> id != null && id.getName() != null)
        .distinct()
        .forEach(wakeups::propagateEvent);
  }

  /**
   * The Secrets of spec.security.tls. They carry no label of ours (cert-manager or a user writes
   * them), so every Secret of the watched namespaces is cached, and a change to one reconciles each
   * cluster whose spec names it: a renewed certificate is read (and a new CA rolled) promptly.
   */
  private InformerEventSource<Secret, EtcdCluster> secrets(
      EventSourceContext<EtcdCluster> context) {
    var config =
        InformerEventSourceConfiguration.from(Secret.class, EtcdCluster.class)
            .withName("secret")
            .withSecondaryToPrimaryMapper(
                (Secret secret) ->
                    context
                        .getPrimaryCache()
                        .list(secret.getMetadata().getNamespace())
                        .filter(
                            c ->
                                c.getSpec() != null
                                    && Security.of(c.getSpec().getSecurity())
                                        .secretNames()
                                        .contains(secret.getMetadata().getName()))
                        .map(ResourceID::fromResource)
                        .collect(Collectors.toSet()))
            .build();
    secretCache = new InformerEventSource<>(config, context);
    return secretCache;
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
    if (context.isPrimaryResourceDeleted()) {
      // Called for the delete event too (no finalizer): drop what is kept for the cluster.
      var meta = cluster.getMetadata();
      etcd.closeCluster(key(cluster));
      metrics.forget(meta.getNamespace(), meta.getName());
      desiredClusters.forget(meta.getNamespace(), meta.getName());
      MemberWatch watch = memberWatch;
      if (watch != null) {
        watch.forget(key(cluster));
      }
      observer.forget(meta.getNamespace(), meta.getName());
      deletions.forget(key(cluster));
      return UpdateControl.noUpdate();
    }
    try {
      return reconcileCluster(cluster, context);
    } catch (RuntimeException e) {
      metrics.failed(
          cluster.getMetadata().getNamespace(), cluster.getMetadata().getName(), "exception");
      throw e;
    }
  }

  private UpdateControl<EtcdCluster> reconcileCluster(
      EtcdCluster cluster, Context<EtcdCluster> context) {
    Instant started = clock.instant();
    TlsReport tls = tls(cluster, context);
    DesiredClusters.Entry composed =
        desiredClusters.of(cluster, operatorImage, tls.trustedCa(), TlsMove.NONE);
    var newestBackup = Backups.newest(context.getSecondaryResources(EtcdBackup.class));
    DesiredCluster desired =
        new DesiredCluster(
            composed.desired().target().withNewestBackup(newestBackup), composed.desired().model());
    LiveObjects live = new LiveObjects(context, cluster);
    ClusterView view = observe(cluster, context, desired, tls, live);
    // A running cluster moving its peers to TLS: its template is the step's, read from the world.
    TlsMove move = TlsMoves.of(desired.target(), view);
    if (move != TlsMove.NONE) {
      composed = desiredClusters.of(cluster, operatorImage, tls.trustedCa(), move);
      desired =
          new DesiredCluster(
              composed.desired().target().withNewestBackup(newestBackup),
              composed.desired().model());
    }
    Plan plan = Planner.plan(desired.target(), view);
    var meta = cluster.getMetadata();
    metrics.observed(
        meta.getNamespace(),
        meta.getName(),
        ClusterGauges.of(desired.target(), view),
        Backups.newestCompletion(context.getSecondaryResources(EtcdBackup.class)));
    Acted acted = act(cluster, context, composed, desired, plan, view, live);
    Duration next = watchMembers(cluster, desired, view, report(cluster, context, plan, acted));
    metrics.reconciled(
        meta.getNamespace(),
        meta.getName(),
        plan.rule(),
        Duration.between(started, clock.instant()));
    LOG.debug(
        "Reconciled in {} ms (probe {} ms): rule {}, {}; next in {} ms",
        Duration.between(started, clock.instant()).toMillis(),
        Duration.between(started, view.now()).toMillis(),
        plan.rule(),
        plan.step().describe(),
        next.toMillis());
    return UpdateControl.<EtcdCluster>noUpdate().rescheduleAfter(next);
  }

  /**
   * When the plan looks again only after a while, has the member watch wake the next reconcile as
   * soon as a member says something else than this one saw; returns when to look again anyway.
   * Without a watch (tests of the reconciler alone), that is every watch period.
   */
  private Duration watchMembers(
      EtcdCluster cluster, DesiredCluster desired, ClusterView view, Duration next) {
    String key = key(cluster);
    MemberWatch watch = memberWatch;
    if (next.compareTo(MemberWatch.PERIOD) <= 0 || desired.model().isEmpty()) {
      if (watch != null) {
        watch.forget(key);
      }
      return next;
    }
    if (watch == null) {
      return MemberWatch.PERIOD;
    }
    java.util.SortedMap<Integer, String> urls = new java.util.TreeMap<>();
    view.probes()
        .forEach(
            (ordinal, probe) -> {
              if (view.pods().containsKey(ordinal)) {
                urls.put(ordinal, probe.endpoint());
              }
            });
    var policy = desired.model().get().maintenance();
    ResourceID id = ResourceID.fromResource(cluster);
    watch.expect(
        key,
        urls,
        view.probes(),
        p -> policy.pastThreshold(p.dbSize(), p.dbSizeInUse()),
        () -> wakeups.propagateEvent(id));
    return next;
  }

  private ClusterView observe(
      EtcdCluster cluster,
      Context<EtcdCluster> context,
      DesiredCluster desired,
      TlsReport tls,
      LiveObjects live) {
    var meta = cluster.getMetadata();
    String scheme =
        desired.model().map(m -> m.security().clientScheme()).orElse(Security.NONE.clientScheme());
    ClusterObserver.Objects objects = withDeletions(key(cluster), live.objects());
    ClusterView view = observer.observe(meta.getNamespace(), meta.getName(), objects, scheme, tls);
    NodeWatch nodes = nodeWatch(context);
    boolean persistent = desired.model().map(m -> m.usesPersistentStorage()).orElse(true);
    return view.withStorageClass(
            StorageClasses.ofExpansion(context.getClient(), desired.target(), view))
        .withPlacements(
            io.etcdoperator.operator.observe.Placements.of(
                meta.getName(),
                List.copyOf(objects.pods()),
                List.copyOf(objects.claims()),
                persistent,
                nodes.nodesVisible(),
                nodes.volumesVisible(),
                nodes::node,
                nodes::volume));
  }

  /**
   * The cached objects, with the pods and claims this operator deleted shown deleted even where the
   * cache does not show it yet (see {@link Deletions}).
   */
  private ClusterObserver.Objects withDeletions(String key, ClusterObserver.Objects cached) {
    java.time.Instant now = clock.instant();
    List<Pod> pods = deletions.pods(key, cached.pods(), now);
    // The rebuild pod is one of the cached pods: its corrected copy, or none when left out.
    Optional<Pod> rebuild =
        cached
            .rebuildPod()
            .flatMap(
                p ->
                    cached.pods().contains(p)
                        ? pods.stream().filter(c -> named(c, p)).findFirst()
                        : Optional.of(p));
    return new ClusterObserver.Objects(
        cached.statefulSet(),
        pods,
        deletions.claims(key, cached.claims(), now),
        cached.clusterState(),
        rebuild);
  }

  private static boolean named(HasMetadata a, HasMetadata b) {
    return a.getMetadata().getName().equals(b.getMetadata().getName());
  }

  /** The Node informer, started with the first reconcile (it needs the client). */
  private NodeWatch nodeWatch(Context<EtcdCluster> context) {
    NodeWatch n = nodeWatch;
    if (n == null) {
      synchronized (this) {
        if (nodeWatch == null) {
          nodeWatch = new NodeWatch(context.getClient(), clusterWide, this::nodeChanged);
        }
        n = nodeWatch;
      }
    }
    return n;
  }

  /**
   * What the Secrets of spec.security.tls hold, checked for every ordinal the cluster has or is to
   * have. Nothing to check when the spec names none (or is invalid: then nothing is started).
   */
  private TlsReport tls(EtcdCluster cluster, Context<EtcdCluster> context) {
    String ns = cluster.getMetadata().getNamespace();
    String name = cluster.getMetadata().getName();
    java.util.SortedSet<Integer> pods = new java.util.TreeSet<>();
    context.getSecondaryResources(Pod.class).stream()
        .mapToInt(p -> Names.ordinalOf(name, p.getMetadata().getName()))
        .filter(i -> i >= 0)
        .forEach(pods::add);
    return ClusterTls.check(
        cluster,
        secret ->
            secretCache == null ? Optional.empty() : secretCache.get(new ResourceID(secret, ns)),
        pods,
        clock.instant());
  }

  /** What acting did: the objects the API server refused to write, and the step's outcome. */
  private record Acted(List<ApiRefusal> refused, Outcome outcome) {}

  /**
   * Keeps the objects as planned, then takes the step, but not after a refused write: the step may
   * rely on what was refused (a learner's pod reads the ConfigMap).
   */
  private Acted act(
      EtcdCluster cluster,
      Context<EtcdCluster> context,
      DesiredClusters.Entry composed,
      DesiredCluster desired,
      Plan plan,
      ClusterView view,
      LiveObjects live) {
    List<ApiRefusal> refused = List.of();
    if (plan.manageObjects()) {
      refused =
          new ClusterObjects(context.getClient(), hook, cluster, caches::get)
              .keep(composed, plan, live);
    }
    if (!refused.isEmpty()) {
      return new Acted(refused, new Outcome.Nothing());
    }
    var meta = cluster.getMetadata();
    return new Acted(
        refused,
        new StepExecutor(
                context.getClient(),
                etcd,
                hook,
                clock,
                (namespace, name, key, value) -> annotate(context, cluster, key, value),
                metrics::defragmented,
                (type, name, how) -> deleted(cluster, live, type, name, how))
            .execute(meta.getNamespace(), meta.getName(), plan.step(), view, desired.model()));
  }

  /** Remembers a pod or claim deleted, as the cache held it, until the cache shows it deleted. */
  private void deleted(
      EtcdCluster cluster,
      LiveObjects live,
      Class<? extends HasMetadata> type,
      String name,
      Deletions.How how) {
    live.cached(type, name)
        .ifPresent(o -> deletions.deleted(key(cluster), o, how, clock.instant()));
  }

  /** The cluster's "namespace/name", by which what is kept of it is found. */
  private static String key(EtcdCluster cluster) {
    return cluster.getMetadata().getNamespace() + "/" + cluster.getMetadata().getName();
  }

  /**
   * Writes one annotation of the cluster-state ConfigMap (a maintenance record), and tells the
   * cache at once: the next reconcile must not decide on a copy without it (it would defragment the
   * same member again). A refused write propagates: the step reports it, and the operator waits
   * before the next one rather than defragmenting again a member it could not record.
   */
  private void annotate(
      Context<EtcdCluster> context, EtcdCluster cluster, String key, String value) {
    String name = Names.clusterStateConfigMap(cluster.getMetadata().getName());
    Optional<ConfigMap> live = new LiveObjects(context, cluster).named(ConfigMap.class, name);
    String patch =
        io.fabric8.kubernetes.client.utils.Serialization.asJson(
            Map.of("metadata", Map.of("annotations", Map.of(key, value))));
    ConfigMap written =
        context
            .getClient()
            .configMaps()
            .inNamespace(cluster.getMetadata().getNamespace())
            .withName(name)
            .patch(
                io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                    io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                patch);
    @SuppressWarnings("unchecked")
    var cache = (InformerEventSource<ConfigMap, EtcdCluster>) caches.get(ConfigMap.class);
    if (cache != null && written != null && live.isPresent()) {
      cache.handleRecentResourceUpdate(ResourceID.fromResource(cluster), written, live.get());
    }
  }

  /**
   * Events for what was done and for every transition of status; the status written when it
   * changed. Returns when to look again: at once after a change, later after a refusal (another try
   * will not change the server's mind soon), else as the plan says.
   */
  private Duration report(
      EtcdCluster cluster, Context<EtcdCluster> context, Plan plan, Acted acted) {
    EventRecorder events = new EventRecorder(context.getClient(), clock);
    EtcdClusterStatus previous = cluster.getStatus();
    EtcdClusterStatus computed = Forming.apply(previous, plan.status());
    var meta = cluster.getMetadata();
    for (ApiRefusal r : acted.refused()) {
      events.warning(cluster, "ApiRefused", r.describe());
    }
    if (!acted.refused().isEmpty()) {
      metrics.failed(meta.getNamespace(), meta.getName(), "api");
      computed =
          Failures.onProgressing(
              computed,
              "ApiRefused",
              acted.refused().stream().map(ApiRefusal::describe).collect(Collectors.joining("; ")));
    }
    Outcome outcome = acted.outcome();
    if (outcome instanceof Outcome.Done d) {
      events.normal(cluster, d.reason(), d.message());
    } else if (outcome instanceof Outcome.Failed f) {
      events.warning(
          cluster, f.reason().equals("EtcdRefused") ? "StepFailed" : f.reason(), f.message());
      computed = Failures.onProgressing(computed, f.reason(), f.message());
      metrics.failed(meta.getNamespace(), meta.getName(), "step");
    }
    List<String> notices = io.etcdoperator.operator.model.SpecNotices.of(cluster.getSpec());
    if (!notices.isEmpty()) {
      computed = Failures.withNotices(computed, notices);
      Long seen = previous == null ? null : previous.getObservedGeneration();
      if (seen == null || !seen.equals(cluster.getMetadata().getGeneration())) {
        events.warning(cluster, "SpecIgnored", String.join("; ", notices));
      }
    }
    EtcdClusterStatus status =
        Escalation.apply(
            StatusMerger.merge(previous, computed, clock.instant()),
            clock.instant(),
            quorumLossAlarm);
    Duration next =
        !acted.refused().isEmpty()
            ? REFUSED
            : outcome instanceof Outcome.Done
                ? AFTER_CHANGE
                : outcome instanceof Outcome.NotYet
                    ? NOT_YET
                    : outcome instanceof Outcome.Failed failed
                            && "ApiRefused".equals(failed.reason())
                        ? REFUSED
                        : plan.requeueAfter();
    if (!status.equals(previous)) {
      if (writeStatus(cluster, status, context)) {
        // Only a status that was written is a transition: one refused with a conflict is
        // computed again, against the status that did get written, by the next reconcile.
        for (Transitions.Notice n : Transitions.between(previous, status)) {
          if (n.warning()) {
            events.warning(cluster, n.reason(), n.message());
          } else {
            events.normal(cluster, n.reason(), n.message());
          }
        }
      } else {
        next = AFTER_CHANGE;
      }
    }
    return next;
  }

  /**
   * Replaces the whole status (PUT on the status subresource), guarded by the resourceVersion this
   * reconcile read: a status is a function of one observation, so a patch computed against another
   * version would mix two. On a conflict (the resource changed meanwhile) nothing is written, and
   * the next reconcile, soon, computes it afresh.
   */
  private boolean writeStatus(
      EtcdCluster cluster, EtcdClusterStatus status, Context<EtcdCluster> context) {
    EtcdCluster before =
        context.getPrimaryCache().get(ResourceID.fromResource(cluster)).orElse(null);
    cluster.setStatus(status);
    try {
      EtcdCluster written = context.getClient().resource(cluster).updateStatus();
      hook.after("k8s updateStatus EtcdCluster " + cluster.getMetadata().getName());
      // The next reconcile reads the status it compares with from the cache: without this, one
      // that came before the watch delivered this write compared with the status before it, and
      // told every transition twice (BootstrapFinished, MemberHealthy).
      if (written != null && before != null) {
        context
            .eventSourceRetriever()
            .getControllerEventSource()
            .handleRecentResourceUpdate(ResourceID.fromResource(cluster), written, before);
      }
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false;
      }
      throw e;
    }
  }

  /** The cluster's objects as the informer caches hold them. */
}
