package io.etcdoperator.sandbox.bench;

import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.api.auth.RbacUsage;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the operator did over one window in which nothing changed: its CPU time, its reconciles and
 * the member watch's triggers among them (from its {@code /metrics}: the rest are the resync's),
 * and its requests to the API server (counted by the sandbox for the operator's ServiceAccount), by
 * verb.
 */
record Idle(
    Duration window,
    Duration cpu,
    double reconciles,
    double watchTriggers,
    Map<String, Double> watchTriggersByReason,
    double watchChecks,
    double watchRechecks,
    Map<String, Long> requests,
    Map<String, Duration> threads) {
  private static final Set<String> READS = Set.of("get", "list");
  private static final String TRIGGERS = "etcd_operator_member_watch_triggers_total";
  private static final String CHECKS = "etcd_operator_member_watch_checks_total";
  private static final String RECHECKS = "etcd_operator_member_watch_rechecks_total";

  /** Measures over {@code window}, which the caller lets pass untouched. */
  static Idle measure(OperatorProcess operator, Sandbox sandbox, Duration window) throws Exception {
    Map<Long, OperatorProcess.ThreadTime> threads0 = operator.threadCpu();
    Duration cpu0 = operator.cpu();
    String page0 = operator.metrics();
    double rec0 = reconciles(page0);
    double trig0 = watchTriggers(page0);
    Map<String, Double> reasons0 = Metrics.byLabel(page0, TRIGGERS, "reason");
    double checks0 = Metrics.sum(page0, CHECKS, l -> true);
    double rechecks0 = Metrics.sum(page0, RECHECKS, l -> true);
    Map<String, Long> req0 = sandbox.operatorUsage().requests();
    long t0 = System.nanoTime();
    Thread.sleep(window.toMillis());
    Duration cpu1 = operator.cpu();
    long t1 = System.nanoTime();
    Map<String, Duration> threads = new TreeMap<>();
    operator
        .threadCpu()
        .forEach(
            (tid, t) -> {
              OperatorProcess.ThreadTime before = threads0.get(tid);
              Duration spent = t.cpu().minus(before == null ? Duration.ZERO : before.cpu());
              if (!spent.isZero()) {
                threads.merge(t.name(), spent, Duration::plus);
              }
            });
    String page1 = operator.metrics();
    double rec1 = reconciles(page1);
    double trig1 = watchTriggers(page1);
    Map<String, Double> reasons = new TreeMap<>();
    Metrics.byLabel(page1, TRIGGERS, "reason")
        .forEach(
            (reason, n) -> {
              double d = n - reasons0.getOrDefault(reason, 0.0);
              if (d > 0) {
                reasons.put(reason, d);
              }
            });
    Map<String, Long> req1 = sandbox.operatorUsage().requests();
    Map<String, Long> delta = new TreeMap<>();
    req1.forEach(
        (verb, n) -> {
          long d = n - req0.getOrDefault(verb, 0L);
          if (d > 0) {
            delta.put(verb, d);
          }
        });
    return new Idle(
        Duration.ofNanos(t1 - t0),
        cpu1.minus(cpu0),
        rec1 - rec0,
        trig1 - trig0,
        reasons,
        Metrics.sum(page1, CHECKS, l -> true) - checks0,
        Metrics.sum(page1, RECHECKS, l -> true) - rechecks0,
        delta,
        threads);
  }

  static double reconciles(String page) {
    return Metrics.sum(page, "etcd_operator_reconcile_duration_seconds_count", l -> true);
  }

  /** Reconciles the member watch asked for: a member said something else than expected. */
  static double watchTriggers(String page) {
    return Metrics.sum(page, TRIGGERS, l -> true);
  }

  /**
   * What the member watch did, per second: its checks (one per cluster), its rechecks (a member
   * expected to answer missed one deadline) and its wake-ups by reason, e.g. {@code 500.0 checks/s,
   * 1.2 rechecks/s, woken for not-answering 0.1/s}.
   */
  String watchLine() {
    double seconds = window.toNanos() / 1e9;
    String woken =
        watchTriggersByReason.isEmpty()
            ? "woken for nothing"
            : watchTriggersByReason.entrySet().stream()
                .map(e -> String.format("%s %.1f/s", e.getKey(), e.getValue() / seconds))
                .collect(Collectors.joining(", ", "woken for ", ""));
    return String.format(
        "%.1f checks/s, %.1f rechecks/s, %s",
        watchChecks / seconds, watchRechecks / seconds, woken);
  }

  /**
   * The threads that took most of the CPU, as shares of a core, e.g. {@code etcd-grpc-io-N 2.1 %}.
   */
  String busiestThreads(int n) {
    double window = this.window.toNanos();
    return threads.entrySet().stream()
        .sorted(Map.Entry.<String, Duration>comparingByValue().reversed())
        .limit(n)
        .map(e -> String.format("%s %.1f %%", e.getKey(), e.getValue().toNanos() * 100 / window))
        .collect(Collectors.joining(", "));
  }

  double cpuShare() {
    return (double) cpu.toNanos() / window.toNanos();
  }

  double reconcilesPerSecond() {
    return reconciles / (window.toNanos() / 1e9);
  }

  double watchTriggersPerSecond() {
    return watchTriggers / (window.toNanos() / 1e9);
  }

  double writesPerReconcile() {
    return perReconcile(RbacUsage.WRITES);
  }

  double readsPerReconcile() {
    return perReconcile(READS);
  }

  private double perReconcile(Set<String> verbs) {
    long n =
        requests.entrySet().stream()
            .filter(e -> verbs.contains(e.getKey()))
            .mapToLong(Map.Entry::getValue)
            .sum();
    return reconciles == 0 ? n : n / reconciles;
  }
}
