package io.etcdoperator.operator.observe;

import java.util.Locale;

/** Why the {@link MemberWatch} woke a cluster's reconcile. */
public enum WakeReason {
  /** A member expected to answer did not (twice in a row, if the operator paused). */
  NOT_ANSWERING,
  /** A member expected not to answer did. */
  ANSWERING,
  /** A member answered with another cluster or member ID. */
  IDENTITY,
  /** A member answered in another raft term: an election. */
  TERM,
  /** A full check's Status differed otherwise (leader, learner, version, alarms, fragmented). */
  STATUS;

  /** As a metric's label value. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
