package io.etcdoperator.operator.reconcile;

import io.etcdoperator.operator.act.Deletions;
import io.etcdoperator.operator.act.DesiredCache;
import io.etcdoperator.operator.etcd.DefragResult;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.metrics.OperatorMetrics;
import io.etcdoperator.operator.observe.ClusterObserver;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.MemberWatch;
import io.etcdoperator.operator.plan.ClusterGauges;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.Predicate;

/**
 * What the operator holds for one cluster between reconciles, in one place: its desired state
 * composed ({@link DesiredCache}), the pods and claims it deleted that the cache does not show yet
 * ({@link Deletions}), what the observer remembers, and, outside this object but released by it,
 * its channels to the members, its meters and its place in the member watch. Made at the cluster's
 * first reconcile and closed once when the cluster is deleted. Nothing here is a decision: what
 * must survive a restart of the operator lives in the world, and a new session starts afresh.
 */
final class ClusterSession implements AutoCloseable {
  private final String namespace;
  private final String name;
  private final EtcdService etcd;
  private final OperatorMetrics metrics;
  private final MemberWatch watch;
  private final DesiredCache desired = new DesiredCache();
  private final Deletions deletions;
  private final ClusterObserver.Memory observed = new ClusterObserver.Memory();

  /**
   * @param watch the member watch, or null (tests of the reconciler alone)
   */
  ClusterSession(
      String namespace, String name, EtcdService etcd, OperatorMetrics metrics, MemberWatch watch) {
    this.namespace = namespace;
    this.name = name;
    this.etcd = etcd;
    this.metrics = metrics;
    this.watch = watch;
    this.deletions = new Deletions(key());
  }

  static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  /** The cluster's "namespace/name". */
  String key() {
    return key(namespace, name);
  }

  String namespace() {
    return namespace;
  }

  String name() {
    return name;
  }

  DesiredCache desired() {
    return desired;
  }

  Deletions deletions() {
    return deletions;
  }

  ClusterObserver.Memory observed() {
    return observed;
  }

  void gauges(ClusterGauges gauges, Optional<Instant> newestBackup) {
    metrics.observed(namespace, name, gauges, newestBackup);
  }

  void reconciled(String rule, Duration took) {
    metrics.reconciled(namespace, name, rule, took);
  }

  /** A reconcile failed: "exception", "api" (a refused write) or "step" (a refused step). */
  void failed(String kind) {
    metrics.failed(namespace, name, kind);
  }

  void defragmented(String member, Optional<DefragResult> result) {
    metrics.defragmented(namespace, name, member, result);
  }

  /** Whether a member watch runs: without one, Ready clusters are looked at every watch period. */
  boolean watched() {
    return watch != null;
  }

  /**
   * Has the member watch ask {@code urls} for their Status and call {@code wake} as soon as one
   * says something other than {@code seen}.
   */
  void watch(
      SortedMap<Integer, String> urls,
      Map<Integer, MemberProbe> seen,
      Predicate<MemberProbe> pastThreshold,
      Runnable wake) {
    if (watch != null) {
      watch.expect(key(), urls, seen, pastThreshold, wake);
    }
  }

  /** Stops the member watch for this cluster: the next reconcile comes soon anyway. */
  void unwatch() {
    if (watch != null) {
      watch.forget(key());
    }
  }

  /** Releases what is held for the cluster outside this object: it is gone. */
  @Override
  public void close() {
    unwatch();
    etcd.closeCluster(key());
    metrics.forget(namespace, name);
  }
}
