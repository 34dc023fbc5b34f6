package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.Target;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The planner's answer for one reconcile: which rule fired, what it decided, and the facts it
 * decided on (from which the status is rendered).
 *
 * @param rule the name of the rule that fired (as the planner's Javadoc lists it)
 * @param decision the step, what to keep, what to report, when to look again
 * @param target what the user asked for
 * @param facts what the rules read of the observation
 */
public record Plan(String rule, Decision decision, Target target, Facts facts) {
  public Plan {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(facts, "facts");
  }

  public Step step() {
    return decision.step();
  }

  /** Keep the Services and PodDisruptionBudget as desired. */
  public boolean manageObjects() {
    return decision.keep().objects();
  }

  /** The cluster-state ConfigMap to write, if it must change or be created. */
  public Optional<ClusterState> clusterState() {
    return decision.keep().clusterState();
  }

  /** Keep the StatefulSet as desired with these replicas; empty: leave it. */
  public OptionalInt statefulSetReplicas() {
    return decision.keep().statefulSetReplicas();
  }

  /** Claims to mark with the member whose data they hold (claim name to member ID). */
  public Map<String, Long> claimMembers() {
    return decision.keep().claimMarks();
  }

  /** The cluster ID the claims of {@link #claimMembers()} are marked with. */
  public long claimClusterId() {
    return decision.keep().clusterId();
  }

  /** What the decision reports. */
  public Report report() {
    return decision.report();
  }

  public Duration requeueAfter() {
    return decision.requeueAfter();
  }
}
