package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.plan.Conditions;
import java.util.List;

/**
 * Renders an expected failure of this reconcile's acting (a refused write, a refused etcd call)
 * into the status the planner computed: {@code Progressing} turns False with the failure's reason
 * and message, since the change the plan wanted could not be made. Nothing else changes. Also adds
 * to Ready's message what of the spec is not done.
 */
final class Failures {
  private Failures() {}

  static EtcdClusterStatus onProgressing(EtcdClusterStatus status, String reason, String message) {
    status.getConditions().stream()
        .filter(c -> Conditions.PROGRESSING.equals(c.getType()))
        .forEach(
            c -> {
              c.setStatus("False");
              c.setReason(reason);
              c.setMessage(message);
            });
    return status;
  }

  /** The Ready condition's message also says what of the spec is not done (SpecNotices). */
  static EtcdClusterStatus withNotices(EtcdClusterStatus status, List<String> notices) {
    status.getConditions().stream()
        .filter(c -> Conditions.READY.equals(c.getType()))
        .forEach(c -> c.setMessage(c.getMessage() + "; " + String.join("; ", notices)));
    return status;
  }
}
