package io.etcdoperator.operator.observe;

/**
 * A member's hash of its key-value store at a revision (etcd's {@code HashKV}): members holding the
 * same data have the same hash at the same revision and compaction.
 *
 * @param ordinal the member's ordinal
 * @param revision the revision the hash covers
 * @param compactRevision the member's compacted revision then
 * @param hash the hash
 */
public record MemberHash(int ordinal, long revision, long compactRevision, long hash) {
  /** As etcdctl prints a hash. */
  public String hex() {
    return Long.toHexString(hash);
  }
}
