package io.etcdoperator.operator.act;

import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdFailure;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberProbe;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;

/**
 * One step being taken: its cluster, the view it was planned on, and the two things every case
 * needs, the leader to send etcd calls to and a way to write to the API server that turns a refusal
 * into an outcome.
 */
record StepCall(
    StepExecutor.Scope scope,
    ClusterView view,
    Optional<EtcdClusterModel> model,
    KubernetesClient client,
    CallHook hook) {

  /** The cluster's "namespace/name", by which its etcd channels are kept. */
  String key() {
    return scope.namespace() + "/" + scope.cluster();
  }

  String namespace() {
    return scope.namespace();
  }

  String cluster() {
    return scope.cluster();
  }

  /** The leader's client endpoint and the cluster ID it answered with. */
  record Leader(String endpoint, long clusterId) {}

  /** The member that answered as the leader; etcd's NOT_LEADER when none did. */
  Leader leader() {
    MemberProbe p =
        view.probes().values().stream()
            .filter(m -> m.reachable() && m.memberId() != 0 && m.memberId() == m.leaderId())
            .findFirst()
            .orElseThrow(
                () ->
                    new EtcdException(
                        EtcdFailure.NOT_LEADER, "", "no member answered as the leader", null));
    return new Leader(p.endpoint(), p.clusterId());
  }

  /** An API refusal, carried out of a case to {@link StepExecutor#execute}. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient ApiRefusal refusal;

    Refused(ApiRefusal refusal, KubernetesClientException cause) {
      super(refusal.describe(), cause);
      this.refusal = refusal;
    }

    ApiRefusal refusal() {
      return refusal;
    }
  }

  /** One API write; a refusal leaves through {@link Refused}, anything else propagates. */
  void write(String verb, String kind, String name, Runnable call) {
    try {
      call.run();
    } catch (KubernetesClientException e) {
      throw ApiRefusal.of(verb, kind, name, e).map(r -> new Refused(r, e)).orElseThrow(() -> e);
    }
    hook.after("k8s " + verb + " " + kind + " " + name);
  }
}
