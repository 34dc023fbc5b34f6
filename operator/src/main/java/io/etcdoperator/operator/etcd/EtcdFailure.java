package io.etcdoperator.operator.etcd;

/** The failures of a call to etcd that the operator expects and decides on. */
public enum EtcdFailure {
  /** No connection: refused, reset, name not resolved, or the channel is failing. */
  UNREACHABLE,
  /** No answer within the deadline: a frozen, overloaded or black-holed member. */
  DEADLINE_EXCEEDED,
  /** The call must be sent to the leader and this member is not (or no longer) the leader. */
  NOT_LEADER,
  /** The member ID is not in the member list. */
  MEMBER_NOT_FOUND,
  /** The member answering belongs to another cluster than the one the caller expects. */
  CLUSTER_ID_MISMATCH,
  /** The member is a learner, and etcd serves this call only on voting members. */
  NOT_SUPPORTED_ON_LEARNER,
  /**
   * etcd refused a membership change as "unhealthy cluster": its strict reconfiguration check wants
   * the member handling the request to have been connected to every voting member for the last 5
   * seconds. True for a few seconds after any member (re)starts, and for as long as a voter is
   * down, learners included. Try again later; replacing a dead voter starts with removing it.
   */
  UNHEALTHY_CLUSTER,
  /** An alarm (NOSPACE, CORRUPT) is raised: the cluster refuses writes until it is disarmed. */
  ALARM,
  /**
   * A snapshot stream that ended before etcd's trailing sha256, sent another size than it
   * announced, or whose data does not hash to that sha256: whatever was written is garbage.
   */
  BAD_SNAPSHOT,
  /**
   * A compaction to a revision the history was already compacted past (etcd's "required revision
   * has been compacted"): nothing left to do.
   */
  COMPACTED,
  /**
   * etcd answered and refused the request (for example "unhealthy cluster", "peer URLs already
   * exists", "too many learner members", "not enough started members"); the message says which.
   */
  REJECTED,
  /** The member does not know the method: an older etcd (3.4 has no AuthStatus). */
  UNIMPLEMENTED
}
