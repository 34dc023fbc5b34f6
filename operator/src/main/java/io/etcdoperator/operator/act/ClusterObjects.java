package io.etcdoperator.operator.act;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.plan.Plan;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Keeps a cluster's objects as the plan wants them: the Services, the cluster-state ConfigMap, the
 * StatefulSet with the planned replicas, the claim marks and the PodDisruptionBudget, each written
 * only when it differs ({@link ObjectWriter}). A write the API server refuses does not stop the
 * others, but for the StatefulSet after a refused ConfigMap (members read it at start); it is
 * returned, to become a condition and an Event. An object of one of these names that is not the
 * cluster's ({@link Live#foreign}) is never written: that is reported the same way. The informer
 * caches learn of every write at once, so the next reconcile does not act on a stale copy.
 */
public final class ClusterObjects {
  private final KubernetesClient client;
  private final CallHook hook;
  private final ObjectWriter writer;
  private final EtcdCluster cluster;
  private final Function<Class<?>, InformerEventSource<?, EtcdCluster>> caches;
  private final List<ApiRefusal> refusals = new ArrayList<>();
  private Live live;
  private DesiredCache.Entry memo;

  public ClusterObjects(
      KubernetesClient client,
      CallHook hook,
      EtcdCluster cluster,
      Function<Class<?>, InformerEventSource<?, EtcdCluster>> caches) {
    this.client = client;
    this.hook = hook;
    this.writer = new ObjectWriter(client, hook);
    this.cluster = cluster;
    this.caches = caches;
  }

  /** The live objects of the cluster, as the caches hold them. */
  public interface Live {
    <R extends HasMetadata> Optional<R> named(Class<R> type, String name);

    /**
     * Why an object of this name that is not the cluster's exists (the operator must not write it),
     * or empty.
     */
    default Optional<String> foreign(Class<? extends HasMetadata> type, String name) {
      return Optional.empty();
    }

    /** As {@link #named}, from the caches alone. */
    default <R extends HasMetadata> Optional<R> cached(Class<R> type, String name) {
      return named(type, name);
    }
  }

  /**
   * Keeps every object the plan covers; returns the writes the API server refused. The desired
   * objects' hashes are taken from {@code desired}'s memo, and an object is built only when it is
   * to be written (or, for the cheap ones, compared).
   */
  public List<ApiRefusal> keep(DesiredCache.Entry desired, Plan plan, Live live) {
    this.live = live;
    this.memo = desired;
    EtcdClusterModel model = desired.desired().model().orElseThrow();
    String name = cluster.getMetadata().getName();
    ensure(
        Service.class,
        "headless",
        model::headlessService,
        live.named(Service.class, Names.headlessService(name)),
        l -> true);
    ensure(
        Service.class,
        "client",
        model::clientService,
        live.named(Service.class, Names.clientService(name)),
        l -> true);
    int beforeState = refusals.size();
    plan.clusterState()
        .ifPresent(
            state -> {
              ConfigMap map = model.clusterStateConfigMap(state);
              ensure(
                  ConfigMap.class,
                  state,
                  () -> map,
                  live.named(ConfigMap.class, Names.clusterStateConfigMap(name)),
                  l -> Objects.equals(map.getData(), l.getData()));
            });
    // Members read the cluster-state ConfigMap at start: no pod is started or added on one that is
    // not as planned (its write refused, or another's of the same name).
    boolean stateKept = refusals.size() == beforeState;
    if (stateKept) {
      plan.statefulSetReplicas()
          .ifPresent(
              replicas ->
                  ensure(
                      StatefulSet.class,
                      "statefulset " + replicas,
                      () -> model.statefulSet(replicas),
                      live.named(StatefulSet.class, Names.statefulSet(name)),
                      l -> Objects.equals(replicas, l.getSpec().getReplicas())));
    }
    plan.claimMembers()
        .forEach((claim, member) -> markClaim(model, claim, member, plan.claimClusterId()));
    Optional<PodDisruptionBudget> pdb = model.podDisruptionBudget(plan.statefulSetReplicas());
    // Only a budget the cluster is to have is looked for beyond the caches: one it is not to have
    // would cost a call on every reconcile, and one of its own carries its labels.
    Optional<PodDisruptionBudget> livePdb =
        pdb.isPresent()
            ? live.named(PodDisruptionBudget.class, Names.podDisruptionBudget(name))
            : live.cached(PodDisruptionBudget.class, Names.podDisruptionBudget(name));
    if (pdb.isPresent()) {
      ensure(
          PodDisruptionBudget.class,
          "pdb " + plan.statefulSetReplicas(),
          pdb::get,
          livePdb,
          l -> true);
    } else {
      livePdb.ifPresent(p -> attempt("delete", p, () -> client.resource(p).delete()));
    }
    return List.copyOf(refusals);
  }

  private void markClaim(EtcdClusterModel model, String claim, long memberId, long clusterId) {
    String patch = Serialization.asJson(model.claimMark(memberId, clusterId));
    try {
      client
          .persistentVolumeClaims()
          .inNamespace(cluster.getMetadata().getNamespace())
          .withName(claim)
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      hook.after("k8s patch PersistentVolumeClaim " + claim);
    } catch (KubernetesClientException e) {
      refusals.add(
          ApiRefusal.of("patch", PersistentVolumeClaim.class.getSimpleName(), claim, e)
              .orElseThrow(() -> e));
    }
  }

  private void attempt(String verb, HasMetadata object, Runnable call) {
    try {
      call.run();
      hook.after("k8s " + verb + " " + object.getKind() + " " + object.getMetadata().getName());
    } catch (KubernetesClientException e) {
      refusals.add(ApiRefusal.of(verb, object, e).orElseThrow(() -> e));
    }
  }

  /**
   * Keeps one object as {@code build} makes it; {@code key} names it in the memo of desired hashes
   * (it must name the same object for as long as the memo lives: the model's generation).
   */
  @SuppressWarnings("unchecked")
  private <R extends HasMetadata> void ensure(
      Class<R> type,
      Object key,
      Supplier<R> build,
      Optional<R> live,
      Predicate<R> ownedFieldsHold) {
    String hash = memo.hash(key, () -> DesiredHash.of(build.get()));
    if (live.isEmpty()) {
      R desired = build.get();
      Optional<String> foreign = this.live.foreign(type, desired.getMetadata().getName());
      if (foreign.isPresent()) {
        refusals.add(
            new ApiRefusal(
                "create",
                desired.getKind(),
                desired.getMetadata().getName(),
                409,
                List.of(),
                foreign.get()));
        return;
      }
    }
    Optional<R> written;
    try {
      written = writer.ensure(hash, build, live, ownedFieldsHold);
    } catch (KubernetesClientException e) {
      refusals.add(
          ApiRefusal.of(live.isPresent() ? "update" : "create", build.get(), e)
              .orElseThrow(() -> e));
      return;
    }
    if (written.isEmpty()) {
      return;
    }
    var cache = (InformerEventSource<R, EtcdCluster>) caches.apply(type);
    ResourceID primary = ResourceID.fromResource(cluster);
    if (live.isPresent()) {
      cache.handleRecentResourceUpdate(primary, written.get(), live.get());
    } else {
      cache.handleRecentResourceCreate(primary, written.get());
    }
  }
}
