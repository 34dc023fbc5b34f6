package io.etcdoperator.sandbox.controller;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Deployment's next step, as numbers: how many replicas its new ReplicaSet and each old one
 * should have, given what they have and how many of their pods are available. Pure; the Deployment
 * controller reads the world into it and writes its answer back.
 *
 * <p>RollingUpdate, as Kubernetes' deployment controller does it in one sync:
 *
 * <ol>
 *   <li>Scale up the new set: every set's replicas together may reach {@code replicas + maxSurge};
 *       the new set gets what is left of that, up to {@code replicas}. When the new set already has
 *       more than {@code replicas} (the Deployment was scaled down), it goes down to {@code
 *       replicas}.
 *   <li>Scale down the old sets: together they may lose as many replicas as keeps {@code replicas -
 *       maxUnavailable} pods available: first the replicas an old set has beyond its available pods
 *       (they are not serving anyway), then available ones, oldest set first.
 * </ol>
 *
 * <p>Recreate: every old set goes to 0; the new set is scaled up to {@code replicas} only once no
 * old set has a pod left.
 *
 * <p>{@code maxSurge} and {@code maxUnavailable} are absolute numbers here (percentages resolved by
 * {@link #resolve}: surge rounded up, unavailable rounded down, both 0 making unavailable 1, as
 * Kubernetes resolves them).
 */
final class Rollout {
  private Rollout() {}

  /**
   * One ReplicaSet as the plan sees it.
   *
   * @param name the set's name
   * @param replicas its spec.replicas
   * @param pods its pods that exist and are not terminating (status.replicas)
   * @param available its available pods
   */
  record Set(String name, int replicas, int pods, int available) {}

  /** Replicas per set name: what each set's spec.replicas should become. */
  static Map<String, Integer> rollingUpdate(
      int replicas, int maxSurge, int maxUnavailable, Set newSet, List<Set> oldSets) {
    Map<String, Integer> plan = new LinkedHashMap<>();
    int total = newSet.replicas();
    for (Set s : oldSets) {
      total += s.replicas();
    }
    int newReplicas = newSet.replicas();
    if (newReplicas > replicas) {
      newReplicas = replicas;
    } else if (newReplicas < replicas) {
      int room = replicas + maxSurge - total;
      if (room > 0) {
        newReplicas = Math.min(replicas, newReplicas + room);
      }
    }
    plan.put(newSet.name(), newReplicas);

    int available = newSet.available();
    for (Set s : oldSets) {
      available += s.available();
    }
    // replicas that serve nothing go first, they cost no availability
    List<Set> olds = new ArrayList<>();
    for (Set s : oldSets) {
      int unhealthy = Math.max(0, s.replicas() - s.available());
      int keep = s.replicas() - unhealthy;
      olds.add(new Set(s.name(), keep, s.pods(), s.available()));
      plan.put(s.name(), keep);
    }
    int mayLose = available - (replicas - maxUnavailable);
    for (Set s : olds) {
      if (mayLose <= 0) {
        break;
      }
      int down = Math.min(mayLose, s.replicas());
      plan.put(s.name(), s.replicas() - down);
      mayLose -= down;
    }
    return plan;
  }

  /** Replicas per set name for the Recreate strategy. */
  static Map<String, Integer> recreate(int replicas, Set newSet, List<Set> oldSets) {
    Map<String, Integer> plan = new LinkedHashMap<>();
    boolean oldPodsLeft = false;
    for (Set s : oldSets) {
      plan.put(s.name(), 0);
      oldPodsLeft |= s.pods() > 0;
    }
    plan.put(newSet.name(), oldPodsLeft ? newSet.replicas() : replicas);
    return plan;
  }

  /**
   * An intOrString of maxSurge or maxUnavailable as a number of pods: {@code "25%"} of {@code
   * replicas} (rounded up when {@code roundUp}), or the number itself; {@code fallback} when
   * absent.
   */
  static int resolve(Object value, int replicas, boolean roundUp, String fallback) {
    String v = value == null ? fallback : value.toString().trim();
    if (v.endsWith("%")) {
      double percent = Double.parseDouble(v.substring(0, v.length() - 1));
      double exact = percent * replicas / 100.0;
      return (int) (roundUp ? Math.ceil(exact) : Math.floor(exact));
    }
    return Integer.parseInt(v);
  }
}
