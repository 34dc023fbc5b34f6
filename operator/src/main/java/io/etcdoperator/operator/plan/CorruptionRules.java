package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.observe.MemberHash;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Members whose data diverged, with quorum held.
 *
 * <p>Members run etcd's own corruption checks: at start ({@code
 * --experimental-initial-corrupt-check}: a member whose data differs from its peers' refuses to
 * start, and {@link MembershipRules.ReplaceLostMember} replaces it as a member that lost its data)
 * and every {@code --experimental-corrupt-check-time} (the leader compares its hash of the store
 * with its peers' and raises the cluster-wide {@code CORRUPT} alarm on a difference). While CORRUPT
 * is raised etcd refuses every key-value request on every member; membership changes, leadership
 * transfers, hashes and disarming still work.
 *
 * <h2>What the operator does under CORRUPT</h2>
 *
 * The observer then asks every member that answers for its hash of the store at one revision
 * (etcd's {@code HashKV}; no write is applied while the alarm is raised, so the members that caught
 * up are all there). The hash a quorum of the voters share is the cluster's data; a member whose
 * hash at the same revision and compaction differs holds data the cluster never wrote.
 *
 * <ol>
 *   <li>No hash shared by a quorum of the voters (members did not answer, or too many differ):
 *       which data is right cannot be told; wait, and say every member's hash.
 *   <li>A member whose hash differs: it is removed, if the voters that agree keep quorum without it
 *       (the leader first hands leadership to one that agrees); it comes back as a new learner on a
 *       cleared claim, through ScaleUp, as a member that lost its disk does. Never a member the
 *       operator cannot see: one without a hash is left alone.
 *   <li>A member that answers gave no hash at the quorum's revision: wait; never disarm before
 *       every member that answers was compared.
 *   <li>No member of the list differs any more: disarm CORRUPT. Should the data still differ,
 *       etcd's next check raises it again and this starts over; a member that was down meanwhile is
 *       checked by etcd at its start.
 * </ol>
 *
 * <p>It sits after ReplaceLostMember (a member that refused to start on diverged data is replaced
 * there) and before every rule that scales, rolls or maintains: nothing else can be served or
 * changed usefully while every request is refused.
 */
final class CorruptionRules {
  private CorruptionRules() {}

  /** CORRUPT raised, quorum held: replace the member whose data differs, then disarm. */
  static final class ReplaceCorruptMember implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Facts f = s.facts();
      if (!f.alarms().contains(Facts.CORRUPT)) {
        return Optional.empty();
      }
      DataHashes data = new DataHashes(f);
      Optional<MemberHash> agreed = data.agreed();
      if (agreed.isEmpty()) {
        String message =
            "etcd raised CORRUPT and no hash of the data is shared by a quorum of the voters ("
                + hashes(s)
                + "): which member's data is right cannot be told";
        return Optional.of(
            Decisions.dataDiverged(s, new Step.Wait("a quorum of voters that agree"), message));
      }
      MemberHash h = agreed.get();
      List<Member> odd = data.disagreeing(h);
      List<Member> unhashed =
          f.members().stream()
              .filter(m -> f.probeOf(m).map(MemberProbe::reachable).orElse(false))
              .filter(m -> !data.comparable(h, m))
              .toList();
      if (odd.isEmpty() && !unhashed.isEmpty()) {
        String names = unhashed.stream().map(Member::name).collect(Collectors.joining(", "));
        String message =
            "etcd raised CORRUPT; "
                + names
                + " answers but gave no hash of its data at revision "
                + h.revision()
                + " ("
                + hashes(s)
                + "): not disarmed until every member that answers was compared";
        return Optional.of(
            Decisions.dataDiverged(s, new Step.Wait("a hash of the data of " + names), message));
      }
      if (odd.isEmpty()) {
        String message =
            "etcd raised CORRUPT; every member that answers agrees now (hash "
                + h.hex()
                + " at revision "
                + h.revision()
                + ")";
        return Optional.of(
            Decisions.dataDiverged(
                s,
                new Step.Disarm(
                    Facts.CORRUPT,
                    "every member that answers holds the same data (hash "
                        + h.hex()
                        + " at revision "
                        + h.revision()
                        + ")"),
                message));
      }
      Member m = odd.get(0);
      String message =
          "the data of "
              + odd.stream().map(Member::name).collect(Collectors.joining(", "))
              + " differs from the other members' at revision "
              + h.revision()
              + " ("
              + hashes(s)
              + "; the quorum's is "
              + h.hex()
              + ")";
      return Optional.of(Decisions.dataDiverged(s, replace(s, m, h), message));
    }

    private static Step replace(Situation s, Member m, MemberHash agreed) {
      Facts f = s.facts();
      List<Member> agreeing = new DataHashes(f).agreeingVoters(agreed);
      if (!Quorum.canRemove(f.voters().size(), agreeing.size(), m.learner(), false)) {
        return new Step.Wait(
            "removing "
                + m.name()
                + ", whose data differs, would leave fewer voters that agree than a quorum");
      }
      if (f.leaderMember().map(l -> l.id() == m.id()).orElse(false)) {
        // Under CORRUPT no member is healthy (the alarm refuses every read), so the usual "caught
        // up" cannot be asked; a voter that hashed the agreed data at the same revision is.
        Member to = agreeing.get(0);
        return new Step.MoveLeader(m.name(), m.id(), m.ordinal(), to.name(), to.id(), to.ordinal());
      }
      return new Step.RemoveMember(
          m.ordinal(),
          m.name(),
          m.id(),
          "its data differs from the other members' (etcd raised CORRUPT);"
              + " it comes back as a new member on empty data");
    }

    /** Each member's hash, as {@code test-0=1a2b3c}, or that it gave none. */
    private static String hashes(Situation s) {
      Facts f = s.facts();
      return f.members().stream()
          .map(
              m ->
                  m.name()
                      + "="
                      + Optional.ofNullable(f.view().hashes().get(m.ordinal()))
                          .map(MemberHash::hex)
                          .orElse("no hash"))
          .collect(Collectors.joining(", "));
    }
  }
}
