package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.DefragmentationStatus;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.api.v1alpha1.RebuildStatus;
import io.etcdoperator.api.v1alpha1.RestoreStatus;
import io.etcdoperator.operator.model.Durations;
import io.etcdoperator.operator.model.MaintenanceRecord;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.Placement;
import io.etcdoperator.operator.plan.Conditions;
import io.etcdoperator.operator.plan.Decision;
import io.etcdoperator.operator.plan.Facts;
import io.etcdoperator.operator.plan.Facts.Member;
import io.etcdoperator.operator.plan.Hex;
import io.etcdoperator.operator.plan.Plan;
import io.etcdoperator.operator.plan.Report;
import io.etcdoperator.operator.plan.Report.Line;
import io.etcdoperator.operator.plan.Restores;
import io.etcdoperator.operator.tls.TlsReport;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Renders a {@link Decision} and the facts of one observation as the resource's status: the four
 * conditions as the decision reports them, and members, cluster ID, leader and the last rebuild as
 * observed. It decides nothing. {@code lastTransitionTime} is left to the reconciler, which alone
 * knows the previous status and the clock.
 */
public final class StatusRenderer {
  private StatusRenderer() {}

  /** The status {@code plan} renders as. */
  public static EtcdClusterStatus render(Plan plan) {
    return render(plan.target(), plan.facts(), plan.report());
  }

  static EtcdClusterStatus render(Target target, Facts facts, Report report) {
    EtcdClusterStatus status = new EtcdClusterStatus();
    status.setObservedGeneration(target.generation());
    status.setConditions(
        new ArrayList<>(
            List.of(
                condition(Conditions.AVAILABLE, report.available(), target),
                condition(Conditions.READY, report.ready(), target),
                condition(Conditions.PROGRESSING, report.progressing(), target),
                condition(Conditions.DEGRADED, report.degraded(), target),
                condition(Conditions.PAUSED, paused(target, report), target))));
    certificates(facts.view().tls())
        .ifPresent(
            line ->
                status.getConditions().add(condition(Conditions.CERTIFICATES_READY, line, target)));
    if (!facts.view().tls().certificates().isEmpty()) {
      status.setCertificates(new ArrayList<>(facts.view().tls().certificates()));
    }
    status.setClusterID(facts.clusterId() == 0 ? null : Hex.id(facts.clusterId()));
    status.setClusterVersion(facts.view().clusterVersion().orElse(null));
    status.setLeader(facts.leaderMember().map(Member::name).orElse(null));
    status.setReadyMembers(facts.readyMembers());
    status.setReplicas(
        facts.members().isEmpty() ? facts.view().pods().size() : facts.members().size());
    status.setMembers(members(target, facts));
    status.setSelector(Names.selectorString(target.name()));
    status.setLastRebuild(lastRebuild(facts));
    status.setRestore(restore(facts.view()));
    return status;
  }

  /** Paused, as the annotation says; while paused, with what the operator would do. */
  private static Line paused(Target target, Report report) {
    return target.paused()
        ? new Line(true, Conditions.PAUSED_BY_ANNOTATION, report.progressing().message())
        : new Line(
            false,
            Conditions.NOT_PAUSED,
            "the operator acts on the spec; the annotation "
                + Names.PAUSED_ANNOTATION
                + ": \"true\" pauses it");
  }

  /** A member's last defragmentation, as the cluster-state ConfigMap records it. */
  private static DefragmentationStatus lastDefragmentation(Facts facts, String member) {
    var record =
        facts
            .view()
            .clusterState()
            .map(MaintenanceRecord::defragmentations)
            .map(r -> r.get(member))
            .orElse(null);
    if (record == null) {
      return null;
    }
    DefragmentationStatus d = new DefragmentationStatus();
    d.setTime(record.at().toString());
    d.setDuration(String.format(Locale.ROOT, "%.3fs", record.took().toMillis() / 1000.0));
    d.setSizeBefore(record.before());
    d.setSizeAfter(record.failed() ? null : record.after());
    d.setError(record.error().orElse(null));
    return d;
  }

  /**
   * The certificates' own condition, present only with spec.security.tls: what is invalid, else
   * what expires soon or misses a name, else valid with the first expiry.
   */
  static Optional<Line> certificates(TlsReport tls) {
    if (tls.invalid().isEmpty() && tls.warnings().isEmpty() && tls.certificates().isEmpty()) {
      return Optional.empty();
    }
    if (!tls.invalid().isEmpty()) {
      return Optional.of(new Line(false, Conditions.CERTIFICATE_INVALID, joined(tls.invalid())));
    }
    if (!tls.warnings().isEmpty()) {
      boolean expiring = tls.warnings().stream().anyMatch(w -> w.message().contains("expire"));
      return Optional.of(
          new Line(
              false,
              expiring ? Conditions.CERTIFICATE_EXPIRING : Conditions.CERTIFICATE_WARNING,
              joined(tls.warnings())));
    }
    var first =
        tls.certificates().stream().min(Comparator.comparing(c -> c.getNotAfter())).orElseThrow();
    return Optional.of(
        new Line(
            true,
            Conditions.CERTIFICATES_VALID,
            tls.certificates().size()
                + " certificates valid; the first to expire: "
                + first.getUse()
                + " ("
                + first.getSecret()
                + ") at "
                + first.getNotAfter()));
  }

  private static String joined(List<TlsReport.Problem> problems) {
    return String.join("; ", problems.stream().map(Object::toString).toList());
  }

  private static Condition condition(String type, Line line, Target target) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(line.statusText())
        .withReason(line.reason())
        .withMessage(line.message())
        .withObservedGeneration(target.generation())
        .build();
  }

  /**
   * The last rebuild the cluster-state ConfigMap records ({@code <survivor>@<revision>@<time>}).
   */
  private static RebuildStatus lastRebuild(Facts facts) {
    var state = facts.view().clusterState();
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
    for (Member m : facts.members()) {
      listed.add(m.ordinal());
      MemberStatus s = new MemberStatus();
      s.setName(m.name().isEmpty() ? null : m.name());
      s.setId(Hex.id(m.id()));
      s.setRole(m.learner() ? MemberStatus.LEARNER : MemberStatus.VOTER);
      s.setLeader(m.id() == facts.leaderId());
      boolean healthy = facts.healthy(m);
      boolean unseen = m.ordinal() >= 0 && facts.unseen(m.ordinal());
      s.setHealthy(unseen ? null : healthy);
      s.setVersion(
          facts.probeOf(m).filter(MemberProbe::reachable).map(MemberProbe::version).orElse(null));
      s.setPeerURL(m.etcd().peerUrls().isEmpty() ? null : m.etcd().peerUrls().get(0));
      s.setClientURL(m.etcd().clientUrls().isEmpty() ? null : m.etcd().clientUrls().get(0));
      s.setMessage(
          unseen ? unseenMessage(facts, m.ordinal()) : healthy ? null : facts.whyUnhealthy(m));
      s.setLastDefragmentation(m.name().isEmpty() ? null : lastDefragmentation(facts, m.name()));
      if (m.ordinal() >= 0) {
        placed(s, facts, m.ordinal(), target);
      }
      result.add(s);
    }
    Set<Integer> ordinals = new TreeSet<>(facts.view().pods().keySet());
    if (facts.members().isEmpty()) {
      ordinals.addAll(facts.view().probes().keySet());
    }
    for (int i : ordinals) {
      if (listed.contains(i)) {
        continue;
      }
      MemberStatus s = new MemberStatus();
      s.setName(Names.member(target.name(), i));
      s.setHealthy(false);
      String peer = target.desired().map(d -> d.security().peerScheme()).orElse("http");
      s.setPeerURL(Names.peerUrl(target.namespace(), target.name(), i, peer));
      s.setClientURL(
          facts
              .view()
              .probe(i)
              .map(MemberProbe::endpoint)
              .orElse(Names.clientUrl(target.namespace(), target.name(), i)));
      Optional<MemberProbe> p = facts.view().probe(i);
      String message;
      if (facts.members().isEmpty()) {
        // Without a pod, what a probe of its address failed with (a failed name lookup, or the
        // deadline when the lookup is slow) varies from one reconcile to the next and says less:
        // "no pod", as for a member.
        boolean pod = facts.view().pod(i).isPresent();
        message =
            p.filter(x -> x.reachable() || pod)
                .map(x -> x.reachable() ? "answers, no quorum yet" : x.error())
                .orElse(pod ? "not probed" : "no pod");
        s.setVersion(p.filter(MemberProbe::reachable).map(MemberProbe::version).orElse(null));
      } else {
        message = "not a member of the cluster";
      }
      if (facts.unseen(i)) {
        s.setHealthy(null);
        message = unseenMessage(facts, i);
      }
      s.setMessage(message);
      placed(s, facts, i, target);
      result.add(s);
    }
    return result;
  }

  /**
   * The member's node, and since when that node is unreachable or gone; said in its message too,
   * with what the operator will do about it (spec.replaceLostMemberAfter).
   */
  private static void placed(MemberStatus s, Facts facts, int ordinal, Target target) {
    Placement p = facts.view().placement(ordinal);
    s.setNode(p.node().orElse(null));
    Optional<String> lostNode =
        p.nodeLost() ? p.node() : p.dataGone() || p.dataAway() ? p.volumeNode() : Optional.empty();
    if (lostNode.isEmpty() || p.unreachableSince().isEmpty()) {
      return;
    }
    Instant since = p.unreachableSince().get();
    s.setNodeUnreachableSince(since.toString());
    Placement.NodeState lostState = p.nodeLost() ? p.nodeState() : p.volumeNodeState();
    String state =
        lostState == Placement.NodeState.GONE
            ? "is gone"
            : lostState == Placement.NodeState.CORDONED
                ? "is cordoned (unschedulable) and holds its volume, so its pod cannot be scheduled"
                : "is unreachable";
    String away = Durations.format(Duration.between(since, facts.view().now()).withNanos(0));
    String plan =
        target
            .replaceLostMemberAfter()
            .map(
                w ->
                    p.dataGone() || p.dataAway()
                        ? "; replaced after spec.replaceLostMemberAfter ("
                            + Durations.format(w)
                            + ") if its data has not come back"
                        : p.nodeState() == Placement.NodeState.UNREACHABLE
                            ? "; its pod cannot leave the node, so its volume cannot follow it:"
                                + " replaced after spec.replaceLostMemberAfter ("
                                + Durations.format(w)
                                + ") if the node has not come back"
                            : "; its volume can follow its pod, so it is not replaced")
            .orElse("; spec.replaceLostMemberAfter is not set: it is never replaced automatically");
    String said = "node " + lostNode.get() + " " + state + " (for " + away + ")" + plan;
    s.setMessage(s.getMessage() == null ? said : s.getMessage() + "; " + said);
  }

  /** A member the operator cannot see: its health is unknown, not false. */
  private static String unseenMessage(Facts facts, int ordinal) {
    return "health unknown: the operator cannot reach it ("
        + facts.view().probe(ordinal).map(MemberProbe::error).orElse("")
        + "); its pod is Ready";
  }

  /**
   * status.restore from the ConfigMap's record, or from a member's restore seen now (the record is
   * written by this very reconcile).
   */
  private static RestoreStatus restore(ClusterView view) {
    Optional<String> recorded =
        view.clusterState()
            .flatMap(c -> c.annotation(Names.RESTORED_FROM_ANNOTATION))
            .or(() -> Restores.record(view));
    if (recorded.isEmpty()) {
      return null;
    }
    String[] p = recorded.get().split("@", 4);
    RestoreStatus r = new RestoreStatus();
    r.setSource(p[0]);
    if (p.length > 1) {
      try {
        r.setRevision(Long.parseLong(p[1]));
      } catch (NumberFormatException e) {
        // written by hand: leave it out
      }
    }
    if (p.length > 2 && !p[2].isEmpty()) {
      r.setChecksum("sha256:" + p[2]);
    }
    if (p.length > 3 && !p[3].isEmpty()) {
      r.setTime(p[3]);
    }
    return r;
  }
}
