package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.api.v1alpha1.RebuildStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.plan.Facts.Member;
import io.etcdoperator.operator.plan.Report.Line;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Renders a {@link Decision} and the facts of one observation as the resource's status: the four
 * conditions as the decision reports them, and members, cluster ID, leader and the last rebuild as
 * observed. It decides nothing. {@code lastTransitionTime} is left to the reconciler, which alone
 * knows the previous status and the clock.
 */
final class StatusRenderer {
  private StatusRenderer() {}

  static EtcdClusterStatus render(Target target, Facts facts, Report report) {
    EtcdClusterStatus status = new EtcdClusterStatus();
    status.setObservedGeneration(target.generation());
    status.setConditions(
        new ArrayList<>(
            List.of(
                condition(Conditions.AVAILABLE, report.available(), target),
                condition(Conditions.READY, report.ready(), target),
                condition(Conditions.PROGRESSING, report.progressing(), target),
                condition(Conditions.DEGRADED, report.degraded(), target))));
    status.setClusterID(facts.clusterId == 0 ? null : Hex.id(facts.clusterId));
    status.setClusterVersion(facts.view.clusterVersion().orElse(null));
    status.setLeader(facts.leaderMember().map(Member::name).orElse(null));
    status.setReadyMembers(Decisions.readyMembers(facts));
    status.setReplicas(facts.members.isEmpty() ? facts.view.pods().size() : facts.members.size());
    status.setMembers(members(target, facts));
    status.setSelector(Names.selectorString(target.name()));
    status.setLastRebuild(lastRebuild(facts));
    status.setRestore(Restores.status(facts.view));
    return status;
  }

  private static Condition condition(String type, Line line, Target target) {
    return Conditions.of(
        type, line.statusText(), line.reason(), line.message(), target.generation());
  }

  /**
   * The last rebuild the cluster-state ConfigMap records ({@code <survivor>@<revision>@<time>}).
   */
  private static RebuildStatus lastRebuild(Facts facts) {
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
  private static List<MemberStatus> members(Target target, Facts facts) {
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
      boolean unseen = m.ordinal() >= 0 && facts.unseen(m.ordinal());
      s.setHealthy(unseen ? null : healthy);
      s.setVersion(
          facts.probeOf(m).filter(MemberProbe::reachable).map(MemberProbe::version).orElse(null));
      s.setPeerURL(m.etcd().peerUrls().isEmpty() ? null : m.etcd().peerUrls().get(0));
      s.setClientURL(m.etcd().clientUrls().isEmpty() ? null : m.etcd().clientUrls().get(0));
      s.setMessage(
          unseen ? unseenMessage(facts, m.ordinal()) : healthy ? null : facts.whyUnhealthy(m));
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
      if (facts.unseen(i)) {
        s.setHealthy(null);
        message = unseenMessage(facts, i);
      }
      s.setMessage(message);
      result.add(s);
    }
    return result;
  }

  /** A member the operator cannot see: its health is unknown, not false. */
  private static String unseenMessage(Facts facts, int ordinal) {
    return "health unknown: the operator cannot reach it ("
        + facts.view.probe(ordinal).map(MemberProbe::error).orElse("")
        + "); its pod is Ready";
  }
}
