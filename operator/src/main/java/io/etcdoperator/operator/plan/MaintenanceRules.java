package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.Maintenance;
import io.etcdoperator.operator.model.MaintenanceRecord;
import io.etcdoperator.operator.model.MaintenanceRecord.Compaction;
import io.etcdoperator.operator.model.MaintenanceRecord.Defragmentation;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Upkeep of a cluster's data with quorum held: recovering from a NOSPACE alarm, and defragmentation
 * by the spec's policy. Both defragment one member at a time through the same order, and both
 * decide only from the world: what members report (sizes, revision, alarms) and what the operator
 * recorded on the cluster-state ConfigMap ({@link MaintenanceRecord}: each member's last
 * defragmentation, the last compaction), so that an operator restarted in the middle goes on where
 * the last one stopped. A defragmentation the operator was killed in is done again.
 *
 * <h2>The order of a round</h2>
 *
 * etcd defragments a member in place and that member serves nothing (no read, no write, its
 * readiness probe fails) until the copy of its database is done; the others go on. So: one member
 * at a time, and only while every member is healthy and caught up (and, outside NOSPACE, its pod
 * Ready: the client Service must keep endpoints); followers first, from the highest ordinal; the
 * leader last, after leadership moved to a caught-up follower (a leader that stalls stalls every
 * write). A one-member cluster is defragmented in place, and says that it serves nothing meanwhile.
 * A member that fails (etcd refuses, or the call outlasts its deadline: etcd goes on with it) stops
 * the round: no other member is defragmented for that firing of the schedule, or, for the
 * threshold, for {@link #COOL_DOWN}. The failure is recorded, reported and counted.
 *
 * <h2>The policy ({@code spec.defragmentation})</h2>
 *
 * <ul>
 *   <li>Schedule: a member is due when the schedule fired within the last {@link
 *       #SCHEDULE_DEADLINE} and the member was not defragmented since (a firing missed by longer,
 *       the operator being down or the cluster unhealthy all that time, is skipped, as a CronJob's
 *       starting deadline does).
 *   <li>Threshold: a member is due when the part of its database file not in use is at least the
 *       percent of the file and at least the minimum, and it was not defragmented in the last
 *       {@link #COOL_DOWN} (clients that churn faster than that would keep it defragmenting).
 * </ul>
 *
 * <h2>NOSPACE</h2>
 *
 * etcd raises NOSPACE when a member's database file reaches {@code quota-backend-bytes}; every
 * member then refuses writes (reads, deletes and compactions still work) until the alarm is
 * disarmed, and disarming while still over the quota only raises it again at the next write. With R
 * the newest revision members report:
 *
 * <ol>
 *   <li>Compact the history up to R - {@link #SAFETY_WINDOW} (the last {@value #SAFETY_WINDOW}
 *       revisions are kept, for watchers and a continuous backup that lag a little), unless the
 *       recorded compaction is at or past it already.
 *   <li>Defragment every member not defragmented since that compaction, in the order above (pods
 *       are not Ready under NOSPACE: etcd's {@code /health} says so, so readiness is not waited
 *       for; members' readiness probe, which leaves NOSPACE out, keeps them Ready on this
 *       operator's template).
 *   <li>Disarm once every member's database is below {@link #DISARM_BELOW} of the quota (a margin,
 *       so that the next writes do not raise it at once) and every pod runs the desired template
 *       (the quota a stale pod runs is not known).
 *   <li>Still over: the kept revisions were the weight. Compact the whole history (up to R), then
 *       defragment again.
 *   <li>Still over with the whole history compacted: the data in use fills the quota. Said, with
 *       the way out (delete keys; or raise {@code quota-backend-bytes}, which rolls the members:
 *       rolls go on under NOSPACE, whose members count as healthy), and the other rules apply.
 * </ol>
 */
final class MaintenanceRules {
  /** Revisions of history a NOSPACE recovery keeps at first. */
  static final long SAFETY_WINDOW = 1000;

  /** Disarm once every member's database is below this share of the quota. */
  static final double DISARM_BELOW = 0.95;

  /** A schedule's firing missed by longer than this is skipped. */
  static final Duration SCHEDULE_DEADLINE = Duration.ofHours(1);

  /** A member is not defragmented by the threshold again sooner than this. */
  static final Duration COOL_DOWN = Duration.ofMinutes(10);

  private MaintenanceRules() {}

  /**
   * NOSPACE raised, quorum held: compact, defragment member by member, disarm, without a hand step.
   * Before the roll rules: writes are refused until it is done. When it can do nothing more (the
   * data fills the quota) and a roll is pending (a raised quota), it lets the roll go on.
   */
  static final class NoSpace implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Facts f = s.facts();
      if (!f.noSpace()) {
        return Optional.empty();
      }
      long quota = s.desired().maintenance().quotaBytes();
      long revision = f.revision();
      ClusterState state = f.view().clusterState().orElse(null);
      Optional<Compaction> compacted =
          state == null ? Optional.empty() : MaintenanceRecord.compaction(state);
      long compactedTo = compacted.map(Compaction::revision).orElse(0L);
      String sizes = sizes(s, quota);
      long keeping = revision - SAFETY_WINDOW;
      if (keeping > compactedTo) {
        return decide(
            s,
            new Step.Compact(
                keeping,
                "NOSPACE: history before the last " + SAFETY_WINDOW + " revisions goes first"),
            sizes);
      }
      Instant since = compacted.map(Compaction::at).orElse(Instant.MIN);
      Map<String, Defragmentation> records = records(f);
      List<Member> notYet =
          MembershipRules.ours(s).stream()
              .filter(
                  m -> records.get(m.name()) == null || records.get(m.name()).at().isBefore(since))
              .toList();
      if (!notYet.isEmpty()) {
        Step step =
            nextDefragmentation(s, notYet, false, "NOSPACE: giving back what the compaction freed");
        return decide(s, step, sizes);
      }
      boolean stale = !f.stalePods(s.desired().podTemplateHash()).isEmpty();
      boolean below =
          MembershipRules.ours(s).stream()
              .map(f::probeOf)
              .allMatch(
                  p ->
                      p.filter(MemberProbe::reachable).isPresent()
                          && p.get().dbSize() < DISARM_BELOW * quota);
      if (below && !stale) {
        return decide(
            s,
            new Step.Disarm(
                Facts.NO_SPACE,
                "every member's database is below "
                    + Math.round(DISARM_BELOW * 100)
                    + "% of the quota again"),
            sizes);
      }
      if (revision > compactedTo) {
        return decide(
            s,
            new Step.Compact(
                revision,
                "NOSPACE: still over the quota after keeping "
                    + SAFETY_WINDOW
                    + " revisions; compacting the whole history"),
            sizes);
      }
      if (stale) {
        // A raised quota rolls the members first: the roll rules go on under NOSPACE.
        return Optional.empty();
      }
      return Optional.of(
          Decisions.noSpace(
              s,
              new Step.None(),
              sizes
                  + "; the history is compacted and every member defragmented, and the data in use"
                  + " still fills the quota: delete keys (etcdctl del works under NOSPACE), or"
                  + " raise spec.options.quota-backend-bytes (a rolling restart); the operator"
                  + " disarms the alarm once the database is below the quota"));
    }

    private static Optional<Decision> decide(Situation s, Step step, String sizes) {
      return Optional.of(Decisions.noSpace(s, step, sizes + "; recovering: " + step.describe()));
    }

    /** "etcd refuses writes: ... test-0 8.1Mi (in use 1.2Mi), ... of the quota 8Mi". */
    private static String sizes(Situation s, long quota) {
      Facts f = s.facts();
      String each =
          MembershipRules.ours(s).stream()
              .map(
                  m ->
                      m.name()
                          + " "
                          + f.probeOf(m)
                              .filter(MemberProbe::reachable)
                              .map(
                                  p ->
                                      Maintenance.human(p.dbSize())
                                          + (p.dbSizeInUse() > 0
                                              ? " (in use "
                                                  + Maintenance.human(p.dbSizeInUse())
                                                  + ")"
                                              : ""))
                              .orElse("unknown"))
              .collect(Collectors.joining(", "));
      return "NOSPACE: etcd refuses writes, the database reached its quota: "
          + each
          + " of the quota "
          + (quota == Long.MAX_VALUE ? "(none)" : Maintenance.human(quota))
          + " (spec.options.quota-backend-bytes)";
    }
  }

  /**
   * The spec's defragmentation policy: after the roll rules (a roll restarts members anyway, and
   * defragmenting a member about to restart is wasted), before InSync.
   */
  static final class Defragment implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Maintenance policy = s.desired().maintenance();
      if (!policy.defragments()) {
        return Optional.empty();
      }
      Facts f = s.facts();
      Instant now = f.view().now();
      Map<String, Defragmentation> records = records(f);
      Optional<Instant> firing =
          policy.schedule().flatMap(c -> c.lastBetween(now.minus(SCHEDULE_DEADLINE), now));
      boolean roundStopped =
          firing.isPresent()
              && records.values().stream()
                  .anyMatch(r -> r.failed() && !r.at().isBefore(firing.get()));
      boolean coolingDown =
          records.values().stream()
              .anyMatch(r -> r.failed() && r.at().plus(COOL_DOWN).isAfter(now));
      List<Member> due =
          MembershipRules.ours(s).stream()
              .filter(m -> !m.learner())
              .filter(
                  m ->
                      (!roundStopped && scheduled(firing, records.get(m.name())))
                          || (!coolingDown && fragmented(s, m, records.get(m.name()))))
              .toList();
      if (due.isEmpty()) {
        return Optional.empty();
      }
      String reason =
          firing.isPresent() && due.stream().anyMatch(m -> scheduled(firing, records.get(m.name())))
              ? "spec.defragmentation.schedule fired at " + firing.get()
              : "fragmented past spec.defragmentation.threshold";
      Step step = nextDefragmentation(s, due, true, reason);
      return Optional.of(Decisions.withQuorum(s, Conditions.DEFRAGMENTING, step));
    }

    private static boolean scheduled(Optional<Instant> firing, Defragmentation last) {
      return firing.isPresent() && (last == null || last.at().isBefore(firing.get()));
    }

    private static boolean fragmented(Situation s, Member m, Defragmentation last) {
      Maintenance policy = s.desired().maintenance();
      if (policy.thresholdPercent().isEmpty()) {
        return false;
      }
      Facts f = s.facts();
      Instant now = f.view().now();
      if (last != null && last.at().plus(COOL_DOWN).isAfter(now)) {
        return false;
      }
      return f.probeOf(m)
          .filter(MemberProbe::reachable)
          .map(p -> policy.pastThreshold(p.dbSize(), p.dbSizeInUse()))
          .orElse(false);
    }
  }

  /**
   * The next step of a round over {@code due}: wait until every member is healthy and caught up
   * (and its pod Ready, when {@code ready}); then the due follower of the highest ordinal; then the
   * leader, once leadership moved to a caught-up follower; a sole member in place.
   */
  static Step nextDefragmentation(Situation s, List<Member> due, boolean ready, String reason) {
    Facts f = s.facts();
    Optional<Member> behind = f.members().stream().filter(m -> !f.caughtUp(m)).findFirst();
    if (behind.isPresent()) {
      return new Step.Wait(behind.get().name() + " to be healthy and caught up");
    }
    if (ready) {
      Optional<PodView> unready = f.unreadyMemberPod();
      if (unready.isPresent()) {
        return new Step.Wait("pod " + unready.get().name() + " to be Ready");
      }
    }
    Optional<Member> follower =
        due.stream()
            .filter(m -> m.id() != f.leaderId())
            .max(Comparator.comparingInt(Member::ordinal));
    if (follower.isPresent()) {
      Member m = follower.get();
      return new Step.Defragment(m.ordinal(), m.name(), m.id(), reason);
    }
    Member leader = due.get(0);
    if (f.voters().size() == 1) {
      return new Step.Defragment(
          leader.ordinal(),
          leader.name(),
          leader.id(),
          reason + "; the only member: the cluster serves nothing until it is done");
    }
    return MembershipRules.moveLeaderOff(s, leader)
        .orElse(new Step.Wait("a caught-up voter to take leadership from " + leader.name()));
  }

  private static Map<String, Defragmentation> records(Facts f) {
    return f.view().clusterState().map(MaintenanceRecord::defragmentations).orElse(Map.of());
  }
}
