package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.InitialMember;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Decision.Keep;
import io.etcdoperator.operator.plan.Report.Line;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The decisions rules share: what each kind of situation keeps and reports, with the texts users
 * read. A rule picks its step and calls one of these; nothing here picks a step.
 */
final class Decisions {
  static final Duration INVALID_RESYNC = Duration.ofSeconds(30);

  private Decisions() {}

  /**
   * The operator stands still for a reason a human must resolve: unavailable, not ready, not
   * progressing, degraded, every condition with the same reason and message; nothing is touched.
   */
  static Decision halt(String reason, String message) {
    return new Decision(
        new Step.None(),
        Keep.NOTHING,
        new Report(
            new Line(false, reason, message),
            new Line(false, reason, message),
            new Line(false, reason, message),
            new Line(true, reason, message)),
        Planner.PENDING_RESYNC);
  }

  /**
   * The TLS Secrets cannot be used: touch nothing. Quorum is reported as the members that answer
   * see it; a cluster that never formed is not started.
   */
  static Decision tlsNotUsable(Situation s, String message) {
    String reason = Conditions.CERTIFICATE_INVALID;
    return new Decision(
        new Step.Wait("usable TLS Secrets"),
        Keep.NOTHING,
        new Report(
            Lines.availableOrUnknown(s, reason, message),
            new Line(false, reason, message),
            new Line(false, reason, message),
            new Line(true, reason, message)),
        INVALID_RESYNC);
  }

  static Decision invalidSpec(Situation s, List<String> problems) {
    return refused(s, Conditions.INVALID_SPEC, String.join("; ", problems));
  }

  /**
   * The spec asks for something the operator will not do ({@code reason}): say so on Ready and
   * Progressing, keep Available and Degraded as observed, touch nothing.
   */
  static Decision refused(Situation s, String reason, String message) {
    return new Decision(
        new Step.None(),
        Keep.NOTHING,
        new Report(
            Lines.available(s, reason, "the spec is invalid and nothing was created"),
            new Line(false, reason, message),
            new Line(false, reason, message),
            Lines.degraded(s, reason)),
        INVALID_RESYNC);
  }

  /** TLS turned on or off for a running cluster: refused, touch nothing (see TlsModeChanged). */
  static Decision tlsModeChanged(Situation s, String message) {
    String reason = Conditions.TLS_MODE_CHANGED;
    return new Decision(
        new Step.None(),
        Keep.NOTHING,
        new Report(
            Lines.availableOrUnknown(s, reason, message),
            new Line(false, reason, message),
            new Line(false, reason, message),
            Lines.degraded(s, reason)),
        INVALID_RESYNC);
  }

  /**
   * The operator cannot see some members whose pods are Ready: touch nothing; report quorum as the
   * members that answer see it (Unknown when none answers), and the blindness on every other
   * condition.
   */
  static Decision cannotReach(Situation s, String message) {
    Facts f = s.facts();
    boolean anyAnswers = s.view().probes().values().stream().anyMatch(MemberProbe::reachable);
    String reason = Conditions.CANNOT_REACH_MEMBERS;
    Line available =
        f.quorum() || anyAnswers
            ? Lines.available(s, reason, message)
            : Line.unknown(reason, message);
    return new Decision(
        new Step.Wait("the operator to reach every member whose pod is Ready"),
        // The Services stay as desired: members are reached by their names in the headless
        // Service, and a Service deleted behind the operator's back would otherwise keep them out
        // of sight for good. Services and the budget destroy nothing.
        Keep.OBJECTS,
        new Report(
            available,
            f.quorum() || anyAnswers
                ? new Line(false, reason, message)
                : Line.unknown(reason, message),
            new Line(false, reason, message),
            new Line(true, reason, message)),
        Planner.PENDING_RESYNC);
  }

  /**
   * The decision with its Degraded condition saying NoSpace while a member reports etcd's NOSPACE
   * alarm, whichever rule decided: a rule asked before the NoSpace rule (the operator cannot reach
   * a member that a defragmentation keeps busy, a scale, a roll of a raised quota) makes the alarm
   * no less true, and the Events follow Degraded: one NoSpace when it is raised, one SpaceRecovered
   * when it is gone, none in between.
   */
  static Decision degradedByNoSpace(Situation s, Decision d) {
    Line degraded = d.report().degraded();
    if (!s.facts().noSpace() || degraded.reason().equals(Conditions.NO_SPACE)) {
      return d;
    }
    Report r = d.report();
    Line noSpace =
        new Line(
            true,
            Conditions.NO_SPACE,
            "NOSPACE: etcd refuses writes, the database reached its quota; " + degraded.message());
    return new Decision(
        d.step(),
        d.keep(),
        new Report(r.available(), r.ready(), r.progressing(), noSpace),
        d.requeueAfter());
  }

  /** A rebuild from a survivor under way: every member pod stays stopped (unless {@code keep}). */
  static Decision rebuilding(Step step, Keep keep, String message) {
    return new Decision(
        step,
        keep,
        new Report(
            new Line(false, Conditions.REBUILDING, message),
            new Line(false, Conditions.REBUILDING, message),
            new Line(true, Conditions.REBUILDING, message),
            new Line(true, Conditions.MAJORITY_DATA_LOST, message)),
        Planner.PENDING_RESYNC);
  }

  static Decision rebuilding(Step step, String message) {
    return rebuilding(step, Keep.statefulSet(0), message);
  }

  /** A change that does not progress: the reason (RollStuck, UpgradeStuck) and what to say. */
  record Stuck(String reason, String message) {}

  /**
   * With quorum, doing {@code activity} (a condition reason): not Ready, with the step said; a
   * stuck roll makes Degraded say so and Progressing stop.
   */
  static Decision withQuorum(Situation s, String activity, Step step, Optional<Stuck> stuck) {
    Facts f = s.facts();
    String doing =
        Conditions.ALARM.equals(activity)
            ? "etcd raised alarms "
                + f.alarms()
                + " (NOSPACE: writes refused until space is freed and the alarm disarmed;"
                + " CORRUPT: members' data diverged)"
            : step instanceof Step.None ? "waiting for members" : step.describe();
    String message =
        f.readyMembers()
            + " of "
            + s.desired().replicas()
            + " members are healthy voters; "
            + doing;
    boolean progressing =
        !(step instanceof Step.None)
            || !(Conditions.MEMBERS_UNREACHABLE.equals(activity)
                || Conditions.ALARM.equals(activity));
    Report report =
        new Report(
            Lines.available(s, Conditions.QUORUM_HELD, ""),
            new Line(false, activity, message),
            stuck.isPresent()
                ? new Line(false, stuck.get().reason(), stuck.get().message())
                : new Line(progressing, activity, message),
            stuck.isPresent()
                ? new Line(true, stuck.get().reason(), stuck.get().message())
                : Lines.degraded(s, Conditions.MEMBERS_HEALTHY));
    return new Decision(step, Keeps.quorumKeep(s), report, Planner.PENDING_RESYNC);
  }

  static Decision withQuorum(Situation s, String activity, Step step) {
    return withQuorum(s, activity, step, Optional.empty());
  }

  /**
   * With quorum, the cluster refusing writes for lack of space (NOSPACE): not Ready, Degraded, with
   * the sizes and the quota said; Progressing while a recovery step is taken.
   */
  static Decision noSpace(Situation s, Step step, String message) {
    boolean acting = !(step instanceof Step.None);
    Report report =
        new Report(
            Lines.available(s, Conditions.QUORUM_HELD, ""),
            new Line(false, Conditions.NO_SPACE, message),
            new Line(acting, Conditions.NO_SPACE, acting ? step.describe() : message),
            new Line(true, Conditions.NO_SPACE, message));
    return new Decision(step, Keeps.quorumKeep(s), report, Planner.PENDING_RESYNC);
  }

  /**
   * With quorum, the members' data diverged (etcd raised CORRUPT and refuses every request): not
   * Ready, Degraded, with who disagrees; Progressing while the odd member is replaced or the alarm
   * disarmed.
   */
  static Decision dataDiverged(Situation s, Step step, String message) {
    boolean acting = !(step instanceof Step.None) && !(step instanceof Step.Wait);
    Report report =
        new Report(
            Lines.available(s, Conditions.QUORUM_HELD, ""),
            new Line(false, Conditions.DATA_DIVERGED, message),
            new Line(acting, Conditions.DATA_DIVERGED, acting ? step.describe() : message),
            new Line(true, Conditions.DATA_DIVERGED, message));
    return new Decision(step, Keeps.quorumKeep(s), report, Planner.PENDING_RESYNC);
  }

  /**
   * The same decision, with the StatefulSet left as it is (it is being deleted, or about to be).
   */
  static Decision leavingStatefulSet(Decision d) {
    Keep k = d.keep();
    return new Decision(
        d.step(),
        new Keep(k.objects(), k.clusterState(), OptionalInt.empty(), k.claimMarks(), k.clusterId()),
        d.report(),
        d.requeueAfter());
  }

  /** With quorum and nothing to do: Ready. */
  static Decision ready(Situation s) {
    String message =
        s.facts().members().stream().filter(m -> m.ordinal() >= 0).count()
            + " of "
            + s.desired().replicas()
            + " members are healthy voters";
    Report report =
        new Report(
            Lines.available(s, Conditions.QUORUM_HELD, ""),
            new Line(true, Conditions.MEMBERS_READY, message),
            new Line(false, Conditions.RECONCILED, "nothing to do"),
            Lines.degraded(s, Conditions.MEMBERS_HEALTHY));
    Duration requeue = Timing.untilNextFiring(s);
    if (Timing.clusterVersionToBeRaised(s) && requeue.compareTo(Planner.VERSION_RESYNC) > 0) {
      requeue = Planner.VERSION_RESYNC;
    }
    return new Decision(new Step.None(), Keeps.quorumKeep(s), report, requeue);
  }

  /** With quorum, scaled to 0: the StatefulSet stops every member. */
  static Decision hibernating(Situation s) {
    String message = "scaling to 0: stopping members; their data is kept in their claims";
    Report report =
        new Report(
            Lines.available(s, Conditions.QUORUM_HELD, ""),
            new Line(false, Conditions.HIBERNATED, message),
            new Line(true, Conditions.HIBERNATED, message),
            Lines.degraded(s, Conditions.MEMBERS_HEALTHY));
    return new Decision(new Step.None(), Keeps.quorumKeep(s), report, Planner.PENDING_RESYNC);
  }

  /** Without quorum, scaled to 0: stopping or stopped. */
  static Decision hibernated(Situation s, int replicas) {
    boolean stopped = s.view().pods().isEmpty();
    String message =
        stopped
            ? "scaled to 0: every member is stopped; their data is kept in their claims"
            : "scaling to 0: stopping members; their data is kept in their claims";
    Report report =
        new Report(
            new Line(false, Conditions.HIBERNATED, message),
            new Line(false, Conditions.HIBERNATED, message),
            new Line(!stopped, Conditions.HIBERNATED, message),
            new Line(false, Conditions.HIBERNATED, message));
    return new Decision(
        new Step.None(),
        Keep.statefulSet(replicas),
        report,
        stopped ? Planner.READY_RESYNC : Planner.PENDING_RESYNC);
  }

  /**
   * Quorum lost in a cluster that formed: keep every pod, wait, say who is missing. A ConfigMap
   * that is gone or says {@code new} is written again as {@code existing}, from what the world
   * keeps.
   */
  static Decision quorumLost(Situation s, Step step, int replicas) {
    String message = Lines.quorumLostMessage(s);
    boolean acting = !(step instanceof Step.None);
    String progress =
        acting
            ? step.describe()
            : "waiting for members to come back; nothing is removed or deleted meanwhile";
    Report report =
        new Report(
            new Line(false, Conditions.QUORUM_LOST, message),
            new Line(false, Conditions.QUORUM_LOST, message),
            new Line(acting, Conditions.QUORUM_LOST, progress),
            new Line(true, Conditions.QUORUM_LOST, message));
    return new Decision(step, Keeps.keepWithoutQuorum(s, replicas), report, Planner.PENDING_RESYNC);
  }

  /** A majority lost its data: keep every pod, say so; touch nothing else. */
  static Decision majorityDataLost(Situation s, String message, int replicas) {
    Decision halted = halt(Conditions.MAJORITY_DATA_LOST, message);
    return new Decision(
        halted.step(),
        Keeps.keepWithoutQuorum(s, replicas),
        halted.report(),
        halted.requeueAfter());
  }

  /** A cluster that never formed: the ConfigMap says new with every desired member. */
  static Decision bootstrap(Situation s, Step step, List<InitialMember> members) {
    long running = s.view().pods().values().stream().filter(PodView::running).count();
    int replicas = s.desired().replicas();
    String waiting =
        "waiting for "
            + replicas
            + " members to form the cluster ("
            + running
            + " of "
            + replicas
            + " pods running"
            + Lines.unreachableSuffix(s)
            + ")";
    String message = step instanceof Step.None ? waiting : step.describe();
    Report report =
        s.desired().restoreFrom().isPresent()
            ? Restores.report(s, step, waiting)
            : new Report(
                new Line(false, Conditions.BOOTSTRAPPING, waiting),
                new Line(false, Conditions.BOOTSTRAPPING, waiting),
                new Line(true, Conditions.BOOTSTRAPPING, message),
                new Line(false, Conditions.BOOTSTRAPPING, waiting));
    ClusterState state =
        new ClusterState(ClusterState.Kind.NEW, members, s.desired().clusterToken());
    return new Decision(
        step,
        Keep.statefulSet(replicas).withClusterState(state),
        report,
        running > 0 ? Planner.FORMING_RESYNC : Planner.PENDING_RESYNC);
  }
}
