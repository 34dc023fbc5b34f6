package io.etcdoperator.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * What one robustness run does to the cluster, drawn from its seed: one operator action, and none,
 * one or two faults injected while the action is under way, each at a delay after the action
 * started. The same seed always gives the same plan.
 *
 * @param seed the run's seed (also the workload's)
 * @param action what the operator is asked to do
 * @param faults what goes wrong meanwhile, in order
 * @param delaysMillis for each fault, how long after the action's start it is injected
 */
record RobustnessPlan(long seed, Action action, List<Fault> faults, List<Long> delaysMillis) {
  RobustnessPlan {
    faults = List.copyOf(faults);
    delaysMillis = List.copyOf(delaysMillis);
  }

  /** An action of the operator's, started by a change of the spec (or of the world). */
  enum Action {
    SCALE_UP(3, 1),
    SCALE_DOWN(5, 1),
    ROLL(3, 2),
    UPGRADE(3, 2),
    DEFRAGMENTATION(3, 1),
    VOLUME_EXPANSION(3, 1),
    HIBERNATE(3, 1),
    NODE_DRAIN(3, 1),
    NODE_LOST(3, 1),
    /** Peer TLS turned on for the running cluster (clients stay on http). */
    PEER_TLS(3, 1),
    /** Peer TLS turned off for a running cluster that formed with it (clients on http). */
    PEER_TLS_OFF(3, 1),
    /** The space quota filled until etcd refuses writes (NOSPACE), recovered by the operator. */
    NO_SPACE(3, 1),
    /** An EtcdBackup to a claim while the workload runs. */
    BACKUP(3, 1),
    /** A running cluster of aenix's operator (its objects, etcd 3.5.12) taken over by this one. */
    TAKEOVER(3, 1),
    /**
     * The peer CA of a cluster with TLS everywhere and client-certificate authentication rotated in
     * three steps (both CAs trusted, new leaves, the old CA dropped); the workload over mutual TLS.
     */
    CA_ROTATION(3, 1),
    /**
     * Both followers wiped (each until its restarted member panics on the leader's heartbeat),
     * MajorityDataLost, then the opt-in: the cluster rebuilt from the leader. The workload pauses
     * at the opt-in; the history is checked for exactly the rebuild's documented loss.
     */
    REBUILD(3, 1);

    /** Members before the action. */
    final int members;

    /** How often it is drawn. */
    final int weight;

    Action(int members, int weight) {
      this.members = members;
      this.weight = weight;
    }

    String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** A fault injected while an action is under way. */
  enum Fault {
    KILL(3),
    FREEZE(2),
    DELETE_POD(3),
    DELETE_MAJORITY(1),
    WIPE(2),
    OPERATOR_RESTART(2),
    OPERATOR_CRASH(2),
    /** One member cut off from the others (not from the operator or clients) for a few seconds. */
    PARTITION_MEMBER(2),
    /** The leader cut off from the others. */
    PARTITION_LEADER(2),
    /** A majority and a minority cut off from each other. */
    SPLIT(1),
    /** Two members cut off from each other, a third reaching both. */
    BRIDGE(1),
    /** Everything to and from one member delayed by 50 to 250 ms. */
    DELAY_PEERS(2),
    /** The API server answers every 3rd request of the operator 429 with Retry-After: 1. */
    API_THROTTLE(1),
    /** The API server fails every 3rd request of the operator with 500. */
    API_ERRORS(1),
    /** Every answer of the API server to the operator comes 300 to 1500 ms late. */
    API_SLOW(1),
    /** Every open watch of the operator ends with 410 Expired: its informers list again. */
    API_WATCH_GONE(1);

    final int weight;

    Fault(int weight) {
      this.weight = weight;
    }

    String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** The plan of {@code seed}: an action by weight, then 0, 1 or 2 faults (1 most often). */
  static RobustnessPlan of(long seed) {
    Random random = new Random(seed);
    Action action = draw(random, Action.values(), a -> a.weight);
    int count = new int[] {0, 1, 1, 1, 2, 2}[random.nextInt(6)];
    List<Fault> faults = new ArrayList<>();
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Fault f = draw(random, Fault.values(), x -> x.weight);
      if (action == Action.TAKEOVER && f == Fault.OPERATOR_RESTART) {
        // the operator starting is the action: restarting it is no second fault
        f = Fault.OPERATOR_CRASH;
      }
      if (action == Action.REBUILD) {
        // the rebuild is a fault of the members already: only the operator is hurt meanwhile
        f = Fault.OPERATOR_CRASH;
      }
      if (action == Action.HIBERNATE && f != Fault.OPERATOR_RESTART && f != Fault.OPERATOR_CRASH) {
        // members are stopping: only the operator can be hurt meanwhile
        f = Fault.OPERATOR_RESTART;
      }
      faults.add(f);
      delays.add(500L + random.nextInt(4500));
    }
    return new RobustnessPlan(seed, action, faults, delays);
  }

  /** A plan chosen by hand (the short set), with the seed for the workload. */
  static RobustnessPlan of(long seed, Action action, Fault... faults) {
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < faults.length; i++) {
      delays.add(1000L + 1500L * i);
    }
    return new RobustnessPlan(seed, action, List.of(faults), delays);
  }

  /**
   * The plan {@code spec} names, as {@link #describe()} writes it ({@code roll + kill +
   * partition-leader}), with the seed for the workload and for the pods the faults pick.
   */
  static RobustnessPlan parse(long seed, String spec) {
    String[] parts = spec.split("\\+");
    Action action =
        Action.valueOf(parts[0].trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    Fault[] faults = new Fault[parts.length - 1];
    for (int i = 1; i < parts.length; i++) {
      faults[i - 1] =
          Fault.valueOf(parts[i].trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }
    return of(seed, action, faults);
  }

  String describe() {
    return action.label()
        + (faults.isEmpty()
            ? ""
            : " + " + String.join(" + ", faults.stream().map(Fault::label).toList()));
  }

  private static <T> T draw(Random random, T[] values, java.util.function.ToIntFunction<T> weight) {
    int total = 0;
    for (T v : values) {
      total += weight.applyAsInt(v);
    }
    int x = random.nextInt(total);
    for (T v : values) {
      x -= weight.applyAsInt(v);
      if (x < 0) {
        return v;
      }
    }
    throw new IllegalStateException();
  }
}
