package io.etcdoperator.e2e;

import io.etcdoperator.operator.etcd.EtcdMember;
import io.etcdoperator.operator.etcd.EtcdMemberList;
import io.etcdoperator.operator.model.Names;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Watches a cluster's real member list (from etcd) and its pods every 100 ms while a test changes
 * it, and records what must never happen:
 *
 * <ul>
 *   <li>two members with the same name or the same peer URL;
 *   <li>a member without a pod for longer than one step: while a member of the list has no pod, the
 *       operator makes no membership call other than removing that member (one step: the next
 *       reconcile after the add grows the StatefulSet, also after a crash).
 * </ul>
 *
 * It also keeps, per member, the longest time it was seen without a pod, for the test's output.
 */
final class MembershipWatch implements AutoCloseable {
  private static final Duration PERIOD = Duration.ofMillis(100);

  private final Cluster cluster;
  private final CallLog calls;
  private final Thread thread;
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final Map<Long, Window> open = new HashMap<>();
  private final Map<String, Duration> longestWithoutPod =
      new java.util.concurrent.ConcurrentHashMap<>();
  private volatile boolean stop;

  /** A member without a pod since {@code sinceNanos}, seen first when the log had {@code calls}. */
  private record Window(String name, long sinceNanos, int calls) {}

  MembershipWatch(Cluster cluster, CallLog calls) {
    this.cluster = cluster;
    this.calls = calls;
    this.thread = new Thread(this::run, "membership-watch");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  Map<String, Duration> longestWithoutPod() {
    return Map.copyOf(longestWithoutPod);
  }

  private void run() {
    while (!stop) {
      try {
        sample();
      } catch (RuntimeException e) {
        // the API or every member unreachable for a moment: look again
      }
      try {
        Thread.sleep(PERIOD.toMillis()); // a sampling period, not a wait for a condition
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void sample() {
    Optional<EtcdMemberList> list = cluster.memberList();
    if (list.isEmpty()) {
      return;
    }
    Set<String> pods = new HashSet<>(cluster.podNames(true));
    Set<String> names = new HashSet<>();
    Set<String> peers = new HashSet<>();
    long now = System.nanoTime();
    Set<Long> seen = new HashSet<>();
    for (EtcdMember m : list.get().members()) {
      if (m.started() && !names.add(m.name())) {
        violations.add("two members named " + m.name() + ": " + list.get().members());
      }
      for (String p : m.peerUrls()) {
        if (!peers.add(p)) {
          violations.add("two members with peer URL " + p + ": " + list.get().members());
        }
      }
      int ordinal =
          m.peerUrls().stream()
              .mapToInt(u -> Names.ordinalOfPeerUrl(E2E.NS, cluster.name(), u))
              .max()
              .orElse(-1);
      String name = Names.member(cluster.name(), ordinal);
      seen.add(m.id());
      if (pods.contains(name)) {
        close(m.id(), now);
        continue;
      }
      Window w = open.computeIfAbsent(m.id(), id -> new Window(name, now, calls.size()));
      List<String> made =
          calls.since(w.calls()).stream()
              .map(CallLog.Call::label)
              .filter(l -> l.startsWith("etcd "))
              // the call that added it may be logged after the member was seen
              .filter(l -> !l.equals("etcd addLearner " + name))
              .filter(l -> !l.equals("etcd removeMember " + name))
              .toList();
      if (!made.isEmpty()) {
        violations.add(
            "member " + name + " (" + m.hexId() + ") had no pod while the operator made " + made);
        open.put(m.id(), new Window(name, w.sinceNanos(), calls.size()));
      }
      longestWithoutPod.merge(
          name, Duration.ofNanos(now - w.sinceNanos()), (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }
    open.keySet().removeIf(id -> !seen.contains(id));
  }

  private void close(long id, long now) {
    open.remove(id);
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.interrupt();
    thread.join(5_000);
  }
}
