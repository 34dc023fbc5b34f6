package io.etcdoperator.operator.metrics;

import io.etcdoperator.operator.etcd.DefragResult;
import io.etcdoperator.operator.plan.ClusterGauges;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * The operator's metrics of each cluster, on the registry {@code /metrics} serves (Prometheus names
 * in parentheses; every series carries {@code namespace} and {@code name}, member series {@code
 * member} too):
 *
 * <ul>
 *   <li>members: desired ({@code etcd_operator_cluster_members_desired}), in the member list
 *       ({@code ..._members}), healthy ({@code ..._members_healthy}), voters ({@code ..._voters}),
 *       learners ({@code ..._learners});
 *   <li>quorum ({@code etcd_operator_cluster_quorum}, 1 or 0), quorum losses and leader changes
 *       seen ({@code ..._quorum_losses_total}, {@code ..._leader_changes_total});
 *   <li>per member: healthy, leader, raft index lag behind the leader, database size and size in
 *       use ({@code etcd_operator_member_healthy}, {@code ..._leader}, {@code ..._raft_index_lag},
 *       {@code ..._db_size_bytes}, {@code ..._db_size_in_use_bytes});
 *   <li>alarms ({@code etcd_operator_cluster_alarm{alarm="NOSPACE"|"CORRUPT"}}, 1 or 0), the quota
 *       ({@code ..._db_quota_bytes}), paused ({@code ..._paused});
 *   <li>the newest complete backup ({@code etcd_operator_cluster_last_backup_timestamp_seconds},
 *       absent until there is one); per EtcdBackupSchedule ({@code schedule} and {@code cluster}
 *       labels) its newest complete backup and the longest interval between its firings ({@code
 *       etcd_operator_backup_schedule_last_success_timestamp_seconds}, {@code
 *       ..._interval_seconds});
 *   <li>reconciles: how long each took, by the rule that decided ({@code
 *       etcd_operator_reconcile_duration_seconds}, a histogram), and failures by kind ({@code
 *       etcd_operator_reconcile_failures_total{kind="exception"|"step"|"api"}});
 *   <li>defragmentations: by result, how long, and the bytes given back ({@code
 *       etcd_operator_defragmentations_total{result}}, {@code
 *       etcd_operator_defragmentation_duration_seconds}, {@code
 *       etcd_operator_defragmentation_freed_bytes_total}).
 * </ul>
 *
 * A cluster's series go when it is deleted, a member's when it leaves the member list. A value that
 * is not known (a member that does not answer, no backup yet) reads NaN.
 */
public final class OperatorMetrics {
  static final List<String> ALARMS = List.of("NOSPACE", "CORRUPT");

  private static final Duration[] RECONCILE_BUCKETS = {
    Duration.ofMillis(10),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  private static final Duration[] DEFRAG_BUCKETS = {
    Duration.ofMillis(100),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(5),
    Duration.ofSeconds(15),
    Duration.ofSeconds(60),
    Duration.ofMinutes(5)
  };

  private final MeterRegistry registry;
  private final Map<String, Cluster> clusters = new ConcurrentHashMap<>();
  private final Map<String, Schedule> schedules = new ConcurrentHashMap<>();

  public OperatorMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Metrics nobody reads: for tests and tools that run a reconciler without a registry. */
  public static OperatorMetrics discarding() {
    return new OperatorMetrics(new SimpleMeterRegistry());
  }

  /** What one observation of the cluster showed. */
  public void observed(
      String namespace, String name, ClusterGauges gauges, Optional<Instant> lastBackup) {
    cluster(namespace, name).update(gauges, lastBackup);
  }

  /** One reconcile, decided by {@code rule}, took {@code took}. */
  public void reconciled(String namespace, String name, String rule, Duration took) {
    Timer.builder("etcd.operator.reconcile.duration")
        .description("How long a reconcile of the cluster took, by the rule that decided")
        .tags(Tags.of("namespace", namespace, "name", name, "rule", rule))
        .serviceLevelObjectives(RECONCILE_BUCKETS)
        .register(registry)
        .record(took);
  }

  /** A reconcile failed: it threw ({@code exception}), its step failed, or a write was refused. */
  public void failed(String namespace, String name, String kind) {
    counter(
            "etcd.operator.reconcile.failures",
            "Reconciles of the cluster that failed: exception, step or api",
            Tags.of("namespace", namespace, "name", name, "kind", kind))
        .increment();
  }

  /** A defragmentation of {@code member} ended; empty: it failed. */
  public void defragmented(
      String namespace, String name, String member, Optional<DefragResult> result) {
    Tags tags = Tags.of("namespace", namespace, "name", name);
    counter(
            "etcd.operator.defragmentations",
            "Defragmentations of members of the cluster, by result",
            tags.and("result", result.isPresent() ? "success" : "failure"))
        .increment();
    result.ifPresent(
        r -> {
          Timer.builder("etcd.operator.defragmentation.duration")
              .description("How long etcd took to defragment a member")
              .tags(tags)
              .serviceLevelObjectives(DEFRAG_BUCKETS)
              .register(registry)
              .record(r.took());
          counter(
                  "etcd.operator.defragmentation.freed.bytes",
                  "Bytes defragmentations gave back to the file system",
                  tags)
              .increment(r.freed());
        });
  }

  /** The cluster is gone: its series go. */
  public void forget(String namespace, String name) {
    Cluster c = clusters.remove(namespace + "/" + name);
    if (c != null) {
      c.close();
    }
    registry.getMeters().stream()
        .filter(
            m ->
                namespace.equals(m.getId().getTag("namespace"))
                    && name.equals(m.getId().getTag("name")))
        .toList()
        .forEach(registry::remove);
  }

  /** An EtcdBackupSchedule's newest complete backup and the longest interval between firings. */
  public void schedule(
      String namespace,
      String schedule,
      String cluster,
      Optional<Instant> lastSuccess,
      Optional<Duration> interval) {
    schedules
        .computeIfAbsent(
            namespace + "/" + schedule, k -> new Schedule(namespace, schedule, cluster))
        .update(lastSuccess, interval);
  }

  /** The schedule is gone. */
  public void forgetSchedule(String namespace, String schedule) {
    Schedule s = schedules.remove(namespace + "/" + schedule);
    if (s != null) {
      s.meters.forEach(registry::remove);
    }
  }

  private Counter counter(String name, String description, Tags tags) {
    return Counter.builder(name).description(description).tags(tags).register(registry);
  }

  private Cluster cluster(String namespace, String name) {
    return clusters.computeIfAbsent(namespace + "/" + name, k -> new Cluster(namespace, name));
  }

  /** The gauges of one cluster, reading its last observation. */
  private final class Cluster {
    final Tags tags;
    final List<Meter> meters = new ArrayList<>();
    final Map<String, List<Meter>> members = new HashMap<>();
    volatile ClusterGauges last;
    volatile double lastBackup = Double.NaN;
    long leader;
    boolean quorum;
    final Counter leaderChanges;
    final Counter quorumLosses;

    Cluster(String namespace, String name) {
      tags = Tags.of("namespace", namespace, "name", name);
      gauge("etcd.operator.cluster.members.desired", "Members the spec asks for", g -> g.desired());
      gauge("etcd.operator.cluster.members", "Members in etcd's member list", g -> g.members());
      gauge("etcd.operator.cluster.members.healthy", "Healthy members", g -> g.healthy());
      gauge("etcd.operator.cluster.voters", "Voting members", g -> g.voters());
      gauge("etcd.operator.cluster.learners", "Learners", g -> g.learners());
      gauge("etcd.operator.cluster.quorum", "1 while a quorum holds", g -> g.quorum() ? 1 : 0);
      gauge(
          "etcd.operator.cluster.db.quota.bytes",
          "quota-backend-bytes of the members",
          g -> g.quotaBytes() == Long.MAX_VALUE ? Double.NaN : g.quotaBytes());
      gauge(
          "etcd.operator.cluster.paused",
          "1 while the operator is paused",
          g -> g.paused() ? 1 : 0);
      for (String alarm : ALARMS) {
        meters.add(
            Gauge.builder(
                    "etcd.operator.cluster.alarm",
                    this,
                    c -> value(g -> g.alarms().contains(alarm) ? 1 : 0))
                .description("1 while etcd has this alarm raised")
                .tags(tags.and("alarm", alarm))
                .register(registry));
      }
      meters.add(
          Gauge.builder(
                  "etcd.operator.cluster.last.backup.timestamp.seconds", this, c -> c.lastBackup)
              .description(
                  "When the newest complete EtcdBackup of the cluster was taken (Unix time)")
              .tags(tags)
              .register(registry));
      leaderChanges =
          counter("etcd.operator.cluster.leader.changes", "Leader changes the operator saw", tags);
      quorumLosses =
          counter(
              "etcd.operator.cluster.quorum.losses", "Times the operator saw quorum lost", tags);
    }

    private void gauge(String name, String description, ToDoubleFunction<ClusterGauges> f) {
      meters.add(
          Gauge.builder(name, this, c -> value(f))
              .description(description)
              .tags(tags)
              .register(registry));
    }

    private double value(ToDoubleFunction<ClusterGauges> f) {
      ClusterGauges g = last;
      return g == null ? Double.NaN : f.applyAsDouble(g);
    }

    synchronized void update(ClusterGauges g, Optional<Instant> backup) {
      ClusterGauges before = last;
      if (before != null) {
        if (g.leaderId() != 0 && leader != 0 && g.leaderId() != leader) {
          leaderChanges.increment();
        }
        if (quorum && !g.quorum()) {
          quorumLosses.increment();
        }
      }
      if (g.leaderId() != 0) {
        leader = g.leaderId();
      }
      quorum = g.quorum();
      last = g;
      lastBackup = backup.map(i -> i.toEpochMilli() / 1000.0).orElse(Double.NaN);
      Map<String, ClusterGauges.MemberGauges> now = new HashMap<>();
      g.perMember().forEach(m -> now.put(m.name(), m));
      for (String gone : List.copyOf(members.keySet())) {
        if (!now.containsKey(gone)) {
          members.remove(gone).forEach(registry::remove);
        }
      }
      for (String member : now.keySet()) {
        members.computeIfAbsent(member, this::memberGauges);
      }
    }

    private List<Meter> memberGauges(String member) {
      Tags t = tags.and("member", member);
      List<Meter> list = new ArrayList<>();
      list.add(
          memberGauge(
              "etcd.operator.member.healthy",
              "1 while the member is healthy",
              t,
              member,
              m -> m.healthy() ? 1 : 0));
      list.add(
          memberGauge(
              "etcd.operator.member.leader",
              "1 while the member leads",
              t,
              member,
              m -> m.leader() ? 1 : 0));
      list.add(
          memberGauge(
              "etcd.operator.member.raft.index.lag",
              "Raft entries the member is behind the leader",
              t,
              member,
              m -> known(m.raftIndexLag())));
      list.add(
          memberGauge(
              "etcd.operator.member.db.size.bytes",
              "The member's database file",
              t,
              member,
              m -> known(m.dbSize())));
      list.add(
          memberGauge(
              "etcd.operator.member.db.size.in.use.bytes",
              "The part of the member's database in use",
              t,
              member,
              m -> known(m.dbSizeInUse())));
      return list;
    }

    private Meter memberGauge(
        String name,
        String description,
        Tags t,
        String member,
        ToDoubleFunction<ClusterGauges.MemberGauges> f) {
      return Gauge.builder(
              name,
              this,
              c -> {
                ClusterGauges g = c.last;
                return g == null
                    ? Double.NaN
                    : g.perMember().stream()
                        .filter(m -> m.name().equals(member))
                        .findFirst()
                        .map(f::applyAsDouble)
                        .orElse(Double.NaN);
              })
          .description(description)
          .tags(t)
          .register(registry);
    }

    private static double known(long v) {
      return v < 0 ? Double.NaN : v;
    }

    void close() {
      meters.forEach(registry::remove);
      members.values().forEach(l -> l.forEach(registry::remove));
      registry.remove(leaderChanges);
      registry.remove(quorumLosses);
    }
  }

  /** The gauges of one EtcdBackupSchedule. */
  private final class Schedule {
    final List<Meter> meters = new ArrayList<>();
    volatile double lastSuccess = Double.NaN;
    volatile double interval = Double.NaN;

    Schedule(String namespace, String schedule, String cluster) {
      Tags tags = Tags.of("namespace", namespace, "schedule", schedule, "cluster", cluster);
      meters.add(
          Gauge.builder(
                  "etcd.operator.backup.schedule.last.success.timestamp.seconds",
                  this,
                  s -> s.lastSuccess)
              .description("When the schedule's newest complete backup was taken (Unix time)")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("etcd.operator.backup.schedule.interval.seconds", this, s -> s.interval)
              .description("The longest time between two firings of the schedule")
              .tags(tags)
              .register(registry));
    }

    void update(Optional<Instant> last, Optional<Duration> every) {
      lastSuccess = last.map(i -> i.toEpochMilli() / 1000.0).orElse(Double.NaN);
      interval = every.map(d -> d.toMillis() / 1000.0).orElse(Double.NaN);
    }
  }
}
