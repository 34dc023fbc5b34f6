package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What to do in this reconcile and what to report.
 *
 * @param manageObjects keep the Services and PodDisruptionBudget as desired
 * @param clusterState the cluster-state ConfigMap to write, if it must change or be created
 * @param statefulSetReplicas keep the StatefulSet as desired with these replicas; empty: leave it
 * @param step the one membership or pod change to make now
 * @param status the status to report (transition times are the reconciler's business)
 * @param requeueAfter when to look again even if nothing changes
 */
public record Plan(
    boolean manageObjects,
    Optional<ClusterStateDecision> clusterState,
    OptionalInt statefulSetReplicas,
    Step step,
    EtcdClusterStatus status,
    Duration requeueAfter) {

  /**
   * The content of the cluster-state ConfigMap.
   *
   * @param existing {@code existing} (the cluster formed) or {@code new} (bootstrap)
   * @param members member name to peer URL, in ordinal order
   */
  public record ClusterStateDecision(boolean existing, List<InitialMember> members) {
    public ClusterStateDecision {
      members = List.copyOf(members);
    }
  }

  /** One entry of {@code ETCD_INITIAL_CLUSTER}. */
  public record InitialMember(String name, String peerUrl) {}
}
