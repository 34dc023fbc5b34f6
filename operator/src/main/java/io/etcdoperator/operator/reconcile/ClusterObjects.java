package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.CallHook;
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
import java.util.Optional;
import java.util.function.Function;

/**
 * Keeps a cluster's objects as the plan wants them: the Services, the cluster-state ConfigMap, the
 * StatefulSet with the planned replicas, the claim marks and the PodDisruptionBudget, each written
 * only when it differs ({@link ObjectWriter}). A write the API server refuses does not stop the
 * others; it is returned, to become a condition and an Event. The informer caches learn of every
 * write at once, so the next reconcile does not act on a stale copy.
 */
final class ClusterObjects {
  private final KubernetesClient client;
  private final CallHook hook;
  private final ObjectWriter writer;
  private final EtcdCluster cluster;
  private final Function<Class<?>, InformerEventSource<?, EtcdCluster>> caches;
  private final List<ApiRefusal> refusals = new ArrayList<>();

  ClusterObjects(
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
  interface Live {
    <R extends HasMetadata> Optional<R> named(Class<R> type, String name);
  }

  /** Keeps every object the plan covers; returns the writes the API server refused. */
  List<ApiRefusal> keep(EtcdClusterModel model, Plan plan, Live live) {
    String name = cluster.getMetadata().getName();
    ensure(
        Service.class,
        model.headlessService(),
        live.named(Service.class, Names.headlessService(name)));
    ensure(
        Service.class, model.clientService(), live.named(Service.class, Names.clientService(name)));
    plan.clusterState()
        .ifPresent(
            state ->
                ensure(
                    ConfigMap.class,
                    model.clusterStateConfigMap(state),
                    live.named(ConfigMap.class, Names.clusterStateConfigMap(name))));
    plan.statefulSetReplicas()
        .ifPresent(
            replicas ->
                ensure(
                    StatefulSet.class,
                    model.statefulSet(replicas),
                    live.named(StatefulSet.class, Names.statefulSet(name))));
    plan.claimMembers()
        .forEach((claim, member) -> markClaim(model, claim, member, plan.claimClusterId()));
    Optional<PodDisruptionBudget> livePdb =
        live.named(PodDisruptionBudget.class, Names.podDisruptionBudget(name));
    Optional<PodDisruptionBudget> pdb = model.podDisruptionBudget(plan.statefulSetReplicas());
    if (pdb.isPresent()) {
      ensure(PodDisruptionBudget.class, pdb.get(), livePdb);
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

  @SuppressWarnings("unchecked")
  private <R extends HasMetadata> void ensure(Class<R> type, R desired, Optional<R> live) {
    Optional<R> written;
    try {
      written = writer.ensure(desired, live);
    } catch (KubernetesClientException e) {
      refusals.add(
          ApiRefusal.of(live.isPresent() ? "update" : "create", desired, e).orElseThrow(() -> e));
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
