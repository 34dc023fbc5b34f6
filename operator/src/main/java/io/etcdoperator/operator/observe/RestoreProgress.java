package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.model.Names;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the member pods' {@code restore} init containers say: per ordinal, why the restore was
 * refused or failed (the last lines it printed, from its termination message); and the result of a
 * restore that was done (the agent's JSON line), from any member.
 *
 * @param problems ordinal to what the restore container said when it last failed, or why it cannot
 *     start (a missing Secret)
 * @param restored the agent's result line of a member that restored, if one did
 */
public record RestoreProgress(SortedMap<Integer, String> problems, Optional<String> restored) {
  public static final RestoreProgress NONE =
      new RestoreProgress(Collections.emptySortedMap(), Optional.empty());

  public RestoreProgress {
    problems = Collections.unmodifiableSortedMap(new TreeMap<>(problems));
  }

  /** From the member pods of {@code cluster}. */
  public static RestoreProgress of(String cluster, Collection<Pod> pods) {
    TreeMap<Integer, String> problems = new TreeMap<>();
    Optional<String> restored = Optional.empty();
    for (Pod p : pods) {
      int ordinal = Names.ordinalOf(cluster, p.getMetadata().getName());
      if (ordinal < 0
          || p.getStatus() == null
          || p.getStatus().getInitContainerStatuses() == null) {
        continue;
      }
      for (ContainerStatus c : p.getStatus().getInitContainerStatuses()) {
        if (!Names.RESTORE_CONTAINER.equals(c.getName())) {
          continue;
        }
        ContainerState now = c.getState();
        ContainerState last = c.getLastState();
        if (now != null && now.getTerminated() != null && now.getTerminated().getExitCode() == 0) {
          String message = now.getTerminated().getMessage();
          if (message != null && message.contains("\"restored\":true")) {
            restored = Optional.of(message.trim());
          }
          continue;
        }
        String failed = failure(now).or(() -> failure(last)).orElse(null);
        if (now != null
            && now.getWaiting() != null
            && isConfigError(now.getWaiting().getReason())) {
          failed = now.getWaiting().getReason() + ": " + now.getWaiting().getMessage();
        }
        if (failed != null) {
          problems.put(ordinal, failed);
        }
      }
    }
    return new RestoreProgress(problems, restored);
  }

  private static boolean isConfigError(String reason) {
    return "CreateContainerConfigError".equals(reason)
        || "ErrImagePull".equals(reason)
        || "ImagePullBackOff".equals(reason);
  }

  private static Optional<String> failure(ContainerState s) {
    if (s == null || s.getTerminated() == null || s.getTerminated().getExitCode() == 0) {
      return Optional.empty();
    }
    String m = s.getTerminated().getMessage();
    if (m == null || m.isBlank()) {
      return Optional.of("exited with " + s.getTerminated().getExitCode());
    }
    // the agent's last line says what is wrong; earlier lines are its progress
    String last =
        m.lines()
            .map(String::trim)
            .filter(l -> l.startsWith("restore "))
            .reduce((a, b) -> b)
            .orElse(m.strip().lines().reduce((a, b) -> b).orElse(m));
    return Optional.of(last);
  }
}
