package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.model.Compactor;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Security;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What wakes the EtcdCluster controller, and the caches it reads: an informer per kind of object
 * the operator makes (only objects labelled as managed by it, each mapped to its cluster by its
 * instance label), the EtcdBackups ({@link Backups}), the Secrets of spec.security.tls, the member
 * watch's and the Node watch's wake-ups.
 *
 * <p>Each cache of a kind the operator makes is indexed by cluster (namespace and instance label),
 * and a cluster's objects are read through that index ({@link #of}, {@link #named}), not through
 * JOSDK's {@code getSecondaryResources}: that collects them into a set, which hashes every object
 * whole (a Pod's hash walks all its fields, its quantities as {@code BigDecimal}s), on every read
 * of every reconcile. The same index gives JOSDK a cluster's objects ({@code
 * withPrimaryToSecondaryMapper}), so that JOSDK keeps no index of its own besides. Each object read
 * is the cache's newest, the operator's own latest write included ({@code get}).
 */
final class ClusterEventSources {
  private static final String BY_CLUSTER = "cluster";

  private final Map<Class<?>, InformerEventSource<?, EtcdCluster>> caches =
      new ConcurrentHashMap<>();

  /** Reconciles the member watch and the Node watch ask for. */
  private final SimpleInboundEventSource<EtcdCluster> wakeups =
      new SimpleInboundEventSource<>("member-watch");

  /** The Secret informers: one for all namespaces (key ""), or one per watched namespace. */
  private final Map<String, InformerEventSource<Secret, EtcdCluster>> secrets =
      new ConcurrentHashMap<>();

  private final SecretCache secretCache = new SecretCache();
  private volatile KubernetesClient client;
  private volatile NodeWatch nodeWatch;

  List<EventSource<?, EtcdCluster>> prepare(EventSourceContext<EtcdCluster> context) {
    List<EventSource<?, EtcdCluster>> sources =
        new ArrayList<>(
            List.of(
                cache(context, StatefulSet.class),
                cache(context, Pod.class),
                cache(context, PersistentVolumeClaim.class),
                cache(context, ConfigMap.class),
                cache(context, Service.class),
                cache(context, PodDisruptionBudget.class),
                Backups.source(context),
                Backups.schedules(context),
                wakeups));
    sources.addAll(secrets(context));
    return sources;
  }

  /** The cache of a kind the operator makes. */
  @SuppressWarnings("unchecked")
  <R extends HasMetadata> InformerEventSource<R, EtcdCluster> cache(Class<R> type) {
    return (InformerEventSource<R, EtcdCluster>) caches.get(type);
  }

  /** The objects of a kind the operator makes that are the cluster's (its instance label). */
  <R extends HasMetadata> Stream<R> of(Class<R> type, String namespace, String cluster) {
    InformerEventSource<R, EtcdCluster> source = cache(type);
    if (source == null) {
      return Stream.empty();
    }
    return source.byIndex(BY_CLUSTER, namespace + "/" + cluster).stream()
        .map(r -> source.get(ResourceID.fromResource(r)))
        .flatMap(Optional::stream);
  }

  /** The object of a kind the operator makes of this name, if it is the cluster's. */
  <R extends HasMetadata> Optional<R> named(
      Class<R> type, String namespace, String cluster, String name) {
    InformerEventSource<R, EtcdCluster> source = cache(type);
    return source == null
        ? Optional.empty()
        : source.get(new ResourceID(name, namespace)).filter(r -> cluster.equals(instance(r)));
  }

  private static String instance(HasMetadata r) {
    Map<String, String> labels = r.getMetadata().getLabels();
    return labels == null ? null : labels.get(Names.LABEL_INSTANCE);
  }

  /** The cache of a kind the operator makes, untyped. */
  InformerEventSource<?, EtcdCluster> cacheOf(Class<?> type) {
    return caches.get(type);
  }

  /**
   * A Secret of the watched namespaces, whole: the informer holds only its names and version
   * ({@link SecretCache}), and the Secret is read when that version is new.
   */
  Optional<Secret> secret(String namespace, String name) {
    InformerEventSource<Secret, EtcdCluster> source =
        secrets.getOrDefault(namespace, secrets.get(""));
    if (source == null) {
      return Optional.empty();
    }
    Optional<Secret> seen = source.get(new ResourceID(name, namespace));
    if (seen.isEmpty()) {
      secretCache.forget(namespace, name);
      return Optional.empty();
    }
    return secretCache.read(client, seen.get());
  }

  /** Whether the Secret exists, by the informer (its data is not read). */
  boolean secretExists(String namespace, String name) {
    InformerEventSource<Secret, EtcdCluster> source =
        secrets.getOrDefault(namespace, secrets.get(""));
    return source != null && source.get(new ResourceID(name, namespace)).isPresent();
  }

  /** Reconciles the cluster {@code id} soon. */
  void wake(ResourceID id) {
    wakeups.propagateEvent(id);
  }

  /**
   * The Node informer, started with the first reconcile (it needs the client).
   *
   * @param clusterWide whether the operator watches every namespace (and has its ClusterRole): only
   *     then does it read Nodes and PersistentVolumes, which are cluster-scoped
   */
  NodeWatch nodes(KubernetesClient client, boolean clusterWide) {
    NodeWatch n = nodeWatch;
    if (n == null) {
      synchronized (this) {
        if (nodeWatch == null) {
          nodeWatch = new NodeWatch(client, clusterWide, this::nodeChanged);
        }
        n = nodeWatch;
      }
    }
    return n;
  }

  /**
   * Reconciles each cluster that has a member pod on {@code node}: a Node event (Ready, cordoned,
   * tainted, deleted) changes what the status says of its members and what may be done to them.
   */
  void nodeChanged(String node) {
    InformerEventSource<Pod, EtcdCluster> pods = cache(Pod.class);
    if (pods == null) {
      return;
    }
    pods.list(p -> node.equals(p.getSpec() == null ? null : p.getSpec().getNodeName()))
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
   * them), so every Secret of the watched namespaces is watched, and a change to one reconciles
   * each cluster whose spec names it: a renewed certificate is read (and a new CA rolled) promptly.
   * Of a Secret the informer keeps its names and version only ({@link SecretCache}).
   */
  private List<InformerEventSource<Secret, EtcdCluster>> secrets(
      EventSourceContext<EtcdCluster> context) {
    client = context.getClient();
    Set<String> namespaces = context.getControllerConfiguration().getEffectiveNamespaces();
    // JOSDK gives each namespace's informer of one event source the same store, and each relist
    // drops from it what its own namespace did not list: a store per informer, so one event
    // source per namespace when several (not all) are watched.
    if (InformerConfiguration.allNamespacesWatched(namespaces) || namespaces.size() <= 1) {
      secrets.put("", secrets(context, "secret", null));
    } else {
      namespaces.forEach(ns -> secrets.put(ns, secrets(context, "secret-" + ns, ns)));
    }
    return List.copyOf(secrets.values());
  }

  private static InformerEventSource<Secret, EtcdCluster> secrets(
      EventSourceContext<EtcdCluster> context, String name, String namespace) {
    var builder =
        InformerEventSourceConfiguration.from(Secret.class, EtcdCluster.class)
            .withName(name)
            .withItemStore(SecretCache.store())
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
                        .collect(Collectors.toSet()));
    if (namespace != null) {
      builder.withNamespaces(Set.of(namespace));
    }
    return new InformerEventSource<>(builder.build(), context);
  }

  /**
   * The object without {@code metadata.managedFields}, which the operator never reads: a real API
   * server records every writer's fields on every object (the operator's, kubectl's, the
   * StatefulSet controller's, the kubelet's status), often more than the rest of a small object.
   */
  static <R extends HasMetadata> R withoutManagedFields(R object) {
    if (object.getMetadata() != null) {
      object.getMetadata().setManagedFields(null);
    }
    return object;
  }

  /**
   * What the cache of a kind the operator makes keeps of an object: all it says but its managed
   * fields, its parts common to every cluster shared ({@link Compactor}).
   */
  static <R extends HasMetadata> R compacted(R object) {
    return Compactor.compact(withoutManagedFields(object));
  }

  private <R extends HasMetadata> InformerEventSource<R, EtcdCluster> cache(
      EventSourceContext<EtcdCluster> context, Class<R> type) {
    var config =
        InformerEventSourceConfiguration.from(type, EtcdCluster.class)
            .withName(type.getSimpleName().toLowerCase())
            .withLabelSelector(Names.LABEL_MANAGED_BY + "=" + Names.MANAGER)
            .withItemStore(new TrimmingStore<R>(ClusterEventSources::compacted))
            .withSecondaryToPrimaryMapper(
                (R r) -> {
                  String instance = instance(r);
                  return instance == null
                      ? Set.of()
                      : Set.of(new ResourceID(instance, r.getMetadata().getNamespace()));
                })
            .withPrimaryToSecondaryMapper(
                (EtcdCluster c) ->
                    of(type, c.getMetadata().getNamespace(), c.getMetadata().getName())
                        .map(ResourceID::fromResource)
                        .collect(Collectors.toSet()))
            .build();
    InformerEventSource<R, EtcdCluster> source = new InformerEventSource<>(config, context);
    source.addIndexers(
        Map.of(
            BY_CLUSTER,
            r -> {
              String instance = instance(r);
              return instance == null
                  ? List.of()
                  : List.of(r.getMetadata().getNamespace() + "/" + instance);
            }));
    caches.put(type, source);
    return source;
  }
}
