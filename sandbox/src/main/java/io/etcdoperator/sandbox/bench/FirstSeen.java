package io.etcdoperator.sandbox.bench;

import io.etcdoperator.operator.model.Names;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.Watchable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When the benchmark's own watches first saw each object the operator makes for one cluster
 * (StatefulSet, Services, ConfigMaps, PodDisruptionBudget, Secrets, by the cluster's instance
 * label): the operator's share of a bootstrap before any pod exists. Started before the apply, so
 * that every creation arrives as an event, with the benchmark's clock.
 */
final class FirstSeen implements AutoCloseable {
  private final Map<String, Long> seen = new ConcurrentHashMap<>();
  private final List<Watch> watches = new ArrayList<>();

  /** Watches {@code cluster}'s objects in {@code namespace}, from now on. */
  FirstSeen(KubernetesClient k, String namespace, String cluster) {
    String label = Names.LABEL_INSTANCE;
    watch("StatefulSet", k.apps().statefulSets().inNamespace(namespace).withLabel(label, cluster));
    watch("Service", k.services().inNamespace(namespace).withLabel(label, cluster));
    watch("ConfigMap", k.configMaps().inNamespace(namespace).withLabel(label, cluster));
    watch(
        "PodDisruptionBudget",
        k.policy().v1().podDisruptionBudget().inNamespace(namespace).withLabel(label, cluster));
    watch("Secret", k.secrets().inNamespace(namespace).withLabel(label, cluster));
  }

  private <T extends HasMetadata> void watch(String kind, Watchable<T> objects) {
    watches.add(
        objects.watch(
            new Watcher<T>() {
              @Override
              public void eventReceived(Action action, T o) {
                if (action == Action.ADDED) {
                  seen.putIfAbsent(kind + "/" + o.getMetadata().getName(), System.nanoTime());
                }
              }

              @Override
              public void onClose(WatcherException cause) {}
            }));
  }

  /** When the first StatefulSet was seen, from {@code fromNanos}. */
  Optional<Duration> statefulSet(long fromNanos) {
    return seen.entrySet().stream()
        .filter(e -> e.getKey().startsWith("StatefulSet/"))
        .map(e -> Duration.ofNanos(e.getValue() - fromNanos))
        .min(Duration::compareTo);
  }

  /** When the last object seen so far was first seen, from {@code fromNanos}. */
  Optional<Duration> all(long fromNanos) {
    return seen.values().stream()
        .map(t -> Duration.ofNanos(t - fromNanos))
        .max(Duration::compareTo);
  }

  /** The objects seen so far (kind/name). */
  List<String> objects() {
    return seen.keySet().stream().sorted().toList();
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
  }
}
