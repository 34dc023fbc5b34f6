package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.act.ClusterObjects;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClusterObserver;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The live objects of one cluster for one reconcile: what the informer caches hold, and, for the
 * objects the operator writes by name, what the API server holds when the caches have none.
 *
 * <p>The caches see only objects labelled {@code app.kubernetes.io/managed-by=etcd-operator}. An
 * object of the cluster's name without that label exists when another operator made it: aenix's
 * operator writes its StatefulSet, cluster-state ConfigMap and PodDisruptionBudget without labels.
 * Taken for absent, it would be created again (refused: it exists) and the members' own StatefulSet
 * and the recorded state reported as gone. So, for each of those names the caches lack (only then:
 * a cluster whose objects carry the label costs no call), one GET:
 *
 * <ul>
 *   <li>owned by this EtcdCluster (an owner reference with its UID, as aenix's objects are): it is
 *       the cluster's object, observed as such, and the next write adds the labels, after which the
 *       caches carry it;
 *   <li>owned by anything else, or by nothing: not the cluster's, never written; {@link #foreign}
 *       says so, and the write it would have had is reported as refused, naming the object.
 * </ul>
 *
 * Lookups are kept for the reconcile, so observing and acting make at most one call per name.
 *
 * <p>An object in the caches that an EtcdCluster of another UID owns is a leftover of an earlier
 * cluster of the same name, deleted moments ago, that the garbage collector has not collected yet
 * ({@link #ofAnotherCluster}). It is not this cluster's: taken for its own, an earlier cluster's
 * {@code existing} cluster-state ConfigMap made a new cluster wait for members it never had, with
 * nothing to bootstrap it, for good (the ConfigMap was written again as its own). It is looked up
 * as any name the caches lack, found foreign, and left for the collector; its deletion reconciles
 * the cluster. An object of ours that nothing owns (its EtcdCluster was deleted with {@code
 * propagationPolicy: Orphan}) is still taken, as it was meant to be.
 */
final class LiveObjects implements ClusterObjects.Live {
  private static final Set<Class<?>> BY_NAME =
      Set.of(StatefulSet.class, ConfigMap.class, Service.class, PodDisruptionBudget.class);

  private final Context<EtcdCluster> context;
  private final ClusterEventSources sources;
  private final EtcdCluster cluster;
  private final String name;
  private final String namespace;
  private final Map<String, Optional<? extends HasMetadata>> fetched = new HashMap<>();

  LiveObjects(Context<EtcdCluster> context, ClusterEventSources sources, EtcdCluster cluster) {
    this.context = context;
    this.sources = sources;
    this.cluster = cluster;
    this.name = cluster.getMetadata().getName();
    this.namespace = cluster.getMetadata().getNamespace();
  }

  @Override
  public <R extends HasMetadata> Optional<R> named(Class<R> type, String objectName) {
    Optional<R> cached = cached(type, objectName);
    if (cached.isPresent() || !BY_NAME.contains(type)) {
      return cached;
    }
    return fetch(type, objectName).filter(this::owned);
  }

  @Override
  public <R extends HasMetadata> Optional<R> cached(Class<R> type, String objectName) {
    String uid = cluster.getMetadata().getUid();
    return sources.named(type, namespace, name, objectName).filter(r -> !ofAnotherCluster(r, uid));
  }

  /** The cluster's objects of a kind the operator makes, as the caches hold them. */
  <R extends HasMetadata> List<R> all(Class<R> type) {
    return sources.of(type, namespace, name).toList();
  }

  /** Whether EtcdClusters own the object, none of them the one of this UID. */
  static boolean ofAnotherCluster(HasMetadata o, String uid) {
    List<OwnerReference> owners = o.getMetadata().getOwnerReferences();
    if (owners == null) {
      return false;
    }
    String group = HasMetadata.getGroup(EtcdCluster.class) + "/";
    String kind = HasMetadata.getKind(EtcdCluster.class);
    List<OwnerReference> clusters =
        owners.stream()
            .filter(r -> kind.equals(r.getKind()))
            .filter(r -> r.getApiVersion() != null && r.getApiVersion().startsWith(group))
            .toList();
    return !clusters.isEmpty() && clusters.stream().noneMatch(r -> Objects.equals(r.getUid(), uid));
  }

  @Override
  public Optional<String> foreign(Class<? extends HasMetadata> type, String objectName) {
    if (!BY_NAME.contains(type)) {
      return Optional.empty();
    }
    return fetch(type, objectName)
        .filter(o -> !owned(o))
        .map(
            o ->
                type.getSimpleName()
                    + " "
                    + objectName
                    + " exists and is not this EtcdCluster's (it has no owner reference to"
                    + " EtcdCluster "
                    + name
                    + " with its UID), so the operator leaves it as it is: delete it if it is a"
                    + " leftover, or give the EtcdCluster another name");
  }

  @SuppressWarnings("unchecked")
  private <R extends HasMetadata> Optional<R> fetch(Class<R> type, String objectName) {
    String key = type.getSimpleName() + "/" + objectName;
    return (Optional<R>)
        fetched.computeIfAbsent(
            key,
            k ->
                Optional.ofNullable(
                    context
                        .getClient()
                        .resources(type)
                        .inNamespace(namespace)
                        .withName(objectName)
                        .get()));
  }

  private boolean owned(HasMetadata o) {
    String uid = cluster.getMetadata().getUid();
    return uid != null
        && o.getMetadata().getOwnerReferences() != null
        && o.getMetadata().getOwnerReferences().stream().anyMatch(r -> uid.equals(r.getUid()));
  }

  ClusterObserver.Objects objects() {
    return new ClusterObserver.Objects(
        named(StatefulSet.class, Names.statefulSet(name)),
        all(Pod.class),
        all(PersistentVolumeClaim.class),
        named(ConfigMap.class, Names.clusterStateConfigMap(name)),
        named(Pod.class, Names.rebuildPod(name)));
  }
}
