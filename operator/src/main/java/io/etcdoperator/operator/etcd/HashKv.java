package io.etcdoperator.operator.etcd;

/**
 * A member's hash of its key-value store up to a revision (etcd's {@code HashKV}): members that
 * hold the same data have the same hash at the same revision and compaction.
 *
 * @param endpoint the member asked
 * @param memberId the member that answered
 * @param revision the revision the hash covers
 * @param compactRevision the member's compacted revision then (hashes compare only at the same one)
 * @param hash the hash
 * @param memberRevision the member's own revision when it answered
 */
public record HashKv(
    String endpoint,
    long memberId,
    long revision,
    long compactRevision,
    long hash,
    long memberRevision) {}
