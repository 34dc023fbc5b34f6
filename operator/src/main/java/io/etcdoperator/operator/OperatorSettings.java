package io.etcdoperator.operator;

import io.etcdoperator.operator.act.CallHook;
import io.etcdoperator.operator.model.Names;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * How to run the operator.
 *
 * @param namespaces namespaces to watch; empty: all
 * @param leaderElection a Lease to hold before acting, when several replicas may run
 * @param http where to serve /healthz, /readyz and /metrics; empty: nowhere
 * @param etcdDeadline deadline of every call to etcd
 * @param reconcileThreads clusters reconciled at once
 * @param quorumLossAlarm how long quorum may stay lost before the status and a Warning say so
 *     louder
 * @param operatorImage the operator's own image: what backup and restore pods run
 */
public record OperatorSettings(
    Set<String> namespaces,
    Optional<LeaderElection> leaderElection,
    Optional<Http> http,
    Duration etcdDeadline,
    int reconcileThreads,
    Duration quorumLossAlarm,
    CallHook callHook,
    String operatorImage) {
  /** The image of this build, as deploy/ names it; $OPERATOR_IMAGE in the Deployment overrides. */
  public static final String DEFAULT_IMAGE = Names.DEFAULT_OPERATOR_IMAGE;

  public OperatorSettings {
    namespaces = Set.copyOf(namespaces);
  }

  /** All namespaces, no leader election, no HTTP endpoint, 1 s etcd deadline. */
  public static OperatorSettings defaults() {
    return new OperatorSettings(
        Set.of(),
        Optional.empty(),
        Optional.empty(),
        Duration.ofSeconds(1),
        10,
        Duration.ofMinutes(5),
        CallHook.NONE,
        DEFAULT_IMAGE);
  }

  public OperatorSettings withNamespaces(Set<String> value) {
    return new OperatorSettings(
        value,
        leaderElection,
        http,
        etcdDeadline,
        reconcileThreads,
        quorumLossAlarm,
        callHook,
        operatorImage);
  }

  public OperatorSettings withLeaderElection(LeaderElection value) {
    return new OperatorSettings(
        namespaces,
        Optional.of(value),
        http,
        etcdDeadline,
        reconcileThreads,
        quorumLossAlarm,
        callHook,
        operatorImage);
  }

  public OperatorSettings withHttp(Http value) {
    return new OperatorSettings(
        namespaces,
        leaderElection,
        Optional.of(value),
        etcdDeadline,
        reconcileThreads,
        quorumLossAlarm,
        callHook,
        operatorImage);
  }

  public OperatorSettings withQuorumLossAlarm(Duration value) {
    return new OperatorSettings(
        namespaces,
        leaderElection,
        http,
        etcdDeadline,
        reconcileThreads,
        value,
        callHook,
        operatorImage);
  }

  public OperatorSettings withCallHook(CallHook value) {
    return new OperatorSettings(
        namespaces,
        leaderElection,
        http,
        etcdDeadline,
        reconcileThreads,
        quorumLossAlarm,
        value,
        operatorImage);
  }

  public OperatorSettings withEtcdDeadline(Duration value) {
    return new OperatorSettings(
        namespaces,
        leaderElection,
        http,
        value,
        reconcileThreads,
        quorumLossAlarm,
        callHook,
        operatorImage);
  }

  public OperatorSettings withOperatorImage(String value) {
    return new OperatorSettings(
        namespaces,
        leaderElection,
        http,
        etcdDeadline,
        reconcileThreads,
        quorumLossAlarm,
        callHook,
        value);
  }

  /**
   * The Lease that elects the one acting replica.
   *
   * @param namespace the Lease's namespace
   * @param name the Lease's name
   * @param identity this replica's identity (e.g. its pod name)
   * @param leaseDuration how long a Lease not renewed stays held
   * @param exitWhenLost end the process when leadership is lost (a replica that lost its Lease must
   *     stop acting at once; exiting is the safe way, and Kubernetes restarts it as a candidate)
   */
  public record LeaderElection(
      String namespace,
      String name,
      String identity,
      Duration leaseDuration,
      boolean exitWhenLost) {
    public LeaderElection(String namespace, String name, String identity) {
      this(namespace, name, identity, Duration.ofSeconds(15), true);
    }
  }

  /**
   * The health and metrics endpoint.
   *
   * @param host address to bind
   * @param port port to bind (0: any free port)
   */
  public record Http(String host, int port) {}
}
