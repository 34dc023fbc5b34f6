package io.etcdoperator.sandbox.bench;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.model.Names;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.Watchable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * Every version of one cluster's EtcdCluster, StatefulSet and pods that the benchmark's own watches
 * received, each with the wall-clock instant it arrived: the same API server the operator's
 * informers watch, so an event here is visible to the operator within the same moment. Times are
 * wall-clock instants so that they compare with the "ts" of etcd's own log lines.
 */
final class Timeline implements AutoCloseable {
  /** One version of an object, as the watch delivered it. */
  record Seen<T>(Instant at, T object) {}

  /** The versions of one kind, oldest first. */
  static final class Events<T extends HasMetadata> {
    final List<Seen<T>> seen = new CopyOnWriteArrayList<>();

    /** When the first version received at or after {@code after} that matches arrived. */
    Optional<Instant> first(Instant after, Predicate<T> matches) {
      return seen.stream()
          .filter(s -> !s.at().isBefore(after) && matches.test(s.object()))
          .map(Seen::at)
          .findFirst();
    }

    /**
     * As {@link #first}, waiting for it (polling what was received, not the API server) up to
     * {@code limit}.
     */
    Instant await(Instant after, Predicate<T> matches, Duration limit, String what)
        throws InterruptedException {
      return within(after, matches, limit)
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "not seen within " + limit.toSeconds() + " s: " + what));
    }

    /** As {@link #await}, empty when not seen within {@code limit}. */
    Optional<Instant> within(Instant after, Predicate<T> matches, Duration limit)
        throws InterruptedException {
      long deadline = System.nanoTime() + limit.toNanos();
      while (true) {
        Optional<Instant> at = first(after, matches);
        if (at.isPresent() || System.nanoTime() > deadline) {
          return at;
        }
        Thread.sleep(10);
      }
    }

    /** The newest version received, if any. */
    Optional<T> latest() {
      return seen.isEmpty() ? Optional.empty() : Optional.of(seen.get(seen.size() - 1).object());
    }
  }

  final Events<EtcdCluster> clusters = new Events<>();
  final Events<StatefulSet> statefulSets = new Events<>();
  final Events<Pod> pods = new Events<>();
  private final List<Watch> watches = new ArrayList<>();

  /** Watches {@code cluster} in {@code namespace} from now on. */
  Timeline(KubernetesClient k, String namespace, String cluster) {
    watch(clusters, k.resources(EtcdCluster.class).inNamespace(namespace).withName(cluster));
    watch(
        statefulSets,
        k.apps().statefulSets().inNamespace(namespace).withLabel(Names.LABEL_INSTANCE, cluster));
    watch(pods, k.pods().inNamespace(namespace).withLabel(Names.LABEL_INSTANCE, cluster));
  }

  private <T extends HasMetadata> void watch(Events<T> into, Watchable<T> objects) {
    watches.add(
        objects.watch(
            new Watcher<T>() {
              @Override
              public void eventReceived(Action action, T o) {
                if (action != Action.DELETED) {
                  into.seen.add(new Seen<>(Instant.now(), o));
                }
              }

              @Override
              public void onClose(WatcherException cause) {}
            }));
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
  }
}
