package io.etcdoperator.operator.etcd;

/**
 * A member's answer to a progress request on its watch stream ({@link ProgressStreams}): the header
 * etcd puts on it, or that it did not answer.
 *
 * @param answered it answered within the deadline
 * @param clusterId the cluster it belongs to (0 when it did not answer)
 * @param memberId its own ID (0 when it did not answer)
 * @param raftTerm its raft term: a new election shows as a new term (0 when it did not answer)
 * @param revision its store's revision (0 when it did not answer)
 */
public record Progress(
    boolean answered, long clusterId, long memberId, long raftTerm, long revision) {
  public static final Progress NONE = new Progress(false, 0, 0, 0, 0);
}
