package io.etcdoperator.operator.reconcile;

import io.etcdoperator.operator.act.CallHook;
import io.etcdoperator.operator.etcd.EtcdHttp;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.metrics.OperatorMetrics;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.MemberWatch;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * What the EtcdCluster controller is made with.
 *
 * @param etcd the gRPC side of every member
 * @param http the HTTP side (metrics and versions), asked only when the gRPC side says too little
 * @param clock the operator's clock
 * @param quorumLossAlarm how long quorum may be lost before the status says so louder
 * @param hook called after every call that changes the world (tests crash the operator there)
 * @param operatorImage what a restore's init container runs
 * @param metrics where each cluster's metrics go
 * @param memberWatch asks Ready clusters' members for their Status and wakes the reconcile when one
 *     changes; empty: Ready clusters are looked at every {@link MemberWatch#PERIOD}
 * @param clusterWide whether the operator watches every namespace (and has its ClusterRole): only
 *     then does it read Nodes and PersistentVolumes, which are cluster-scoped
 */
public record ReconcilerSettings(
    EtcdService etcd,
    EtcdHttp http,
    Clock clock,
    Duration quorumLossAlarm,
    CallHook hook,
    String operatorImage,
    OperatorMetrics metrics,
    Optional<MemberWatch> memberWatch,
    boolean clusterWide) {

  /** The defaults: system clock, no hook, the default image, discarded metrics, no member watch. */
  public static ReconcilerSettings of(EtcdService etcd, EtcdHttp http, Duration quorumLossAlarm) {
    return new ReconcilerSettings(
        etcd,
        http,
        Clock.systemUTC(),
        quorumLossAlarm,
        CallHook.NONE,
        Names.DEFAULT_OPERATOR_IMAGE,
        OperatorMetrics.discarding(),
        Optional.empty(),
        true);
  }

  public ReconcilerSettings withClock(Clock value) {
    return new ReconcilerSettings(
        etcd, http, value, quorumLossAlarm, hook, operatorImage, metrics, memberWatch, clusterWide);
  }

  public ReconcilerSettings withHook(CallHook value) {
    return new ReconcilerSettings(
        etcd,
        http,
        clock,
        quorumLossAlarm,
        value,
        operatorImage,
        metrics,
        memberWatch,
        clusterWide);
  }

  public ReconcilerSettings withOperatorImage(String value) {
    return new ReconcilerSettings(
        etcd, http, clock, quorumLossAlarm, hook, value, metrics, memberWatch, clusterWide);
  }

  public ReconcilerSettings withMetrics(OperatorMetrics value) {
    return new ReconcilerSettings(
        etcd, http, clock, quorumLossAlarm, hook, operatorImage, value, memberWatch, clusterWide);
  }

  public ReconcilerSettings withMemberWatch(MemberWatch value) {
    return new ReconcilerSettings(
        etcd,
        http,
        clock,
        quorumLossAlarm,
        hook,
        operatorImage,
        metrics,
        Optional.of(value),
        clusterWide);
  }

  public ReconcilerSettings withClusterWide(boolean value) {
    return new ReconcilerSettings(
        etcd, http, clock, quorumLossAlarm, hook, operatorImage, metrics, memberWatch, value);
  }
}
