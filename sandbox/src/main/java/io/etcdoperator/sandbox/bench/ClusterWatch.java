package io.etcdoperator.sandbox.bench;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Every EtcdCluster's status as the benchmark's own watch delivers it, with when it arrived: what a
 * user's {@code kubectl get -w} would see, and when.
 */
final class ClusterWatch implements AutoCloseable {
  private final SharedIndexInformer<EtcdCluster> informer;
  private final Map<String, EtcdClusterStatus> statuses = new ConcurrentHashMap<>();
  private final Object changed = new Object();

  ClusterWatch(KubernetesClient client, String namespace) {
    informer =
        client
            .resources(EtcdCluster.class)
            .inNamespace(namespace)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(EtcdCluster c) {
                    seen(c);
                  }

                  @Override
                  public void onUpdate(EtcdCluster before, EtcdCluster c) {
                    seen(c);
                  }

                  @Override
                  public void onDelete(EtcdCluster c, boolean unknown) {
                    statuses.remove(c.getMetadata().getName());
                  }
                });
  }

  private void seen(EtcdCluster c) {
    if (c.getStatus() != null) {
      statuses.put(c.getMetadata().getName(), c.getStatus());
    }
    synchronized (changed) {
      changed.notifyAll();
    }
  }

  /** Clusters whose status passes {@code test}. */
  long count(Predicate<EtcdClusterStatus> test) {
    return statuses.values().stream().filter(test).count();
  }

  /**
   * Waits until the status of {@code name} passes {@code test}; returns how long it took from
   * {@code fromNanos}, or null after {@code max}.
   */
  Duration await(String name, Predicate<EtcdClusterStatus> test, long fromNanos, Duration max)
      throws InterruptedException {
    long until = System.nanoTime() + max.toNanos();
    synchronized (changed) {
      while (true) {
        EtcdClusterStatus s = statuses.get(name);
        if (s != null && test.test(s)) {
          return Duration.ofNanos(System.nanoTime() - fromNanos);
        }
        long left = until - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        changed.wait(Math.max(1, Math.min(left / 1_000_000, 200)));
      }
    }
  }

  /** Waits until {@code n} clusters pass {@code test}; false after {@code max}. */
  boolean awaitCount(long n, Predicate<EtcdClusterStatus> test, Duration max)
      throws InterruptedException {
    long until = System.nanoTime() + max.toNanos();
    synchronized (changed) {
      while (count(test) < n) {
        long left = until - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.wait(Math.max(1, Math.min(left / 1_000_000, 500)));
      }
      return true;
    }
  }

  static boolean ready(EtcdClusterStatus s) {
    return condition(s, "Ready", "True");
  }

  static boolean unavailable(EtcdClusterStatus s) {
    return condition(s, "Available", "False");
  }

  /** Some member is reported not healthy. */
  static boolean memberUnhealthy(EtcdClusterStatus s) {
    return s.getMembers().stream().map(MemberStatus::getHealthy).anyMatch(Boolean.FALSE::equals);
  }

  static boolean condition(EtcdClusterStatus s, String type, String value) {
    return s.getConditions().stream()
        .anyMatch(c -> type.equals(c.getType()) && value.equals(c.getStatus()));
  }

  @Override
  public void close() {
    informer.close();
  }
}
