package io.etcdoperator.sandbox.bench;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What {@link Reactions} reads from the objects its watches deliver and from etcd's log lines:
 * whether a status says the work is done, a member's health, a pod's readiness and restarts, and
 * the time of a log line. Pure functions.
 */
final class Readings {
  /** The annotation the benchmark's roll sets on the pod template. */
  static final String ROLL = "bench.etcd.aenix.io/roll";

  private Readings() {}

  /** An EtcdCluster version in a line: generations, conditions, members. */
  static String brief(EtcdCluster c) {
    EtcdClusterStatus s = c.getStatus();
    if (s == null) {
      return "EtcdCluster generation " + c.getMetadata().getGeneration() + ", no status";
    }
    return "EtcdCluster generation "
        + c.getMetadata().getGeneration()
        + " observed "
        + s.getObservedGeneration()
        + " "
        + s.getConditions().stream()
            .map(x -> x.getType() + "=" + x.getStatus() + "/" + x.getReason())
            .toList()
        + " "
        + (s.getMembers() == null
            ? "[]"
            : s.getMembers().stream()
                .map(m -> m.getName() + (healthy(m) ? " healthy " : " unhealthy ") + m.getRole())
                .toList());
  }

  /** A pod version in a line: Ready, terminating, restarts, the roll's mark. */
  static String brief(Pod p) {
    return "pod "
        + p.getMetadata().getName()
        + (ready(p) ? " Ready" : " not Ready")
        + (p.getMetadata().getDeletionTimestamp() != null ? " terminating" : "")
        + " restarts "
        + restarts(p)
        + " roll "
        + annotation(p.getMetadata(), ROLL);
  }

  /**
   * The status tells that the work is done: {@code Ready} True at {@code generation}, {@code
   * Progressing} not True, {@code members} healthy voters, as many as asked.
   */
  static boolean settled(EtcdCluster c, long generation, int members) {
    EtcdClusterStatus s = c.getStatus();
    if (s == null || s.getObservedGeneration() == null || s.getObservedGeneration() < generation) {
      return false;
    }
    boolean ready = condition(s, "Ready").map(x -> "True".equals(x.getStatus())).orElse(false);
    boolean progressing =
        condition(s, "Progressing").map(x -> "True".equals(x.getStatus())).orElse(false);
    List<MemberStatus> list = s.getMembers() == null ? List.of() : s.getMembers();
    return ready
        && !progressing
        && list.size() == members
        && list.stream().allMatch(m -> healthy(m) && !MemberStatus.LEARNER.equals(m.getRole()));
  }

  static Optional<Condition> condition(EtcdClusterStatus s, String type) {
    return s.getConditions() == null
        ? Optional.empty()
        : s.getConditions().stream().filter(x -> type.equals(x.getType())).findFirst();
  }

  static boolean atLeast(EtcdCluster c, long generation) {
    return c.getMetadata().getGeneration() != null && c.getMetadata().getGeneration() >= generation;
  }

  static Optional<MemberStatus> member(EtcdCluster c, String name) {
    if (c.getStatus() == null || c.getStatus().getMembers() == null) {
      return Optional.empty();
    }
    return c.getStatus().getMembers().stream().filter(m -> name.equals(m.getName())).findFirst();
  }

  static boolean healthy(MemberStatus m) {
    return Boolean.TRUE.equals(m.getHealthy());
  }

  /**
   * Whether a container of the pod ended by itself (any exit code but SIGKILL's 137) at or after
   * {@code after}, as its current or last state shows (to the second: Kubernetes writes seconds).
   */
  static boolean exitedSince(Pod p, Instant after) {
    if (p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
      return false;
    }
    return p.getStatus().getContainerStatuses().stream()
        .flatMap(
            c ->
                Stream.of(c.getState(), c.getLastState())
                    .filter(Objects::nonNull)
                    .map(ContainerState::getTerminated)
                    .filter(Objects::nonNull))
        .anyMatch(
            t ->
                t.getExitCode() != null
                    && t.getExitCode() != 137
                    && time(t.getFinishedAt())
                        .map(f -> !f.isBefore(after.truncatedTo(ChronoUnit.SECONDS)))
                        .orElse(false));
  }

  /** An RFC 3339 time as Kubernetes and etcd write it; empty when absent or not one. */
  static Optional<Instant> time(String t) {
    if (t == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(t));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  static int restarts(Pod p) {
    if (p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
      return 0;
    }
    return p.getStatus().getContainerStatuses().stream()
        .map(ContainerStatus::getRestartCount)
        .filter(Objects::nonNull)
        .mapToInt(Integer::intValue)
        .sum();
  }

  static boolean named(Pod p, String name) {
    return name.equals(p.getMetadata().getName());
  }

  static boolean ready(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  static int replicas(StatefulSet s) {
    return s.getSpec() == null || s.getSpec().getReplicas() == null
        ? -1
        : s.getSpec().getReplicas();
  }

  static String templateAnnotation(StatefulSet s) {
    return s.getSpec() == null || s.getSpec().getTemplate() == null
        ? null
        : annotation(s.getSpec().getTemplate().getMetadata(), ROLL);
  }

  static String annotation(ObjectMeta m, String key) {
    return m == null || m.getAnnotations() == null ? null : m.getAnnotations().get(key);
  }

  /** The "ts" of one of etcd's JSON log lines. */
  static Optional<Instant> ts(String line) {
    int at = line.indexOf("\"ts\":\"");
    if (at < 0) {
      return Optional.empty();
    }
    int from = at + "\"ts\":\"".length();
    int to = line.indexOf('"', from);
    return to < 0 ? Optional.empty() : time(line.substring(from, to));
  }
}
