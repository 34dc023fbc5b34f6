package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.etcd.Progress;
import java.util.List;
import java.util.function.Predicate;

/**
 * What a reconcile saw of one member, as far as the status and the plan of a cluster that needs
 * nothing depend on it: what the {@link MemberWatch} expects the member to say until the next
 * reconcile.
 *
 * @param reachable it answered
 * @param refused it did not, and its host refused the connection
 * @param error why it did not answer, as the status says it
 * @param fragmented it is fragmented past the spec's defragmentation threshold
 */
record Seen(
    boolean reachable,
    boolean refused,
    String error,
    long clusterId,
    long memberId,
    long leaderId,
    boolean learner,
    String version,
    List<String> alarms,
    boolean fragmented) {
  /** What {@code p} says; {@code fragmented} applies the spec's threshold. */
  static Seen of(MemberProbe p, Predicate<MemberProbe> fragmented) {
    return new Seen(
        p.reachable(),
        p.refused(),
        p.error(),
        p.clusterId(),
        p.memberId(),
        p.leaderId(),
        p.learner(),
        p.version(),
        p.alarmTypes(),
        p.reachable() && fragmented.test(p));
  }

  /**
   * How a progress answer differs from this, seen in raft term {@code term}, or null if it does
   * not.
   */
  WakeReason differs(long term, Progress p) {
    if (p.answered() != reachable) {
      return p.answered() ? WakeReason.ANSWERING : WakeReason.NOT_ANSWERING;
    }
    if (!p.answered()) {
      return null;
    }
    if (p.clusterId() != clusterId || p.memberId() != memberId) {
      return WakeReason.IDENTITY;
    }
    return p.raftTerm() != term ? WakeReason.TERM : null;
  }
}
