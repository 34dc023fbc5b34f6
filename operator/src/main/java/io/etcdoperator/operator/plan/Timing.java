package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.EtcdVersion;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * When a Ready cluster is looked at again although nothing wakes the operator: at the next firing
 * of the defragmentation schedule, and soon while etcd is about to raise the cluster version.
 */
final class Timing {
  private Timing() {}

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
}
