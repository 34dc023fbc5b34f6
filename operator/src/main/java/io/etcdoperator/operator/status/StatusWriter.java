package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.act.CallHook;
import io.etcdoperator.operator.status.StatusComposer.Composed;
import io.etcdoperator.operator.status.Transitions.Notice;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * Tells a reconcile's Events and writes its status. The status replaces the whole of the previous
 * one (PUT on the status subresource), guarded by the resourceVersion this reconcile read: a status
 * is a function of one observation, so a patch computed against another version would mix two. On a
 * conflict (the resource changed meanwhile) nothing is written, and the next reconcile, soon,
 * computes it afresh. Only a status that was written is a transition, told as Events: one refused
 * with a conflict is computed again, against the status that did get written.
 */
public final class StatusWriter {
  private final CallHook hook;
  private final EventRecorder events;

  public StatusWriter(CallHook hook, EventRecorder events) {
    this.hook = hook;
    this.events = events;
  }

  /**
   * Tells {@code composed}'s Events, then writes its status if it changed and tells its
   * transitions; false when a conflict left it unwritten.
   */
  public boolean report(EtcdCluster cluster, Composed composed, Context<EtcdCluster> context) {
    composed.events().forEach(n -> events.record(cluster, n));
    EtcdClusterStatus previous = cluster.getStatus();
    EtcdClusterStatus status = composed.status();
    if (status.equals(previous)) {
      return true;
    }
    if (!write(cluster, status, context)) {
      return false;
    }
    for (Notice n : Transitions.between(previous, status)) {
      events.record(cluster, n);
    }
    return true;
  }

  private boolean write(
      EtcdCluster cluster, EtcdClusterStatus status, Context<EtcdCluster> context) {
    EtcdCluster before =
        context.getPrimaryCache().get(ResourceID.fromResource(cluster)).orElse(null);
    cluster.setStatus(status);
    try {
      EtcdCluster written = context.getClient().resource(cluster).updateStatus();
      hook.after("k8s updateStatus EtcdCluster " + cluster.getMetadata().getName());
      // The next reconcile reads the status it compares with from the cache: without this, one
      // that came before the watch delivered this write compared with the status before it, and
      // told every transition twice (BootstrapFinished, MemberHealthy).
      if (written != null && before != null) {
        context
            .eventSourceRetriever()
            .getControllerEventSource()
            .handleRecentResourceUpdate(ResourceID.fromResource(cluster), written, before);
      }
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false;
      }
      throw e;
    }
  }
}
