package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.observe.MemberHash;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The members' hashes of their data (etcd's HashKV, asked when data may have diverged) read against
 * the member list: which hash a quorum of the voters share, and who differs from it. A hash counts
 * for a member only if the member of the list answered it (a pod may run another member). With
 * {@code writesStopped} (CORRUPT raised: no write is applied), a member whose own revision is past
 * the revision hashed applied writes the others did not, and differs too.
 */
final class DataHashes {
  private final Facts f;
  private final Map<Integer, MemberHash> hashes;
  private final boolean writesStopped;

  DataHashes(Facts f, boolean writesStopped) {
    this.f = f;
    this.hashes = f.view().hashes();
    this.writesStopped = writesStopped;
  }

  /** The member's own hash, if it gave one. */
  Optional<MemberHash> of(Member m) {
    MemberHash h = hashes.get(m.ordinal());
    return h != null && h.memberId() == m.id() ? Optional.of(h) : Optional.empty();
  }

  /** The hash a quorum of the voters share (at one revision and compaction), if any. */
  Optional<MemberHash> agreed() {
    Map<List<Long>, List<MemberHash>> byValue = new HashMap<>();
    for (Member m : f.voters()) {
      of(m)
          .filter(h -> !ahead(h))
          .ifPresent(
              h ->
                  byValue
                      .computeIfAbsent(
                          List.of(h.revision(), h.compactRevision(), h.hash()),
                          k -> new ArrayList<>())
                      .add(h));
    }
    int quorumOfVoters = Quorum.of(f.voters().size());
    return byValue.values().stream()
        .filter(same -> same.size() >= quorumOfVoters)
        .map(same -> same.get(0))
        .findFirst();
  }

  /**
   * The members that differ from {@code agreed} (by the member list, in ordinal order). With writes
   * stopped, also a member that could not hash at that revision because it is at another, though
   * its raft log is the leader's: it applied the same entries into other data (a lagging member's
   * log is behind, and it is only waited for).
   */
  List<Member> disagreeing(MemberHash agreed) {
    return f.members().stream()
        .filter(
            m ->
                (comparable(agreed, m) && !agrees(agreed, m))
                    || (writesStopped && of(m).isEmpty() && elsewhereWithTheSameLog(agreed, m)))
        .toList();
  }

  private boolean elsewhereWithTheSameLog(MemberHash agreed, Member m) {
    long leaderIndex = f.leaderIndex();
    return leaderIndex > 0
        && f.probeOf(m)
            .map(
                p ->
                    p.reachable()
                        && p.revision() > 0
                        && p.revision() != agreed.revision()
                        && p.raftIndex() >= leaderIndex)
            .orElse(false);
  }

  /**
   * The voters that follow the leader a quorum follows and hold {@code agreed}: those a removal may
   * count on (under CORRUPT every member reports the alarm, so none is healthy).
   */
  List<Member> agreeingVoters(MemberHash agreed) {
    return f.voters().stream().filter(f::followsLeader).filter(m -> agrees(agreed, m)).toList();
  }

  /** Whether member {@code m} hashed its data at the revision and compaction of {@code agreed}. */
  boolean comparable(MemberHash agreed, Member m) {
    return of(m)
        .map(
            h ->
                h.revision() == agreed.revision()
                    && h.compactRevision() == agreed.compactRevision())
        .orElse(false);
  }

  private boolean agrees(MemberHash agreed, Member m) {
    return comparable(agreed, m)
        && of(m).map(h -> h.hash() == agreed.hash() && !ahead(h)).orElse(false);
  }

  private boolean ahead(MemberHash h) {
    return writesStopped && h.memberRevision() > h.revision();
  }
}
