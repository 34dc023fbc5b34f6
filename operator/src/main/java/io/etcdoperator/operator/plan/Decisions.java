package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.EtcdVersion;
import io.etcdoperator.operator.model.InitialMember;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Decision.Keep;
import io.etcdoperator.operator.plan.Facts.Member;
import io.etcdoperator.operator.plan.Report.Line;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The decisions rules share: what each kind of situation keeps and reports, with the texts users
 * read. A rule picks its step and calls one of these; nothing here picks a step.
 */
final class Decisions {
  static final Duration INVALID_RESYNC = Duration.ofSeconds(30);

  private Decisions() {}

  static Line line(boolean status, String reason, String message) {
    return new Line(status, reason, message);
  }

  /**
   * The operator stands still for a reason a human must resolve: unavailable, not ready, not
   * progressing, degraded, every condition with the same reason and message; nothing is touched.
   */
  static Decision halt(String reason, String message) {
    return new Decision(
        new Step.None(),
        Keep.NOTHING,
        new Report(
            line(false, reason, message),
            line(false, reason, message),
            line(false, reason, message),
            line(true, reason, message)),
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
            availableOrUnknown(s, reason, message),
            line(false, reason, message),
            line(false, reason, message),
            line(true, reason, message)),
        INVALID_RESYNC);
  }

  /**
   * Quorum as the members that answer see it; Unknown when none answers while some pod is Ready
   * (the operator cannot see them, which says nothing about their quorum: with an unusable client
   * certificate, or a spec whose scheme the members do not serve).
   */
  static Line availableOrUnknown(Situation s, String reason, String message) {
    boolean anyAnswers = s.view().probes().values().stream().anyMatch(MemberProbe::reachable);
    boolean anyReady =
        s.view().pods().values().stream().anyMatch(io.etcdoperator.operator.observe.PodView::ready);
    return !s.facts().quorum() && !anyAnswers && anyReady
        ? Line.unknown(reason, message)
        : available(s, reason, message);
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
            available(s, reason, "the spec is invalid and nothing was created"),
            line(false, reason, message),
            line(false, reason, message),
            degraded(s, reason)),
        INVALID_RESYNC);
  }

  /** TLS turned on or off for a running cluster: refused, touch nothing (see TlsModeChanged). */
  static Decision tlsModeChanged(Situation s, String message) {
    String reason = Conditions.TLS_MODE_CHANGED;
    return new Decision(
        new Step.None(),
        Keep.NOTHING,
        new Report(
            availableOrUnknown(s, reason, message),
            line(false, reason, message),
            line(false, reason, message),
            degraded(s, reason)),
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
        f.quorum() || anyAnswers ? available(s, reason, message) : Line.unknown(reason, message);
    return new Decision(
        new Step.Wait("the operator to reach every member whose pod is Ready"),
        // The Services stay as desired: members are reached by their names in the headless
        // Service, and a Service deleted behind the operator's back would otherwise keep them out
        // of sight for good. Services and the budget destroy nothing.
        Keep.OBJECTS,
        new Report(
            available,
            f.quorum() || anyAnswers ? line(false, reason, message) : Line.unknown(reason, message),
            line(false, reason, message),
            line(true, reason, message)),
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
        line(
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
            line(false, Conditions.REBUILDING, message),
            line(false, Conditions.REBUILDING, message),
            line(true, Conditions.REBUILDING, message),
            line(true, Conditions.MAJORITY_DATA_LOST, message)),
        Planner.PENDING_RESYNC);
  }

  static Decision rebuilding(Step step, String message) {
    return rebuilding(step, Keep.statefulSet(0), message);
  }

  /**
   * With quorum, doing {@code activity} (a condition reason): not Ready, with the step said; a
   * stuck roll makes Degraded say so and Progressing stop.
   */
  /** A change that does not progress: the reason (RollStuck, UpgradeStuck) and what to say. */
  record Stuck(String reason, String message) {}

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
            available(s, Conditions.QUORUM_HELD, ""),
            line(false, activity, message),
            stuck.isPresent()
                ? line(false, stuck.get().reason(), stuck.get().message())
                : line(progressing, activity, message),
            stuck.isPresent()
                ? line(true, stuck.get().reason(), stuck.get().message())
                : degraded(s, Conditions.MEMBERS_HEALTHY));
    return new Decision(step, quorumKeep(s), report, Planner.PENDING_RESYNC);
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
            available(s, Conditions.QUORUM_HELD, ""),
            line(false, Conditions.NO_SPACE, message),
            line(acting, Conditions.NO_SPACE, acting ? step.describe() : message),
            line(true, Conditions.NO_SPACE, message));
    return new Decision(step, quorumKeep(s), report, Planner.PENDING_RESYNC);
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
            available(s, Conditions.QUORUM_HELD, ""),
            line(true, Conditions.MEMBERS_READY, message),
            line(false, Conditions.RECONCILED, "nothing to do"),
            degraded(s, Conditions.MEMBERS_HEALTHY));
    Duration requeue = untilNextFiring(s);
    if (clusterVersionToBeRaised(s) && requeue.compareTo(Planner.VERSION_RESYNC) > 0) {
      requeue = Planner.VERSION_RESYNC;
    }
    return new Decision(new Step.None(), quorumKeep(s), report, requeue);
  }

  /**
   * Whether etcd is about to raise the cluster version: every member that answers runs a later
   * minor version than the cluster version (just after an upgrade's last restart, or a bootstrap's
   * 3.0). Its leader does so within seconds, and nothing wakes the operator then (no pod changes,
   * no member's Status does): the status would show the old cluster version until the resync.
   */
  static boolean clusterVersionToBeRaised(Situation s) {
    Optional<EtcdVersion> cluster = s.view().clusterVersion().flatMap(EtcdVersion::parse);
    List<EtcdVersion> members = s.facts().answeringVersions();
    return cluster.isPresent()
        && !members.isEmpty()
        && members.stream().allMatch(m -> cluster.get().minorsTo(m) > 0);
  }

  /**
   * {@link Planner#READY_RESYNC}, or less when the spec's defragmentation schedule fires sooner:
   * nothing else wakes a Ready cluster at a time of day.
   */
  static Duration untilNextFiring(Situation s) {
    Instant now = s.facts().view().now();
    return s.desired()
        .maintenance()
        .schedule()
        .flatMap(c -> c.next(now))
        .map(firing -> Duration.between(now, firing).plus(FIRING_MARGIN))
        .filter(d -> d.compareTo(Planner.READY_RESYNC) < 0)
        .map(d -> d.isNegative() ? FIRING_MARGIN : d)
        .orElse(Planner.READY_RESYNC);
  }

  /** Looks a little after a firing, so that the schedule sees it as past. */
  static final Duration FIRING_MARGIN = Duration.ofMillis(100);

  /** With quorum, scaled to 0: the StatefulSet stops every member. */
  static Decision hibernating(Situation s) {
    String message = "scaling to 0: stopping members; their data is kept in their claims";
    Report report =
        new Report(
            available(s, Conditions.QUORUM_HELD, ""),
            line(false, Conditions.HIBERNATED, message),
            line(true, Conditions.HIBERNATED, message),
            degraded(s, Conditions.MEMBERS_HEALTHY));
    return new Decision(new Step.None(), quorumKeep(s), report, Planner.PENDING_RESYNC);
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
            line(false, Conditions.HIBERNATED, message),
            line(false, Conditions.HIBERNATED, message),
            line(!stopped, Conditions.HIBERNATED, message),
            line(false, Conditions.HIBERNATED, message));
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
    String message = quorumLostMessage(s);
    boolean acting = !(step instanceof Step.None);
    String progress =
        acting
            ? step.describe()
            : "waiting for members to come back; nothing is removed or deleted meanwhile";
    Report report =
        new Report(
            line(false, Conditions.QUORUM_LOST, message),
            line(false, Conditions.QUORUM_LOST, message),
            line(acting, Conditions.QUORUM_LOST, progress),
            line(true, Conditions.QUORUM_LOST, message));
    return new Decision(step, keepWithoutQuorum(s, replicas), report, Planner.PENDING_RESYNC);
  }

  /**
   * Without quorum: every known member's pod, and the ConfigMap written again as {@code existing}
   * when it is gone or says {@code new} (a member starting empty must join, never bootstrap).
   */
  static Keep keepWithoutQuorum(Situation s, int replicas) {
    Keep keep = Keep.statefulSet(replicas);
    boolean recorded = s.view().clusterState().map(ClusterState::existing).orElse(false);
    return recorded ? keep : keep.withClusterState(rebuiltClusterState(s));
  }

  /**
   * The ConfigMap as the world says it must be, when it is lost: {@code existing}, with the members
   * the cluster is known to have (by the member list when a member answered, else by the claims
   * marked with a member and the pods running etcd) under their stable peer URLs, and the cluster
   * ID the members answer with or the claims record.
   */
  static ClusterState rebuiltClusterState(Situation s) {
    Facts f = s.facts();
    List<InitialMember> members =
        f.members().isEmpty()
            ? f.knownOrdinals().stream()
                .map(i -> InitialMember.of(s.namespace(), s.name(), i, s.peerScheme()))
                .toList()
            : quorumMembers(s);
    long clusterId = f.clusterId() != 0 ? f.clusterId() : f.recordedClusterId();
    Map<String, String> annotations =
        clusterId == 0 ? Map.of() : Map.of(Names.CLUSTER_ID_ANNOTATION, Hex.id(clusterId));
    return new ClusterState(
        ClusterState.Kind.EXISTING, members, s.desired().clusterToken(), annotations);
  }

  /** A majority lost its data: keep every pod, say so; touch nothing else. */
  static Decision majorityDataLost(Situation s, String message, int replicas) {
    Decision halted = halt(Conditions.MAJORITY_DATA_LOST, message);
    return new Decision(
        halted.step(), keepWithoutQuorum(s, replicas), halted.report(), halted.requeueAfter());
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
            + unreachableSuffix(s)
            + ")";
    String message = step instanceof Step.None ? waiting : step.describe();
    Report report =
        s.desired().restoreFrom().isPresent()
            ? Restores.report(s, step, waiting)
            : new Report(
                line(false, Conditions.BOOTSTRAPPING, waiting),
                line(false, Conditions.BOOTSTRAPPING, waiting),
                line(true, Conditions.BOOTSTRAPPING, message),
                line(false, Conditions.BOOTSTRAPPING, waiting));
    ClusterState state =
        new ClusterState(ClusterState.Kind.NEW, members, s.desired().clusterToken());
    return new Decision(
        step,
        Keep.statefulSet(replicas).withClusterState(state),
        report,
        running > 0 ? Planner.FORMING_RESYNC : Planner.PENDING_RESYNC);
  }

  /**
   * What a cluster with quorum keeps: the ConfigMap says {@code existing} with the current member
   * list (and the cluster ID seen, and the record of rebuilds), the StatefulSet covers every
   * member's ordinal (0 when hibernating), and every healthy member's claim is marked with it.
   */
  static Keep quorumKeep(Situation s) {
    Facts f = s.facts();
    Map<String, String> annotations =
        new TreeMap<>(f.view().clusterState().map(SurvivorRebuild::kept).orElse(Map.of()));
    annotations.put(Names.CLUSTER_ID_ANNOTATION, Hex.id(f.clusterId()));
    Restores.record(f.view())
        .ifPresent(r -> annotations.putIfAbsent(Names.RESTORED_FROM_ANNOTATION, r));
    int replicas =
        s.hibernating() || f.knownOrdinals().isEmpty() ? 0 : f.knownOrdinals().last() + 1;
    return new Keep(
        true,
        Optional.of(
            new ClusterState(
                ClusterState.Kind.EXISTING,
                quorumMembers(s),
                s.desired().clusterToken(),
                annotations)),
        OptionalInt.of(replicas),
        claimMarks(s),
        f.clusterId());
  }

  /** The member list's members of our ordinals, by the peer URL etcd has for each. */
  private static List<InitialMember> quorumMembers(Situation s) {
    Facts f = s.facts();
    return f.members().stream()
        .filter(m -> m.ordinal() >= 0)
        .map(
            m ->
                new InitialMember(
                    m.name(),
                    m.etcd().peerUrls().isEmpty()
                        ? Names.peerUrl(s.namespace(), s.name(), m.ordinal(), s.peerScheme())
                        : m.etcd().peerUrls().get(0)))
        .toList();
  }

  /** Each healthy member's claim, marked with the member (and cluster) it holds, where not yet. */
  private static Map<String, Long> claimMarks(Situation s) {
    if (!s.desired().persistentStorage()) {
      return Map.of();
    }
    Facts f = s.facts();
    Map<String, Long> marks = new TreeMap<>();
    for (Member m : f.members()) {
      ClaimView claim = f.view().claims().get(m.ordinal());
      if (claim != null
          && !claim.terminating()
          && m.etcd().started()
          && f.healthy(m)
          && (claim.memberId() != m.id()
              || claim.clusterId() != f.clusterId()
              || claim.ownedByCluster() != s.desired().claims().withCluster())) {
        marks.put(claim.name(), m.id());
      }
    }
    return marks;
  }

  private static Line available(Situation s, String fallbackReason, String fallbackMessage) {
    Facts f = s.facts();
    if (f.quorum()) {
      String leader = f.leaderMember().map(Member::name).orElse("?");
      return line(
          true,
          Conditions.QUORUM_HELD,
          f.healthyVoters().size()
              + " of "
              + f.voters().size()
              + " voters healthy; leader "
              + leader);
    }
    if (f.existed()) {
      return line(false, Conditions.QUORUM_LOST, quorumLostMessage(s));
    }
    return line(false, fallbackReason, fallbackMessage);
  }

  static Line degraded(Situation s, String healthyReason) {
    Facts f = s.facts();
    List<String> unhealthy =
        f.members().stream()
            .filter(m -> !f.healthy(m))
            .map(m -> m.name() + ": " + f.whyUnhealthy(m))
            .toList();
    if (!unhealthy.isEmpty()) {
      return line(true, Conditions.MEMBERS_UNREACHABLE, String.join("; ", unhealthy));
    }
    List<String> strays = straysRunning(f);
    if (!strays.isEmpty()) {
      return line(
          true,
          Conditions.POD_NOT_A_MEMBER,
          String.join(", ", strays)
              + (strays.size() > 1 ? " run" : " runs")
              + " etcd but the cluster has no such member; it may hold the data of another"
              + " cluster, so the operator deletes nothing of it");
    }
    return line(false, healthyReason, "no member is unhealthy");
  }

  /** Running member pods whose ordinal is not in the member list (once a list is known). */
  private static List<String> straysRunning(Facts f) {
    if (f.members().isEmpty()) {
      return List.of();
    }
    Set<Integer> listed = new TreeSet<>();
    f.members().forEach(m -> listed.add(m.ordinal()));
    return f.view().pods().values().stream()
        .filter(p -> p.running() && !p.terminating() && !listed.contains(p.ordinal()))
        .map(PodView::name)
        .toList();
  }

  static String quorumLostMessage(Situation s) {
    Facts f = s.facts();
    int voters = f.voters().size();
    List<String> missing = new ArrayList<>();
    if (!f.members().isEmpty()) {
      f.voters().stream()
          .filter(m -> !f.healthy(m))
          .forEach(m -> missing.add(m.name() + " (" + f.whyUnhealthy(m) + ")"));
      return "quorum lost: "
          + f.healthyVoters().size()
          + " of "
          + voters
          + " voters healthy, "
          + Quorum.of(voters)
          + " needed; missing: "
          + String.join(", ", missing);
    }
    Set<Integer> known = f.knownOrdinals();
    for (int i : known) {
      Optional<MemberProbe> p = f.view().probe(i);
      String why =
          f.view().pod(i).isEmpty()
              ? "no pod"
              : p.map(x -> x.reachable() ? "sees no leader" : x.error()).orElse("not probed");
      missing.add(Names.member(s.name(), i) + " (" + why + ")");
    }
    return "quorum lost: no member of "
        + known.size()
        + " answers with a leader; missing: "
        + String.join(", ", missing);
  }

  private static String unreachableSuffix(Situation s) {
    List<String> down =
        s.view().probes().values().stream()
            .filter(p -> !p.reachable())
            .map(p -> s.pod(p.ordinal()) + ": " + p.error())
            .toList();
    return down.isEmpty() ? "" : "; not answering: " + String.join(", ", down);
  }
}
