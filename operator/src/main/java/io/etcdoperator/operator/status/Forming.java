package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.plan.Conditions;
import io.fabric8.kubernetes.api.model.Condition;

/**
 * A cluster that is forming says so until the operator sees its quorum, instead of "quorum lost".
 *
 * <p>etcd serves clients only once its member has joined a cluster with quorum, so the planner
 * takes a member that answers as a sign that the cluster formed; with fewer than a majority
 * answering it then decides as for a lost quorum (every pod kept, the ConfigMap {@code existing}: a
 * member that starts empty from now on must join, never bootstrap). Right after a bootstrap that is
 * the usual picture for a few hundred milliseconds: the first member has published itself and
 * serves, the others are finishing their start. Reported as it was decided, that window was a
 * {@code QuorumLost} Warning Event, {@code Degraded} True, then {@code QuorumRegained}, for a
 * cluster nobody had seen whole yet: two bootstraps of seven in the sandbox's benchmark. An alarm
 * raised on every third new cluster teaches users to ignore the alarm.
 *
 * <p>So, in the report only: when the status last written said {@code Bootstrapping} (the world
 * then showed no sign that the cluster ever formed) and this reconcile's says {@code QuorumLost},
 * each condition that says {@code QuorumLost} says {@code Bootstrapping} instead, as a bootstrap
 * reports: Available, Ready and Degraded False, Progressing True (keeping the message of a step
 * taken meanwhile). Their message says that the cluster formed and who has not answered yet. This
 * holds until the operator sees a quorum (then Available turns True and {@code BootstrapFinished}
 * is told); a quorum lost after that is {@code QuorumLost}, loudly, as ever. A cluster that formed
 * and never gathers a majority therefore stays {@code Bootstrapping}, as one whose members never
 * start does, without the escalation of a lost quorum: the operator never saw it whole.
 *
 * <p>Like {@link Escalation}, this changes words, not decisions: no decision reads the status.
 */
final class Forming {
  static final String FORMED = "the cluster formed, but a majority has not answered yet: ";

  private Forming() {}

  static EtcdClusterStatus apply(EtcdClusterStatus previous, EtcdClusterStatus computed) {
    boolean wasBootstrapping =
        Transitions.condition(previous, Conditions.AVAILABLE)
            .map(c -> Conditions.BOOTSTRAPPING.equals(c.getReason()))
            .orElse(false);
    boolean quorumLost =
        Transitions.condition(computed, Conditions.AVAILABLE)
            .map(c -> Conditions.QUORUM_LOST.equals(c.getReason()))
            .orElse(false);
    if (!wasBootstrapping || !quorumLost) {
      return computed;
    }
    String message =
        FORMED
            + Transitions.condition(computed, Conditions.AVAILABLE)
                .map(Condition::getMessage)
                .map(m -> m.startsWith("quorum lost: ") ? m.substring("quorum lost: ".length()) : m)
                .orElse("");
    for (Condition c : computed.getConditions()) {
      if (!Conditions.QUORUM_LOST.equals(c.getReason())) {
        continue;
      }
      boolean progressing = Conditions.PROGRESSING.equals(c.getType());
      boolean acting = progressing && "True".equals(c.getStatus());
      c.setReason(Conditions.BOOTSTRAPPING);
      c.setStatus(progressing ? "True" : "False");
      if (!acting) {
        c.setMessage(message);
      }
    }
    return computed;
  }
}
