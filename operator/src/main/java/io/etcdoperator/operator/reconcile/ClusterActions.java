package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.act.Acted;
import io.etcdoperator.operator.act.ApiRefusal;
import io.etcdoperator.operator.act.CallHook;
import io.etcdoperator.operator.act.ClusterObjects;
import io.etcdoperator.operator.act.Deletions;
import io.etcdoperator.operator.act.Outcome;
import io.etcdoperator.operator.act.StepExecutor;
import io.etcdoperator.operator.etcd.DefragResult;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.plan.Plan;
import io.etcdoperator.operator.reconcile.ClusterObservation.Observed;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Acts on a plan: keeps the cluster's objects as planned ({@link ClusterObjects}), then takes the
 * plan's one step ({@link StepExecutor}), but not after a refused write, since the step may rely on
 * what was refused (a learner's pod reads the ConfigMap).
 */
final class ClusterActions {
  private final EtcdService etcd;
  private final CallHook hook;
  private final Clock clock;
  private final ClusterEventSources sources;
  private volatile StepExecutor executor;

  ClusterActions(EtcdService etcd, CallHook hook, Clock clock, ClusterEventSources sources) {
    this.etcd = etcd;
    this.hook = hook;
    this.clock = clock;
    this.sources = sources;
  }

  Acted act(
      EtcdCluster cluster,
      Context<EtcdCluster> context,
      ClusterSession session,
      Observed observed,
      Plan plan) {
    List<ApiRefusal> refused = List.of();
    if (plan.manageObjects()) {
      refused =
          new ClusterObjects(context.getClient(), hook, cluster, sources::cacheOf)
              .keep(observed.composed(), plan, observed.live());
    }
    if (!refused.isEmpty()) {
      return new Acted(refused, new Outcome.Nothing());
    }
    Outcome outcome =
        executor(context)
            .execute(
                new Scope(cluster, context, session, observed.live()),
                plan.step(),
                observed.view(),
                observed.model());
    return new Acted(refused, outcome);
  }

  /** One executor for every cluster, made with the operator's client at the first step. */
  private StepExecutor executor(Context<EtcdCluster> context) {
    StepExecutor e = executor;
    if (e == null) {
      e = new StepExecutor(context.getClient(), etcd, hook, clock);
      executor = e;
    }
    return e;
  }

  /** The cluster a step is taken on, for one reconcile. */
  private final class Scope implements StepExecutor.Scope {
    private final EtcdCluster cluster;
    private final Context<EtcdCluster> context;
    private final ClusterSession session;
    private final LiveObjects live;

    Scope(
        EtcdCluster cluster,
        Context<EtcdCluster> context,
        ClusterSession session,
        LiveObjects live) {
      this.cluster = cluster;
      this.context = context;
      this.session = session;
      this.live = live;
    }

    @Override
    public String namespace() {
      return session.namespace();
    }

    @Override
    public String cluster() {
      return session.name();
    }

    /**
     * Patches the annotation onto the cluster-state ConfigMap, and tells the cache at once: the
     * next reconcile must not decide on a copy without it (it would defragment the same member
     * again).
     */
    @Override
    public void annotate(String key, String value) {
      String name = Names.clusterStateConfigMap(session.name());
      Optional<ConfigMap> before = live.named(ConfigMap.class, name);
      String patch =
          Serialization.asJson(Map.of("metadata", Map.of("annotations", Map.of(key, value))));
      ConfigMap written =
          context
              .getClient()
              .configMaps()
              .inNamespace(session.namespace())
              .withName(name)
              .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      InformerEventSource<ConfigMap, EtcdCluster> cache = sources.cache(ConfigMap.class);
      if (cache != null && written != null && before.isPresent()) {
        cache.handleRecentResourceUpdate(ResourceID.fromResource(cluster), written, before.get());
      }
    }

    /** Remembers a pod or claim deleted, as the cache held it, until the cache shows it deleted. */
    @Override
    public void deleted(Class<? extends HasMetadata> type, String name, Deletions.How how) {
      live.cached(type, name).ifPresent(o -> session.deletions().deleted(o, how, clock.instant()));
    }

    @Override
    public void defragmented(String member, Optional<DefragResult> result) {
      session.defragmented(member, result);
    }
  }
}
