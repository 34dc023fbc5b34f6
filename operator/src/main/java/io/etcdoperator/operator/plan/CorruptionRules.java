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
 * --experimental-initial-corrupt-check}: a member whose data differs from a peer's refuses to
 * start; {@link MembershipRules.ReplaceLostMember} replaces it only once the running voters agree
 * among themselves, for the one that differs may be a running one) and every {@code
 * --experimental-corrupt-check-time} (the leader compares its hash of the store with its peers' and
 * raises the cluster-wide {@code CORRUPT} alarm on a difference). While CORRUPT is raised etcd
 * refuses every write on every member (reads are still served, by every member); membership
 * changes, leadership transfers, hashes and disarming still work.
 *
 * <h2>What the operator does under CORRUPT</h2>
 *
 * The observer asks every voter that answers for its hash of the store at the revision most of them
 * are at ({@code observe.MemberHashes}; no write is applied while the alarm is raised). The hash a
 * quorum of the voters share is the cluster's data; a member whose hash at the same revision and
 * compaction differs, or that is past that revision, holds data the cluster never wrote.
 *
 * <ol>
 *   <li>A learner of this cluster's pods is removed first: etcd refuses HashKV from a learner, so
 *       its data cannot be compared, and it holds no vote; it comes back as a new learner.
 *   <li>No hash shared by a quorum of the voters (members did not answer, or too many differ):
 *       which data is right cannot be told; wait, and say every member's hash.
 *   <li>A member whose hash differs: it is removed, if the voters that agree keep quorum without it
 *       (the leader first hands leadership to one that agrees); it comes back as a new learner on a
 *       cleared claim, through ScaleUp, as a member that lost its disk does. A member that differs
 *       but runs in none of this cluster's pods is not touched: wait, and say so.
 *   <li>A voter that answers but gave no hash at that revision (behind it, or too slow): wait. A
 *       voter that does not answer: this rule steps aside (the rules after it may replace a member
 *       lost with its node), and the alarm stays: never disarmed before every voter was compared.
 *   <li>Every voter agrees: disarm CORRUPT. Should the data still differ, etcd's next check raises
 *       it again and this starts over.
 * </ol>
 *
 * <p>It comes first among the rules with quorum after Hibernate: nothing else can be written
 * usefully while writes are refused, and a learner would otherwise wait for a promotion that a
 * member under the alarm cannot be ready for.
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
      Optional<Member> learner =
          MembershipRules.ours(s).stream().filter(Member::learner).findFirst();
      if (learner.isPresent()) {
        Member l = learner.get();
        return Optional.of(
            Decisions.dataDiverged(
                s,
                new Step.RemoveMember(
                    l.ordinal(),
                    l.name(),
                    l.id(),
                    "etcd raised CORRUPT and a learner cannot hash its data to be compared;"
                        + " it comes back as a new learner"),
                "etcd raised CORRUPT; learner "
                    + l.name()
                    + " is removed first ("
                    + hashes(s)
                    + ")"));
      }
      DataHashes data = new DataHashes(f, true);
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
      if (!odd.isEmpty()) {
        String message =
            "the data of "
                + names(odd)
                + " differs from the other members' at revision "
                + h.revision()
                + " ("
                + hashes(s)
                + "; the quorum's is "
                + h.hex()
                + ")";
        return Optional.of(Decisions.dataDiverged(s, replace(s, data, odd.get(0), h), message));
      }
      List<Member> unhashed = f.voters().stream().filter(m -> !data.comparable(h, m)).toList();
      List<Member> answering =
          unhashed.stream()
              .filter(m -> f.probeOf(m).map(MemberProbe::reachable).orElse(false))
              .toList();
      if (!answering.isEmpty()) {
        String message =
            "etcd raised CORRUPT; "
                + names(answering)
                + " answers but gave no hash of its data at revision "
                + h.revision()
                + " ("
                + hashes(s)
                + "): not disarmed until every voter was compared";
        return Optional.of(
            Decisions.dataDiverged(
                s, new Step.Wait("a hash of the data of " + names(answering)), message));
      }
      if (!unhashed.isEmpty()) {
        return Optional.empty();
      }
      String message =
          "etcd raised CORRUPT; every voter agrees now (hash "
              + h.hex()
              + " at revision "
              + h.revision()
              + ")";
      return Optional.of(
          Decisions.dataDiverged(
              s,
              new Step.Disarm(
                  Facts.CORRUPT,
                  "every voter holds the same data (hash "
                      + h.hex()
                      + " at revision "
                      + h.revision()
                      + ")"),
              message));
    }

    private static Step replace(Situation s, DataHashes data, Member m, MemberHash agreed) {
      Facts f = s.facts();
      if (m.ordinal() < 0) {
        return new Step.Wait(
            m.name() + ", whose data differs, to be removed by hand: it runs in none of our pods");
      }
      List<Member> agreeing = data.agreeingVoters(agreed);
      if (!Quorum.canRemove(f.voters().size(), agreeing.size(), m.learner(), false)) {
        return new Step.Wait(
            "removing "
                + m.name()
                + ", whose data differs, would leave fewer voters that agree than a quorum");
      }
      if (f.leaderMember().map(l -> l.id() == m.id()).orElse(false)) {
        // Under CORRUPT no member is healthy (the alarm is on every member's Status), so the usual
        // "caught up" cannot be asked; a voter that hashed the agreed data at its revision is.
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

    private static String names(List<Member> members) {
      return members.stream().map(Member::name).collect(Collectors.joining(", "));
    }

    /** Each member's hash, as {@code test-0=1a2b3c}, or that it gave none. */
    static String hashes(Situation s) {
      Facts f = s.facts();
      DataHashes data = new DataHashes(f, true);
      return f.members().stream()
          .map(m -> m.name() + "=" + data.of(m).map(MemberHash::hex).orElse("no hash"))
          .collect(Collectors.joining(", "));
    }
  }
}
