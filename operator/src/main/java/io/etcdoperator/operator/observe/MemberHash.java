package io.etcdoperator.operator.observe;

/**
 * A member's hash of its key-value store at a revision (etcd's {@code HashKV}): members holding the
 * same data have the same hash at the same revision and compaction.
 *
 * @param ordinal the ordinal of the pod asked
 * @param memberId the member that answered (a pod may run another member than the list's)
 * @param revision the revision the hash covers
 * @param compactRevision the member's compacted revision then
 * @param hash the hash
 * @param memberRevision the member's own revision when it answered: above {@code revision} while no
 *     write is applied (CORRUPT raised), it applied writes the others did not
 */
public record MemberHash(
    int ordinal,
    long memberId,
    long revision,
    long compactRevision,
    long hash,
    long memberRevision) {
  /** As etcdctl prints a hash. */
  public String hex() {
    return Long.toHexString(hash);
  }
}
