package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.observe.MemberHash;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The members' hashes of their data (etcd's HashKV, asked while CORRUPT is raised) read against the
 * member list: which hash a quorum of the voters share, and who differs from it.
 */
final class DataHashes {
  private final Facts f;
  private final Map<Integer, MemberHash> hashes;

  DataHashes(Facts f) {
    this.f = f;
    this.hashes = f.view().hashes();
  }

  /** The hash a quorum of the voters share (at one revision and compaction), if any. */
  Optional<MemberHash> agreed() {
    Map<List<Long>, List<MemberHash>> byValue = new HashMap<>();
    for (Member m : f.voters()) {
      MemberHash h = hashes.get(m.ordinal());
      if (h != null) {
        byValue
            .computeIfAbsent(
                List.of(h.revision(), h.compactRevision(), h.hash()), k -> new ArrayList<>())
            .add(h);
      }
    }
    int quorumOfVoters = Quorum.of(f.voters().size());
    return byValue.values().stream()
        .filter(same -> same.size() >= quorumOfVoters)
        .map(same -> same.get(0))
        .findFirst();
  }

  /** The members whose hash differs from {@code agreed} (by the member list, in ordinal order). */
  List<Member> disagreeing(MemberHash agreed) {
    return f.members().stream()
        .filter(m -> comparable(agreed, m) && hashes.get(m.ordinal()).hash() != agreed.hash())
        .toList();
  }

  /**
   * The voters that follow the leader a quorum follows and whose hash is {@code agreed}: those a
   * removal under CORRUPT may count on (every member reports the alarm, so none is healthy).
   */
  List<Member> agreeingVoters(MemberHash agreed) {
    return f.voters().stream()
        .filter(f::followsLeader)
        .filter(m -> comparable(agreed, m) && hashes.get(m.ordinal()).hash() == agreed.hash())
        .toList();
  }

  /** Whether member {@code m} hashed its data at the revision and compaction of {@code agreed}. */
  boolean comparable(MemberHash agreed, Member m) {
    MemberHash h = hashes.get(m.ordinal());
    return h != null
        && h.revision() == agreed.revision()
        && h.compactRevision() == agreed.compactRevision();
  }
}
