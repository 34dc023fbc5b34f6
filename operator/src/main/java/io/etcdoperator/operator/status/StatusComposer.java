package io.etcdoperator.operator.status;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.act.Acted;
import io.etcdoperator.operator.act.ApiRefusal;
import io.etcdoperator.operator.act.Outcome;
import io.etcdoperator.operator.model.SpecNotices;
import io.etcdoperator.operator.status.Transitions.Notice;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Everything between the status the plan renders ({@link StatusRenderer}) and the status written,
 * in this order, each a pure function of what came before:
 *
 * <ol>
 *   <li>{@link Forming}: a cluster still forming says Bootstrapping, not QuorumLost;
 *   <li>{@link Failures}: a write the API server refused, or a step etcd refused, turns Progressing
 *       False with its reason, and is told as a Warning Event; a step done is told as a Normal one;
 *   <li>what of the spec is not done ({@link SpecNotices}) is added to Ready's message, and told
 *       once per generation;
 *   <li>{@link StatusMerger}: transition times and members' unhealthy times, from the previous
 *       status;
 *   <li>{@link Escalation}: a quorum lost for longer than the deadline is said louder.
 * </ol>
 *
 * The Events of a status's transitions ({@link Transitions}) are told only once it is written
 * ({@link StatusWriter}).
 */
public final class StatusComposer {
  private StatusComposer() {}

  /**
   * The status to write, and the Events to tell whether or not it is written.
   *
   * @param status the status, with its times
   * @param events what this reconcile did and refused, in order
   */
  public record Composed(EtcdClusterStatus status, List<Notice> events) {}

  /**
   * @param cluster the resource as this reconcile read it (its status is the previous one)
   * @param rendered the status the plan renders as
   * @param acted what acting did
   * @param quorumLossAlarm how long quorum may be lost before it is said louder
   */
  public static Composed compose(
      EtcdCluster cluster,
      EtcdClusterStatus rendered,
      Acted acted,
      Instant now,
      Duration quorumLossAlarm) {
    EtcdClusterStatus previous = cluster.getStatus();
    EtcdClusterStatus computed = Forming.apply(previous, rendered);
    List<Notice> events = new ArrayList<>();
    for (ApiRefusal r : acted.refused()) {
      events.add(new Notice(true, "ApiRefused", r.describe()));
    }
    if (!acted.refused().isEmpty()) {
      computed =
          Failures.onProgressing(
              computed,
              "ApiRefused",
              acted.refused().stream().map(ApiRefusal::describe).collect(Collectors.joining("; ")));
    }
    if (acted.outcome() instanceof Outcome.Done d) {
      events.add(new Notice(false, d.reason(), d.message()));
    } else if (acted.outcome() instanceof Outcome.Failed f) {
      events.add(
          new Notice(
              true, f.reason().equals("EtcdRefused") ? "StepFailed" : f.reason(), f.message()));
      computed = Failures.onProgressing(computed, f.reason(), f.message());
    }
    List<String> notices = SpecNotices.of(cluster.getSpec());
    if (!notices.isEmpty()) {
      computed = Failures.withNotices(computed, notices);
      Long seen = previous == null ? null : previous.getObservedGeneration();
      if (seen == null || !seen.equals(cluster.getMetadata().getGeneration())) {
        events.add(new Notice(true, "SpecIgnored", String.join("; ", notices)));
      }
    }
    EtcdClusterStatus status =
        Escalation.apply(StatusMerger.merge(previous, computed, now), now, quorumLossAlarm);
    return new Composed(status, List.copyOf(events));
  }
}
