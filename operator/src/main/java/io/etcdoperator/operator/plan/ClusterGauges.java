package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberProbe;
import java.util.List;
import java.util.Set;

/**
 * What the metrics of one cluster say at one observation: derived from the same facts the planner
 * decides on, so that a dashboard never disagrees with the status. Pure.
 *
 * @param desired {@code spec.replicas} (0 for a spec the operator cannot read)
 * @param members members in etcd's member list
 * @param healthy members that are healthy
 * @param voters voting members
 * @param learners learners
 * @param quorum whether a quorum holds
 * @param leaderId the leader's member ID (0: none)
 * @param alarms the alarms raised (NOSPACE, CORRUPT)
 * @param quotaBytes the members' {@code quota-backend-bytes}
 * @param paused the operator is paused on this cluster
 * @param perMember one entry per member of the list with a name
 */
public record ClusterGauges(
    int desired,
    int members,
    int healthy,
    int voters,
    int learners,
    boolean quorum,
    long leaderId,
    Set<String> alarms,
    long quotaBytes,
    boolean paused,
    List<MemberGauges> perMember) {

  /**
   * One member.
   *
   * @param name the member's name
   * @param healthy healthy as the status says
   * @param leader it leads
   * @param raftIndexLag the leader's raft index minus this member's (-1: unknown)
   * @param dbSize its database file, in bytes (-1: unknown)
   * @param dbSizeInUse the part of it in use, in bytes (-1: unknown)
   */
  public record MemberGauges(
      String name,
      boolean healthy,
      boolean leader,
      long raftIndexLag,
      long dbSize,
      long dbSizeInUse) {}

  public static ClusterGauges of(Target target, ClusterView view) {
    Facts f = Facts.of(target.namespace(), target.name(), view);
    long leaderIndex = f.leaderMember().flatMap(f::probeOf).map(MemberProbe::raftIndex).orElse(-1L);
    List<MemberGauges> each =
        f.members().stream()
            .filter(m -> !m.name().isEmpty())
            .map(
                m -> {
                  var probe = f.probeOf(m).filter(MemberProbe::reachable);
                  return new MemberGauges(
                      m.name(),
                      f.healthy(m),
                      m.id() == f.leaderId(),
                      probe.isPresent() && leaderIndex >= 0
                          ? Math.max(0, leaderIndex - probe.get().raftIndex())
                          : -1,
                      probe.map(MemberProbe::dbSize).orElse(-1L),
                      probe.map(p -> p.dbSizeInUse() > 0 ? p.dbSizeInUse() : -1L).orElse(-1L));
                })
            .toList();
    return new ClusterGauges(
        target.desired().map(Target.Desired::replicas).orElse(0),
        f.members().size(),
        (int) f.members().stream().filter(f::healthy).count(),
        f.voters().size(),
        f.learners().size(),
        f.quorum(),
        f.leaderId(),
        Set.copyOf(f.alarms()),
        target.desired().map(d -> d.maintenance().quotaBytes()).orElse(0L),
        target.paused(),
        each);
  }
}
