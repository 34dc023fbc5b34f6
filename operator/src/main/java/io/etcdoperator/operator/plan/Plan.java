package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.model.InitialMember;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What to do in this reconcile and what to report.
 *
 * @param manageObjects keep the Services and PodDisruptionBudget as desired
 * @param clusterState the cluster-state ConfigMap to write, if it must change or be created
 * @param statefulSetReplicas keep the StatefulSet as desired with these replicas; empty: leave it
 * @param claimMembers claims to mark with the member whose data they now hold (claim name to member
 *     ID), so that a claim a former member leaves behind is recognised later
 * @param step the one membership or pod change to make now
 * @param status the status to report (transition times are the reconciler's business)
 * @param requeueAfter when to look again even if nothing changes
 */
public record Plan(
    boolean manageObjects,
    Optional<ClusterStateDecision> clusterState,
    OptionalInt statefulSetReplicas,
    Map<String, Long> claimMembers,
    Step step,
    EtcdClusterStatus status,
    Duration requeueAfter) {

  public Plan {
    claimMembers = Map.copyOf(claimMembers);
  }

  /**
   * The content of the cluster-state ConfigMap.
   *
   * @param existing {@code existing} (the cluster formed) or {@code new} (bootstrap)
   * @param members member name to peer URL, in ordinal order
   * @param annotations the operator's annotations on it (the record of rebuilds)
   */
  public record ClusterStateDecision(
      boolean existing, List<InitialMember> members, Map<String, String> annotations) {
    public ClusterStateDecision {
      members = List.copyOf(members);
      annotations = Map.copyOf(annotations);
    }

    public ClusterStateDecision(boolean existing, List<InitialMember> members) {
      this(existing, members, Map.of());
    }
  }
}
