package io.etcdoperator.operator.act;

import io.etcdoperator.operator.etcd.DefragResult;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.Maintenance;
import io.etcdoperator.operator.model.MaintenanceRecord;
import io.etcdoperator.operator.model.MaintenanceRecord.Defragmentation;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.plan.Step;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The maintenance steps: defragmenting a member, compacting the history, disarming an alarm. Each
 * defragmentation and compaction is recorded on the cluster-state ConfigMap (the next reconcile
 * decides on it: a member defragmented is not defragmented again this round), a failed
 * defragmentation too, so that the round stops there.
 */
final class MaintenanceSteps {
  /** How long a defragmentation may take: etcd copies the member's whole database meanwhile. */
  static final Duration DEFRAGMENT_DEADLINE = Duration.ofMinutes(5);

  /** How long a compaction may take to reach the backend. */
  static final Duration COMPACT_DEADLINE = Duration.ofMinutes(1);

  private final StepCall call;
  private final EtcdService etcd;
  private final CallHook hook;
  private final Clock clock;

  MaintenanceSteps(StepCall call, EtcdService etcd, CallHook hook, Clock clock) {
    this.call = call;
    this.etcd = etcd;
    this.hook = hook;
    this.clock = clock;
  }

  Outcome defragment(Step.Defragment s) {
    StepCall.Leader t = call.leader();
    String url = call.view().probe(s.ordinal()).map(MemberProbe::endpoint).orElse(t.endpoint());
    long before = call.view().probe(s.ordinal()).map(MemberProbe::dbSize).orElse(0L);
    try {
      DefragResult r = etcd.defragment(call.key(), url, t.clusterId(), DEFRAGMENT_DEADLINE);
      hook.after("etcd defragment " + s.name());
      record(
          s.name(),
          new Defragmentation(
              clock.instant(), r.took(), r.sizeBefore(), r.sizeAfter(), Optional.empty()));
      call.scope().defragmented(s.name(), Optional.of(r));
      return new Outcome.Done(
          "Defragmented",
          "defragmented "
              + s.name()
              + ": "
              + Maintenance.human(r.sizeBefore())
              + " -> "
              + Maintenance.human(r.sizeAfter())
              + " ("
              + Maintenance.human(r.freed())
              + " given back) in "
              + String.format(Locale.ROOT, "%.3f s", r.took().toMillis() / 1000.0)
              + "; "
              + s.reason());
    } catch (EtcdException e) {
      record(
          s.name(),
          new Defragmentation(
              clock.instant(),
              Duration.ZERO,
              before,
              0,
              Optional.of(e.failure() + ": " + e.detail())));
      call.scope().defragmented(s.name(), Optional.empty());
      return new Outcome.Failed(
          "DefragmentationFailed",
          "could not defragment "
              + s.name()
              + ": "
              + e.failure()
              + " "
              + e.detail()
              + "; no other member is defragmented in this round");
    }
  }

  Outcome compact(Step.Compact s) {
    StepCall.Leader t = call.leader();
    boolean now =
        etcd.compact(call.key(), t.endpoint(), t.clusterId(), s.revision(), COMPACT_DEADLINE);
    hook.after("etcd compact " + s.revision());
    call.write(
        "patch",
        "ConfigMap",
        Names.clusterStateConfigMap(call.cluster()),
        () ->
            call.scope()
                .annotate(
                    Names.COMPACTED_ANNOTATION,
                    new MaintenanceRecord.Compaction(s.revision(), clock.instant()).value()));
    return new Outcome.Done(
        "Compacted",
        "compacted the history up to revision "
            + s.revision()
            + (now ? "" : " (it was compacted that far already)")
            + "; "
            + s.reason());
  }

  Outcome disarm(Step.Disarm s) {
    StepCall.Leader t = call.leader();
    int n = etcd.disarm(call.key(), t.endpoint(), t.clusterId(), s.alarm());
    hook.after("etcd disarm " + s.alarm());
    return new Outcome.Done(
        "AlarmDisarmed",
        "disarmed "
            + s.alarm()
            + (n == 1 ? " (1 alarm)" : " (" + n + " alarms)")
            + ": writes are accepted again; "
            + s.reason());
  }

  private void record(String member, Defragmentation r) {
    ClusterState state =
        call.view()
            .clusterState()
            .orElse(new ClusterState(ClusterState.Kind.EXISTING, List.of(), ""));
    call.write(
        "patch",
        "ConfigMap",
        Names.clusterStateConfigMap(call.cluster()),
        () ->
            call.scope()
                .annotate(
                    Names.DEFRAGMENTED_ANNOTATION,
                    MaintenanceRecord.withDefragmentation(state, member, r)));
  }
}
