package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one rule decided: the single step, which objects to keep as desired, what to report, and
 * when to look again.
 *
 * @param step the one membership or pod change to make now
 * @param keep the Kubernetes objects to keep as desired besides the step
 * @param report the four conditions
 * @param requeueAfter when to look again even if nothing changes
 */
public record Decision(Step step, Keep keep, Report report, Duration requeueAfter) {
  public Decision {
    Objects.requireNonNull(step, "step");
    Objects.requireNonNull(keep, "keep");
    Objects.requireNonNull(report, "report");
    Objects.requireNonNull(requeueAfter, "requeueAfter");
  }

  /**
   * The objects to keep as desired.
   *
   * @param objects keep the Services and PodDisruptionBudget as desired
   * @param clusterState the cluster-state ConfigMap to write, if it must change or be created
   * @param statefulSetReplicas keep the StatefulSet as desired with these replicas; empty: leave it
   * @param claimMarks claims to mark with the member whose data they now hold (claim name to member
   *     ID), so that a claim a former member leaves behind is recognised later
   * @param clusterId the cluster ID to mark those claims with, beside the member ID
   */
  public record Keep(
      boolean objects,
      Optional<ClusterState> clusterState,
      OptionalInt statefulSetReplicas,
      Map<String, Long> claimMarks,
      long clusterId) {
    /** Touch nothing: the operator stands still. */
    public static final Keep NOTHING =
        new Keep(false, Optional.empty(), OptionalInt.empty(), Map.of());

    /** The Services and the PodDisruptionBudget as desired, nothing else. */
    public static final Keep OBJECTS =
        new Keep(true, Optional.empty(), OptionalInt.empty(), Map.of());

    public Keep {
      claimMarks = Map.copyOf(claimMarks);
    }

    public Keep(
        boolean objects,
        Optional<ClusterState> clusterState,
        OptionalInt statefulSetReplicas,
        Map<String, Long> claimMarks) {
      this(objects, clusterState, statefulSetReplicas, claimMarks, 0);
    }

    /** The Services, the budget, and the StatefulSet with {@code replicas}. */
    public static Keep statefulSet(int replicas) {
      return new Keep(true, Optional.empty(), OptionalInt.of(replicas), Map.of());
    }

    public Keep withClusterState(ClusterState state) {
      return new Keep(objects, Optional.of(state), statefulSetReplicas, claimMarks, clusterId);
    }
  }
}
