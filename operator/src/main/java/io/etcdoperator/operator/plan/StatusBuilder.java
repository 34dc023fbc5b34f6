package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.api.v1alpha1.RebuildStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import io.etcdoperator.operator.plan.Target.Desired;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Builds the status from the facts of one observation: conditions, members, cluster ID, leader. The
 * status is an output only, recomputed in full every reconcile; {@code lastTransitionTime} is left
 * to the reconciler, which alone knows the previous status and the clock.
 */
final class StatusBuilder {
  private static final Duration INVALID_RESYNC = Duration.ofSeconds(30);

  private final Target target;
  private final Facts facts;

  /** A status and how soon to look again. */
  record Report(EtcdClusterStatus status, Duration requeue) {}

  StatusBuilder(Target target, Facts facts) {
    this.target = target;
    this.facts = facts;
  }

  Report invalidSpec(List<String> problems) {
    String message = String.join("; ", problems);
    return report(
        available(Conditions.INVALID_SPEC, "the spec is invalid and nothing was created"),
        condition(Conditions.READY, false, Conditions.INVALID_SPEC, message),
        condition(Conditions.PROGRESSING, false, Conditions.INVALID_SPEC, message),
        degraded(Conditions.INVALID_SPEC),
        INVALID_RESYNC);
  }

  Report splitBrain() {
    String message =
        "members answer with different cluster IDs ("
            + facts.view.probes().values().stream()
                .filter(p -> p.reachable() && p.clusterId() != 0)
                .map(p -> Names.pod(target.name(), p.ordinal()) + ": " + Hex.id(p.clusterId()))
                .collect(Collectors.joining(", "))
            + "); the operator changes nothing until a human resolves it";
    return halted(Conditions.SPLIT_BRAIN, message);
  }

  Report rebuilding(String message) {
    return report(
        condition(Conditions.AVAILABLE, false, Conditions.REBUILDING, message),
        condition(Conditions.READY, false, Conditions.REBUILDING, message),
        condition(Conditions.PROGRESSING, true, Conditions.REBUILDING, message),
        condition(Conditions.DEGRADED, true, Conditions.MAJORITY_DATA_LOST, message),
        Planner.PENDING_RESYNC);
  }

  Report majorityDataLost(String message) {
    return halted(Conditions.MAJORITY_DATA_LOST, message);
  }

  Report anotherCluster(String recorded) {
    String message =
        "the members that answer belong to cluster "
            + Hex.id(facts.clusterId)
            + ", but this cluster formed as "
            + recorded
            + " (recorded in its cluster-state ConfigMap): another cluster was started next to its"
            + " data; the operator changes nothing until a human resolves it";
    return halted(Conditions.SPLIT_BRAIN, message);
  }

  Report bootstrapping(Desired desired, Step step) {
    long running = facts.view.pods().values().stream().filter(PodView::running).count();
    String waiting =
        "waiting for "
            + desired.replicas()
            + " members to form the cluster ("
            + running
            + " of "
            + desired.replicas()
            + " pods running"
            + unreachableSuffix()
            + ")";
    String message = step instanceof Step.None ? waiting : step.describe();
    return report(
        condition(Conditions.AVAILABLE, false, Conditions.BOOTSTRAPPING, waiting),
        condition(Conditions.READY, false, Conditions.BOOTSTRAPPING, waiting),
        condition(Conditions.PROGRESSING, true, Conditions.BOOTSTRAPPING, message),
        condition(Conditions.DEGRADED, false, Conditions.BOOTSTRAPPING, waiting),
        running > 0 ? Planner.FORMING_RESYNC : Planner.PENDING_RESYNC);
  }

  Report quorumLost(Desired desired, Step step) {
    if (desired.replicas() == 0) {
      boolean stopped = facts.view.pods().isEmpty();
      String message =
          stopped
              ? "scaled to 0: every member is stopped; their data is kept in their claims"
              : "scaling to 0: stopping members; their data is kept in their claims";
      return report(
          condition(Conditions.AVAILABLE, false, Conditions.HIBERNATED, message),
          condition(Conditions.READY, false, Conditions.HIBERNATED, message),
          condition(Conditions.PROGRESSING, !stopped, Conditions.HIBERNATED, message),
          condition(Conditions.DEGRADED, false, Conditions.HIBERNATED, message),
          stopped ? Planner.READY_RESYNC : Planner.PENDING_RESYNC);
    }
    String message = quorumLostMessage();
    boolean acting = !(step instanceof Step.None);
    String progress =
        acting
            ? step.describe()
            : "waiting for members to come back; nothing is removed or deleted meanwhile";
    return report(
        condition(Conditions.AVAILABLE, false, Conditions.QUORUM_LOST, message),
        condition(Conditions.READY, false, Conditions.QUORUM_LOST, message),
        condition(Conditions.PROGRESSING, acting, Conditions.QUORUM_LOST, progress),
        condition(Conditions.DEGRADED, true, Conditions.QUORUM_LOST, message),
        Planner.PENDING_RESYNC);
  }

  Report withQuorum(Desired desired, Step step, boolean hibernate) {
    Condition available = available(Conditions.QUORUM_HELD, "");
    if (hibernate) {
      String message = "scaling to 0: stopping members; their data is kept in their claims";
      return report(
          available,
          condition(Conditions.READY, false, Conditions.HIBERNATED, message),
          condition(Conditions.PROGRESSING, true, Conditions.HIBERNATED, message),
          degraded(Conditions.MEMBERS_HEALTHY),
          Planner.PENDING_RESYNC);
    }
    List<Member> ours = facts.members.stream().filter(m -> m.ordinal() >= 0).toList();
    Set<Integer> stale = facts.stalePods(desired.podTemplateHash());
    String activity;
    if (ours.size() < desired.replicas() || !facts.learners().isEmpty()) {
      activity = Conditions.SCALING_UP;
    } else if (ours.size() > desired.replicas()) {
      activity = Conditions.SCALING_DOWN;
    } else if (!stale.isEmpty()) {
      activity = Conditions.ROLLING_UPDATE;
    } else if (!facts.alarms().isEmpty()) {
      activity = Conditions.ALARM;
    } else if (!ours.stream().allMatch(facts::healthy)) {
      activity = Conditions.MEMBERS_UNREACHABLE;
    } else {
      activity = null;
    }
    Optional<String> stuck = rollStuck(stale);
    Condition degraded =
        stuck.isPresent()
            ? condition(Conditions.DEGRADED, true, Conditions.ROLL_STUCK, stuck.get())
            : degraded(Conditions.MEMBERS_HEALTHY);
    if (activity == null) {
      String message = ours.size() + " of " + desired.replicas() + " members are healthy voters";
      return report(
          available,
          condition(Conditions.READY, true, Conditions.MEMBERS_READY, message),
          condition(Conditions.PROGRESSING, false, Conditions.RECONCILED, "nothing to do"),
          degraded,
          Planner.READY_RESYNC);
    }
    String message =
        readyMembers()
            + " of "
            + desired.replicas()
            + " members are healthy voters; "
            + (Conditions.ALARM.equals(activity)
                ? "etcd raised alarms "
                    + facts.alarms()
                    + " (NOSPACE: writes refused until space is freed and the alarm disarmed;"
                    + " CORRUPT: members' data diverged)"
                : step instanceof Step.None ? "waiting for members" : step.describe());
    boolean progressing =
        !(step instanceof Step.None)
            || !(Conditions.MEMBERS_UNREACHABLE.equals(activity)
                || Conditions.ALARM.equals(activity));
    return report(
        available,
        condition(Conditions.READY, false, activity, message),
        condition(
            Conditions.PROGRESSING,
            progressing && stuck.isEmpty(),
            stuck.isPresent() ? Conditions.ROLL_STUCK : activity,
            stuck.orElse(message)),
        degraded,
        Planner.PENDING_RESYNC);
  }

  /** A restarted member that has not become healthy within the roll deadline. */
  private Optional<String> rollStuck(Set<Integer> stale) {
    if (stale.isEmpty()) {
      return Optional.empty();
    }
    return facts.members.stream()
        .filter(m -> !stale.contains(m.ordinal()) && !facts.healthy(m))
        .filter(
            m ->
                facts
                    .view
                    .pod(m.ordinal())
                    .map(
                        p ->
                            p.createdAt() != null
                                && p.createdAt()
                                    .plus(Planner.ROLL_DEADLINE)
                                    .isBefore(facts.view.now()))
                    .orElse(false))
        .findFirst()
        .map(
            m ->
                "rolling update stopped: "
                    + m.name()
                    + " was restarted with the new template and is not healthy after "
                    + Planner.ROLL_DEADLINE.toMinutes()
                    + " minutes ("
                    + facts.whyUnhealthy(m)
                    + "); the other members keep running the old template");
  }

  private String quorumLostMessage() {
    int voters = facts.voters().size();
    List<String> missing = new ArrayList<>();
    if (!facts.members.isEmpty()) {
      facts.voters().stream()
          .filter(m -> !facts.healthy(m))
          .forEach(m -> missing.add(m.name() + " (" + facts.whyUnhealthy(m) + ")"));
      return "quorum lost: "
          + facts.healthyVoters().size()
          + " of "
          + voters
          + " voters healthy, "
          + Quorum.of(voters)
          + " needed; missing: "
          + String.join(", ", missing);
    }
    Set<Integer> known = facts.knownOrdinals();
    for (int i : known) {
      Optional<MemberProbe> p = facts.view.probe(i);
      String why =
          facts.view.pod(i).isEmpty()
              ? "no pod"
              : p.map(x -> x.reachable() ? "sees no leader" : x.error()).orElse("not probed");
      missing.add(Names.member(target.name(), i) + " (" + why + ")");
    }
    return "quorum lost: no member of "
        + known.size()
        + " answers with a leader; missing: "
        + String.join(", ", missing);
  }

  private String unreachableSuffix() {
    List<String> down =
        facts.view.probes().values().stream()
            .filter(p -> !p.reachable())
            .map(p -> Names.pod(target.name(), p.ordinal()) + ": " + p.error())
            .toList();
    return down.isEmpty() ? "" : "; not answering: " + String.join(", ", down);
  }

  private Condition available(String fallbackReason, String fallbackMessage) {
    if (facts.quorum) {
      String leader = facts.leaderMember().map(Member::name).orElse("?");
      return condition(
          Conditions.AVAILABLE,
          true,
          Conditions.QUORUM_HELD,
          facts.healthyVoters().size()
              + " of "
              + facts.voters().size()
              + " voters healthy; leader "
              + leader);
    }
    if (facts.view.clusterState().map(s -> s.existing()).orElse(false)) {
      return condition(Conditions.AVAILABLE, false, Conditions.QUORUM_LOST, quorumLostMessage());
    }
    return condition(Conditions.AVAILABLE, false, fallbackReason, fallbackMessage);
  }

  private Condition degraded(String healthyReason) {
    List<String> unhealthy =
        facts.members.stream()
            .filter(m -> !facts.healthy(m))
            .map(m -> m.name() + ": " + facts.whyUnhealthy(m))
            .toList();
    if (!unhealthy.isEmpty()) {
      return condition(
          Conditions.DEGRADED, true, Conditions.MEMBERS_UNREACHABLE, String.join("; ", unhealthy));
    }
    List<String> strays = straysRunning();
    if (!strays.isEmpty()) {
      return condition(
          Conditions.DEGRADED,
          true,
          Conditions.POD_NOT_A_MEMBER,
          String.join(", ", strays)
              + (strays.size() > 1 ? " run" : " runs")
              + " etcd but the cluster has no such member; it may hold the data of another"
              + " cluster, so the operator deletes nothing of it");
    }
    return condition(Conditions.DEGRADED, false, healthyReason, "no member is unhealthy");
  }

  /** Running member pods whose ordinal is not in the member list (once a list is known). */
  private List<String> straysRunning() {
    if (facts.members.isEmpty()) {
      return List.of();
    }
    Set<Integer> listed = new TreeSet<>();
    facts.members.forEach(m -> listed.add(m.ordinal()));
    return facts.view.pods().values().stream()
        .filter(p -> p.running() && !p.terminating() && !listed.contains(p.ordinal()))
        .map(PodView::name)
        .toList();
  }

  private Condition condition(String type, boolean status, String reason, String message) {
    return Conditions.of(type, status, reason, message, target.generation());
  }

  private int readyMembers() {
    return (int) facts.healthyVoters().stream().filter(m -> m.ordinal() >= 0).count();
  }

  /**
   * The operator stands still for a reason a human must resolve: unavailable, not ready, not
   * progressing, degraded, every condition with the same reason and message.
   */
  private Report halted(String reason, String message) {
    return report(
        condition(Conditions.AVAILABLE, false, reason, message),
        condition(Conditions.READY, false, reason, message),
        condition(Conditions.PROGRESSING, false, reason, message),
        condition(Conditions.DEGRADED, true, reason, message),
        Planner.PENDING_RESYNC);
  }

  private Report report(
      Condition available,
      Condition ready,
      Condition progressing,
      Condition degraded,
      Duration requeue) {
    EtcdClusterStatus status = new EtcdClusterStatus();
    status.setObservedGeneration(target.generation());
    status.setConditions(new ArrayList<>(List.of(available, ready, progressing, degraded)));
    status.setClusterID(facts.clusterId == 0 ? null : Hex.id(facts.clusterId));
    status.setLeader(facts.leaderMember().map(Member::name).orElse(null));
    status.setReadyMembers(readyMembers());
    status.setReplicas(facts.members.isEmpty() ? facts.view.pods().size() : facts.members.size());
    status.setMembers(members());
    status.setSelector(Names.selectorString(target.name()));
    status.setLastRebuild(lastRebuild());
    return new Report(status, requeue);
  }

  /**
   * The last rebuild the cluster-state ConfigMap records ({@code <survivor>@<revision>@<time>}).
   */
  private RebuildStatus lastRebuild() {
    var state = facts.view.clusterState();
    var from = state.flatMap(s -> s.annotation(Names.REBUILT_FROM_ANNOTATION));
    if (from.isEmpty()) {
      return null;
    }
    String[] parts = from.get().split("@", 3);
    RebuildStatus r = new RebuildStatus();
    r.setSurvivor(parts[0]);
    if (parts.length > 1) {
      try {
        r.setRevision(Long.parseLong(parts[1]));
      } catch (NumberFormatException e) {
        // recorded by hand: leave it out
      }
    }
    if (parts.length > 2) {
      r.setTime(parts[2]);
    }
    r.setOptIn(state.flatMap(s -> s.annotation(Names.REBUILT_ANNOTATION)).orElse(null));
    return r;
  }

  /**
   * Every member of the list; every pod that is not one; every probed ordinal when no list is
   * known.
   */
  private List<MemberStatus> members() {
    List<MemberStatus> result = new ArrayList<>();
    Set<Integer> listed = new TreeSet<>();
    for (Member m : facts.members) {
      listed.add(m.ordinal());
      MemberStatus s = new MemberStatus();
      s.setName(m.name().isEmpty() ? null : m.name());
      s.setId(Hex.id(m.id()));
      s.setRole(m.learner() ? MemberStatus.LEARNER : MemberStatus.VOTER);
      s.setLeader(m.id() == facts.leaderId);
      boolean healthy = facts.healthy(m);
      s.setHealthy(healthy);
      s.setVersion(
          facts.probeOf(m).filter(MemberProbe::reachable).map(MemberProbe::version).orElse(null));
      s.setPeerURL(m.etcd().peerUrls().isEmpty() ? null : m.etcd().peerUrls().get(0));
      s.setClientURL(m.etcd().clientUrls().isEmpty() ? null : m.etcd().clientUrls().get(0));
      s.setMessage(healthy ? null : facts.whyUnhealthy(m));
      result.add(s);
    }
    Set<Integer> ordinals = new TreeSet<>(facts.view.pods().keySet());
    if (facts.members.isEmpty()) {
      ordinals.addAll(facts.view.probes().keySet());
    }
    for (int i : ordinals) {
      if (listed.contains(i)) {
        continue;
      }
      MemberStatus s = new MemberStatus();
      s.setName(Names.member(target.name(), i));
      s.setHealthy(false);
      s.setPeerURL(Names.peerUrl(target.namespace(), target.name(), i));
      s.setClientURL(Names.clientUrl(target.namespace(), target.name(), i));
      Optional<MemberProbe> p = facts.view.probe(i);
      String message;
      if (facts.members.isEmpty()) {
        message =
            p.map(x -> x.reachable() ? "answers, no quorum yet" : x.error())
                .orElse(facts.view.pod(i).isPresent() ? "not probed" : "no pod");
        s.setVersion(p.filter(MemberProbe::reachable).map(MemberProbe::version).orElse(null));
      } else {
        message = "not a member of the cluster";
      }
      s.setMessage(message);
      result.add(s);
    }
    return result;
  }
}
