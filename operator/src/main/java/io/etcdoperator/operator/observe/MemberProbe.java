package io.etcdoperator.operator.observe;

import java.util.List;

/**
 * What one member said about itself when probed, or why it did not answer.
 *
 * @param ordinal the StatefulSet ordinal probed
 * @param endpoint the client URL probed
 * @param reachable it answered within the deadline
 * @param error why it did not answer (or what it reported wrong), else null
 * @param clusterId the cluster ID it belongs to (0 when unknown)
 * @param memberId its own member ID
 * @param leaderId the leader it follows (0: none)
 * @param raftTerm current raft term
 * @param raftIndex raft index (committed)
 * @param learner it is a learner
 * @param version etcd server version
 * @param dbSize backend size in bytes
 * @param alarms active alarms raised on this member (e.g. NOSPACE, CORRUPT)
 */
public record MemberProbe(
    int ordinal,
    String endpoint,
    boolean reachable,
    String error,
    long clusterId,
    long memberId,
    long leaderId,
    long raftTerm,
    long raftIndex,
    boolean learner,
    String version,
    long dbSize,
    List<String> alarms) {

  public MemberProbe {
    alarms = List.copyOf(alarms);
  }

  /** A member that did not answer. */
  public static MemberProbe unreachable(int ordinal, String endpoint, String error) {
    return new MemberProbe(
        ordinal, endpoint, false, error, 0, 0, 0, 0, 0, false, null, 0, List.of());
  }

  public boolean seesLeader() {
    return reachable && leaderId != 0;
  }
}
