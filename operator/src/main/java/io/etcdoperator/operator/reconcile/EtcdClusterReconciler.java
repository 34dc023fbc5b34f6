package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.act.Acted;
import io.etcdoperator.operator.act.Outcome;
import io.etcdoperator.operator.observe.ClusterObserver;
import io.etcdoperator.operator.observe.MemberWatch;
import io.etcdoperator.operator.plan.ClusterGauges;
import io.etcdoperator.operator.plan.Plan;
import io.etcdoperator.operator.plan.Planner;
import io.etcdoperator.operator.reconcile.ClusterObservation.Observed;
import io.etcdoperator.operator.status.EventRecorder;
import io.etcdoperator.operator.status.StatusComposer;
import io.etcdoperator.operator.status.StatusRenderer;
import io.etcdoperator.operator.status.StatusWriter;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EtcdCluster controller. One reconcile is four named steps: observe the world ({@link
 * ClusterObservation}: the caches and a probe of every member), plan (a pure function of spec and
 * observation, {@link Planner}), act (keep the objects as desired, then at most one membership or
 * pod change, {@link ClusterActions}), and report (status rendered from the plan, composed with
 * what acting did, written only when it changed; Events on transitions; {@code status} package).
 * Then look again: at once after a change, soon while anything is pending, less often when Ready,
 * and whenever one of the cluster's objects changes or the member watch sees a member change.
 *
 * <p>No finalizer: every object of a cluster is owned by its EtcdCluster (owner references, so the
 * garbage collector removes them with it), and what the operator holds for a cluster ({@link
 * ClusterSession}) is closed on the delete event (the controller is registered to be called for
 * every event, deletes included). So deleting an EtcdCluster never waits for the operator, and
 * uninstalling the operator leaves nothing stuck Terminating.
 */
public final class EtcdClusterReconciler implements Reconciler<EtcdCluster> {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdClusterReconciler.class);

  /** After a membership change, look again this soon: the next step may follow. */
  static final Duration AFTER_CHANGE = Duration.ofMillis(250);

  /** A learner etcd will not promote yet usually catches up within a second. */
  static final Duration NOT_YET = Duration.ofSeconds(1);

  /** After the API server refused a write: no hot loop; a human or a controller must act. */
  static final Duration REFUSED = Duration.ofSeconds(10);

  private final ReconcilerSettings settings;
  private final ClusterEventSources sources = new ClusterEventSources();
  private final ClusterObservation observation;
  private final ClusterActions actions;
  private final Map<String, ClusterSession> sessions = new ConcurrentHashMap<>();
  private volatile StatusWriter writer;

  public EtcdClusterReconciler(ReconcilerSettings settings) {
    this.settings = settings;
    this.observation =
        new ClusterObservation(
            new ClusterObserver(settings.etcd(), settings.http(), settings.clock()),
            sources,
            settings.clock(),
            settings.operatorImage(),
            settings.clusterWide());
    this.actions = new ClusterActions(settings.etcd(), settings.hook(), settings.clock(), sources);
  }

  /**
   * The store of the EtcdCluster informer: each resource without its managed fields, which the
   * operator never reads ({@link ClusterEventSources#withoutManagedFields}).
   */
  public static ItemStore<EtcdCluster> store() {
    return new TrimmingStore<>(ClusterEventSources::withoutManagedFields);
  }

  /**
   * Whether an update of an EtcdCluster changes what a reconcile reads of it: its spec (the
   * generation), its annotations (the pause, the rebuild opt-in), its labels, or its deletion. A
   * change of its status alone (the operator's own writes) does not.
   */
  public static boolean worthReconciling(EtcdCluster newer, EtcdCluster older) {
    var n = newer.getMetadata();
    var o = older.getMetadata();
    return !Objects.equals(n.getGeneration(), o.getGeneration())
        || !Objects.equals(n.getAnnotations(), o.getAnnotations())
        || !Objects.equals(n.getLabels(), o.getLabels())
        || !Objects.equals(n.getDeletionTimestamp(), o.getDeletionTimestamp());
  }

  @Override
  public List<EventSource<?, EtcdCluster>> prepareEventSources(
      EventSourceContext<EtcdCluster> context) {
    return sources.prepare(context);
  }

  @Override
  public UpdateControl<EtcdCluster> reconcile(EtcdCluster cluster, Context<EtcdCluster> context) {
    var meta = cluster.getMetadata();
    String key = ClusterSession.key(meta.getNamespace(), meta.getName());
    if (context.isPrimaryResourceDeleted()) {
      ClusterSession gone = sessions.remove(key);
      if (gone != null) {
        gone.close();
      }
      return UpdateControl.noUpdate();
    }
    ClusterSession session =
        sessions.computeIfAbsent(
            key,
            k ->
                new ClusterSession(
                    meta.getNamespace(),
                    meta.getName(),
                    settings.etcd(),
                    settings.metrics(),
                    settings.memberWatch().orElse(null)));
    try {
      return UpdateControl.<EtcdCluster>noUpdate()
          .rescheduleAfter(reconcile(cluster, context, session));
    } catch (RuntimeException e) {
      if (isWriteConflict(e)) {
        // Another writer (the StatefulSet controller's status, a user) changed the object since
        // the cache's copy: nothing was written; the next reconcile reads the newer one.
        LOG.info("{}: an object changed since it was read (409); reconciling again", key);
        return UpdateControl.<EtcdCluster>noUpdate().rescheduleAfter(Planner.PENDING_RESYNC);
      }
      session.failed("exception");
      throw e;
    }
  }

  /**
   * Whether {@code e} (or what it wraps) is an update refused because the object changed since it
   * was read: not a failure, and not worth a stack trace. A create refused because the object
   * exists is a 409 too, and is not one.
   */
  static boolean isWriteConflict(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException k
          && k.getCode() == 409
          && String.valueOf(k.getMessage()).contains("the object has been modified")) {
        return true;
      }
    }
    return false;
  }

  /** Observe, plan, act, report; returns when to look again. */
  private Duration reconcile(
      EtcdCluster cluster, Context<EtcdCluster> context, ClusterSession session) {
    Instant started = settings.clock().instant();
    Observed observed = observation.observe(cluster, context, session);
    Plan plan = Planner.plan(observed.desired().target(), observed.view());
    session.gauges(
        ClusterGauges.of(observed.desired().target(), observed.view()),
        Backups.newestCompletion(context.getSecondaryResourcesAsStream(EtcdBackup.class).toList()));
    Acted acted = actions.act(cluster, context, session, observed, plan);
    boolean written = report(cluster, context, session, observed, plan, acted);
    Duration next = watchMembers(cluster, session, observed, lookAgain(plan, acted, written));
    Duration took = Duration.between(started, settings.clock().instant());
    session.reconciled(plan.rule(), took);
    LOG.debug(
        "Reconciled in {} ms: rule {}, {}; next in {} ms",
        took.toMillis(),
        plan.rule(),
        plan.step().describe(),
        next.toMillis());
    return next;
  }

  /** Status and Events; false when a conflict left the status unwritten. */
  private boolean report(
      EtcdCluster cluster,
      Context<EtcdCluster> context,
      ClusterSession session,
      Observed observed,
      Plan plan,
      Acted acted) {
    if (!acted.refused().isEmpty()) {
      session.failed("api");
    } else if (acted.outcome() instanceof Outcome.Failed) {
      session.failed("step");
    }
    StatusComposer.Composed composed =
        StatusComposer.compose(
            cluster,
            StatusRenderer.render(plan),
            acted,
            settings.clock().instant(),
            settings.quorumLossAlarm());
    return writer(context).report(cluster, composed, context);
  }

  /** One writer for every cluster, made with the operator's client at the first report. */
  private StatusWriter writer(Context<EtcdCluster> context) {
    StatusWriter w = writer;
    if (w == null) {
      w =
          new StatusWriter(
              settings.hook(), new EventRecorder(context.getClient(), settings.clock()));
      writer = w;
    }
    return w;
  }

  /**
   * When to look again: at once after a change or a status write that met a conflict, later after a
   * refusal (another try will not change the server's mind soon), else as the plan says.
   */
  static Duration lookAgain(Plan plan, Acted acted, boolean written) {
    Outcome outcome = acted.outcome();
    if (!written || outcome instanceof Outcome.Done) {
      return AFTER_CHANGE;
    }
    if (!acted.refused().isEmpty()
        || outcome instanceof Outcome.Failed f && "ApiRefused".equals(f.reason())) {
      return REFUSED;
    }
    return outcome instanceof Outcome.NotYet ? NOT_YET : plan.requeueAfter();
  }

  /**
   * When the plan looks again only after a while, has the member watch wake the next reconcile as
   * soon as a member says something else than this one saw; returns when to look again anyway.
   * Without a watch (tests of the reconciler alone), that is every watch period.
   */
  private Duration watchMembers(
      EtcdCluster cluster, ClusterSession session, Observed observed, Duration next) {
    if (next.compareTo(MemberWatch.PERIOD) <= 0 || observed.model().isEmpty()) {
      session.unwatch();
      return next;
    }
    if (!session.watched()) {
      return MemberWatch.PERIOD;
    }
    SortedMap<Integer, String> urls = new TreeMap<>();
    observed
        .view()
        .probes()
        .forEach(
            (ordinal, probe) -> {
              if (observed.view().pods().containsKey(ordinal)) {
                urls.put(ordinal, probe.endpoint());
              }
            });
    var policy = observed.model().get().maintenance();
    ResourceID id = ResourceID.fromResource(cluster);
    session.watch(
        urls,
        observed.view().probes(),
        p -> policy.pastThreshold(p.dbSize(), p.dbSizeInUse()),
        () -> sources.wake(id));
    return next;
  }
}
