package io.etcdoperator.sandbox.bench;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Where the time of one bootstrap in the sandbox went, each milestone from the apply: when the last
 * pod was bound to a node and when the last container started (what the sandbox's scheduler and
 * kubelets wrote on the pods), when etcd had formed the cluster (the last member to log that it
 * published itself through raft: the cluster then serves), and when the last pod turned Ready (the
 * kubelet's readiness probe). Read once the clock has stopped; a milestone not shown yet (a pod not
 * Ready when the operator already reported the cluster Ready) is empty, not guessed.
 */
record Milestones(
    Optional<Duration> scheduled,
    Optional<Duration> started,
    Optional<Duration> formed,
    Optional<Duration> podsReady) {

  /**
   * What etcd logs once its member serves as part of the cluster (etcd 3.4's JSON log and 3.5's).
   */
  static final String PUBLISHED = "published local member to cluster through raft";

  /**
   * @param applied the wall-clock instant of the apply
   * @param pods the cluster's pods; a milestone is known only when every one of them shows it
   * @param memberLogs each member's container log
   */
  static Milestones of(Instant applied, List<Pod> pods, List<String> memberLogs) {
    return new Milestones(
        latest(applied, pods, p -> condition(p, "PodScheduled")),
        latest(applied, pods, Milestones::containerStarted),
        latest(applied, memberLogs, Milestones::published),
        latest(applied, pods, p -> condition(p, "Ready")));
  }

  /**
   * When each pod's containers had all started, from the apply, in the order of the pods' names
   * (their ordinals, up to 10 members); empty unless every pod shows it.
   */
  static List<Duration> starts(Instant applied, List<Pod> pods) {
    List<Optional<Instant>> starts =
        pods.stream()
            .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
            .map(Milestones::containerStarted)
            .toList();
    if (starts.isEmpty() || starts.stream().anyMatch(Optional::isEmpty)) {
      return List.of();
    }
    return starts.stream().map(t -> Duration.between(applied, t.get())).toList();
  }

  /** When the log says the member published itself (its first time), from etcd's JSON "ts". */
  static Optional<Instant> published(String log) {
    return log.lines().filter(l -> l.contains(PUBLISHED)).findFirst().flatMap(Readings::ts);
  }

  private static <T> Optional<Duration> latest(
      Instant applied, List<T> sources, Function<T, Optional<Instant>> at) {
    if (sources.isEmpty()) {
      return Optional.empty();
    }
    List<Optional<Instant>> times = sources.stream().map(at).toList();
    if (times.stream().anyMatch(Optional::isEmpty)) {
      return Optional.empty();
    }
    return times.stream()
        .map(Optional::get)
        .max(Instant::compareTo)
        .map(t -> Duration.between(applied, t));
  }

  private static Optional<Instant> condition(Pod p, String type) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus()))
        .map(PodCondition::getLastTransitionTime)
        .flatMap(t -> Readings.time(t).stream())
        .findFirst();
  }

  /** When the pod's last container to start started (its current run). */
  private static Optional<Instant> containerStarted(Pod p) {
    if (p.getStatus() == null
        || p.getStatus().getContainerStatuses() == null
        || p.getStatus().getContainerStatuses().isEmpty()) {
      return Optional.empty();
    }
    List<Optional<Instant>> starts =
        p.getStatus().getContainerStatuses().stream().map(Milestones::runningSince).toList();
    return starts.stream().anyMatch(Optional::isEmpty)
        ? Optional.empty()
        : starts.stream().map(Optional::get).max(Instant::compareTo);
  }

  private static Optional<Instant> runningSince(ContainerStatus s) {
    return Optional.ofNullable(s.getState())
        .map(st -> st.getRunning())
        .map(r -> r.getStartedAt())
        .flatMap(Readings::time);
  }

  /**
   * "pods scheduled +1040 ms, containers started +1101 ms, etcd formed +1600 ms, pods Ready ...".
   */
  @Override
  public String toString() {
    return "pods scheduled "
        + show(scheduled)
        + ", containers started "
        + show(started)
        + ", etcd formed "
        + show(formed)
        + ", pods Ready "
        + show(podsReady);
  }

  /** The median of each milestone over runs, over the runs that showed it. */
  static Milestones median(List<Milestones> runs) {
    return new Milestones(
        median(runs.stream().map(Milestones::scheduled)),
        median(runs.stream().map(Milestones::started)),
        median(runs.stream().map(Milestones::formed)),
        median(runs.stream().map(Milestones::podsReady)));
  }

  private static Optional<Duration> median(Stream<Optional<Duration>> xs) {
    List<Duration> known = xs.flatMap(Optional::stream).filter(Objects::nonNull).toList();
    return known.isEmpty() ? Optional.empty() : Optional.of(BenchmarkCommand.median(known));
  }

  private static String show(Optional<Duration> d) {
    return d.map(x -> "+" + x.toMillis() + " ms").orElse("(not yet)");
  }
}
