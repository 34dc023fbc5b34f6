package io.etcdoperator.operator.seed;

import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.etcd.ClusterProbe;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdMember;
import io.etcdoperator.operator.etcd.EtcdProbe;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.etcd.MemberAdded;
import io.etcdoperator.operator.etcd.PromoteResult;
import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.InitialMember;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.ClusterObserver;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberHashes;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.observe.Probes;
import io.etcdoperator.operator.observe.StatefulSetView;
import io.etcdoperator.operator.plan.Plan;
import io.etcdoperator.operator.plan.Planner;
import io.etcdoperator.operator.status.StatusRenderer;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import io.fabric8.kubernetes.api.model.Condition;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Real etcd processes seen the way the operator sees them: probe the members of a {@link
 * LocalEtcdCluster} with {@link JetcdEtcdService#probeAll}, map the probe exactly as the observer
 * does ({@link ClusterObserver#fromProbe}), surround it with the Kubernetes objects a cluster that
 * formed would have, and ask the {@link Planner}.
 *
 * <p>The Kubernetes side is what a 3-member cluster named {@value #CLUSTER} in {@value #NAMESPACE}
 * that formed looks like: a StatefulSet with persistent storage and the desired template, a pod and
 * a claim for every ordinal (the pod's container runs when the member's process runs), and the
 * cluster-state ConfigMap saying {@code existing} with every member. Members are named {@code
 * etcd-<ordinal>}, so the planner maps names to ordinals as it does in a real cluster.
 */
final class RealClusterPlans implements AutoCloseable {
  /** The member IDs the claims were marked with (an earlier incarnation's). */
  static final long FORMER_MEMBER_ID_BASE = 0xf00d00L;

  static final String NAMESPACE = "default";
  static final String CLUSTER = "etcd";
  static final String HASH = "h1";
  static final Duration HEALTHY = Duration.ofSeconds(30);

  final JetcdEtcdService etcd = new JetcdEtcdService();
  final EtcdKv kv = new EtcdKv(Duration.ofSeconds(2));

  /** What was probed and what the planner made of it. */
  record Observed(ClusterProbe probe, ClusterView view, Plan plan) {
    /** {@code "<status>/<reason>"} of a condition of the planned status. */
    String condition(String type) {
      return StatusRenderer.render(plan).getConditions().stream()
          .filter(c -> c.getType().equals(type))
          .findFirst()
          .map(c -> c.getStatus() + "/" + c.getReason())
          .orElse("absent");
    }

    String message(String type) {
      return StatusRenderer.render(plan).getConditions().stream()
          .filter(c -> c.getType().equals(type))
          .findFirst()
          .map(Condition::getMessage)
          .orElse("");
    }

    EtcdStatus status(LocalEtcdMember m) {
      return probe.find(m.clientUrl()).map(EtcdProbe::status).orElseThrow();
    }

    String describe() {
      return "step: "
          + plan.step().describe()
          + "; replicas: "
          + plan.statefulSetReplicas()
          + "; conditions: "
          + StatusRenderer.render(plan).getConditions().stream()
              .map(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
              .toList()
          + "; "
          + message("Available");
    }
  }

  private static final java.net.http.HttpClient HTTP =
      java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  /** The readiness probe of a member pod: {@code /health} answers 200 within a second. */
  static boolean healthy(String clientUrl) {
    try {
      var response =
          HTTP.send(
              java.net.http.HttpRequest.newBuilder(java.net.URI.create(clientUrl + "/health"))
                  .timeout(Duration.ofSeconds(1))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.discarding());
      return response.statusCode() == 200;
    } catch (java.io.IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Probes the members {@code etcd-0 .. etcd-(replicas-1)} and plans for {@code replicas}. */
  Observed observe(LocalEtcdCluster cluster, int replicas) {
    TreeMap<Integer, String> urls = new TreeMap<>();
    TreeMap<Integer, PodView> pods = new TreeMap<>();
    TreeMap<Integer, ClaimView> claims = new TreeMap<>();
    Map<String, String> initial = new LinkedHashMap<>();
    Instant now = Instant.now();
    for (int i = 0; i < replicas; i++) {
      LocalEtcdMember m = cluster.member(Names.member(CLUSTER, i));
      urls.put(i, m.clientUrl());
      boolean running = m.isRunning();
      // Ready as a kubelet would say it: the member's /health answers (it has a leader).
      boolean ready = running && healthy(m.clientUrl());
      pods.put(
          i,
          new PodView(
              Names.pod(CLUSTER, i),
              i,
              "Running",
              ready,
              running,
              0,
              false,
              HASH,
              now.minus(Duration.ofHours(1)),
              null));
      // Each claim held its member's data once, and the operator marked it with the member's ID
      // (the IDs of that incarnation: none of them is in a rebuilt member list).
      claims.put(
          i, new ClaimView(Names.dataClaim(CLUSTER, i), i, false, FORMER_MEMBER_ID_BASE + i));
      initial.put(m.name(), m.peerUrl());
    }
    ClusterProbe probe = etcd.probeAll(key(cluster), List.copyOf(urls.values()));
    Probes.Probed probed = Probes.fromProbe(urls, probe);
    ClusterView view =
        new ClusterView(
            now,
            Optional.of(new StatefulSetView(replicas, HASH, true)),
            pods,
            claims,
            Optional.of(
                new ClusterState(
                    ClusterState.Kind.EXISTING,
                    initial.entrySet().stream()
                        .map(e -> new InitialMember(e.getKey(), e.getValue()))
                        .toList(),
                    cluster.token())),
            probed.probes(),
            probed.memberList());
    // As the observer: the members' hashes, when etcd raised CORRUPT.
    view =
        view.withHashes(
            MemberHashes.whenDiverged(etcd, key(cluster), probed.probes(), pods.values()));
    Plan plan =
        Planner.plan(
            Target.valid(
                NAMESPACE,
                CLUSTER,
                1,
                new Target.Desired(
                    replicas, HASH, true, cluster.token(), "quay.io/coreos/etcd:v3.5.30")),
            view);
    return new Observed(probe, view, plan);
  }

  ClusterProbe probe(LocalEtcdCluster cluster, List<LocalEtcdMember> members) {
    return etcd.probeAll(key(cluster), members.stream().map(LocalEtcdMember::clientUrl).toList());
  }

  /** Waits until these members have a leader acknowledged by a majority of the voters. */
  ClusterProbe awaitQuorum(LocalEtcdCluster cluster, List<LocalEtcdMember> members) {
    return awaitQuorumWithin(cluster, members, HEALTHY);
  }

  ClusterProbe awaitQuorumWithin(
      LocalEtcdCluster cluster, List<LocalEtcdMember> members, Duration timeout) {
    return await("quorum among " + members)
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> probe(cluster, members), ClusterProbe::hasQuorum);
  }

  /** Waits until {@code member} leads the cluster these members form. */
  void awaitLeader(
      LocalEtcdCluster cluster, List<LocalEtcdMember> members, LocalEtcdMember member) {
    await(member + " leads")
        .atMost(HEALTHY)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              ClusterProbe p = probe(cluster, members);
              return p.hasQuorum()
                  && p.leaderEndpoint().map(member.clientUrl()::equals).orElse(false);
            });
  }

  /**
   * Puts every key through the current leader of these members, retrying for a while (the cluster
   * may just have elected a leader).
   */
  void put(LocalEtcdCluster cluster, List<LocalEtcdMember> members, Map<String, String> entries) {
    entries.forEach(
        (k, v) ->
            await("put " + k)
                .atMost(HEALTHY)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(
                    () -> {
                      String leader = awaitQuorum(cluster, members).leaderEndpoint().orElseThrow();
                      kv.put(leader, k, v);
                      return true;
                    }));
  }

  static Map<String, String> keys(String prefix, int count) {
    Map<String, String> entries = new LinkedHashMap<>();
    for (int i = 1; i <= count; i++) {
      entries.put(prefix + i, "v" + i);
    }
    return entries;
  }

  /** The value this member holds (a serializable read: its own copy, whatever its state). */
  Optional<String> localValue(LocalEtcdMember m, String key) {
    return kv.get(m.clientUrl(), key, true).map(EtcdKv.Entry::value);
  }

  /**
   * Moves leadership {@code times} times among these members (each move starts a new raft term);
   * returns the term reached.
   */
  long advanceTerm(LocalEtcdCluster cluster, List<LocalEtcdMember> members, int times) {
    for (int n = 0; n < times; n++) {
      long before = awaitQuorum(cluster, members).leader().orElseThrow().raftTerm();
      await("move leader")
          .atMost(HEALTHY)
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(
              () -> {
                ClusterProbe p = awaitQuorum(cluster, members);
                if (p.leader().orElseThrow().raftTerm() > before) {
                  return true;
                }
                EtcdStatus leader = p.leader().orElseThrow();
                long target =
                    p.memberList().orElseThrow().voters().stream()
                        .map(EtcdMember::id)
                        .filter(id -> id != leader.memberId())
                        .filter(
                            id ->
                                p.members().stream()
                                    .anyMatch(m -> m.reachable() && m.status().memberId() == id))
                        .findFirst()
                        .orElseThrow();
                etcd.moveLeader(key(cluster), leader.endpoint(), leader.clusterId(), target);
                return awaitQuorum(cluster, members).leader().orElseThrow().raftTerm() > before;
              });
    }
    return awaitQuorum(cluster, members).leader().orElseThrow().raftTerm();
  }

  /**
   * Adds {@code joining} as a learner, starts it with {@code --initial-cluster-state existing}, and
   * promotes it once it has caught up: how the operator scales up.
   */
  void addMember(LocalEtcdCluster cluster, List<LocalEtcdMember> current, LocalEtcdMember joining) {
    MemberAdded added =
        await("add learner " + joining)
            .atMost(HEALTHY)
            .pollInterval(Duration.ofMillis(250))
            .ignoreExceptionsInstanceOf(EtcdException.class)
            .until(
                () -> {
                  ClusterProbe p = awaitQuorum(cluster, current);
                  EtcdStatus leader = p.leader().orElseThrow();
                  return etcd.addLearner(
                      key(cluster), leader.endpoint(), leader.clusterId(), joining.peerUrl());
                },
                a -> true);
    List<LocalEtcdMember> all = new java.util.ArrayList<>(current);
    all.add(joining);
    joining.startExisting(LocalEtcdCluster.initialCluster(all));
    await("promote " + joining)
        .atMost(HEALTHY)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsInstanceOf(EtcdException.class)
        .until(
            () -> {
              ClusterProbe p = awaitQuorum(cluster, current);
              EtcdStatus leader = p.leader().orElseThrow();
              return etcd.promoteLearner(
                  key(cluster), leader.endpoint(), leader.clusterId(), added.member().id());
            },
            r -> r instanceof PromoteResult.Promoted);
  }

  /** GET on a member's peer URL: answers even while the member cannot serve clients. */
  static Optional<PeerAnswer> peerGet(LocalEtcdMember m, String path) {
    HttpURLConnection c = null;
    try {
      c = (HttpURLConnection) URI.create(m.peerUrl() + path).toURL().openConnection();
      c.setConnectTimeout(1000);
      c.setReadTimeout(1000);
      int code = c.getResponseCode();
      String body = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return Optional.of(new PeerAnswer(code, c.getHeaderField("X-Etcd-Cluster-ID"), body));
    } catch (IOException e) {
      return Optional.empty();
    } finally {
      if (c != null) {
        c.disconnect();
      }
    }
  }

  /** A peer URL's answer: status, the {@code X-Etcd-Cluster-ID} header, body. */
  record PeerAnswer(int code, String clusterId, String body) {}

  /** The member's whole log since its last start. */
  static String logSinceLastStart(LocalEtcdMember m) {
    try {
      String all = Files.readString(m.logFile(), StandardCharsets.UTF_8);
      int last = all.lastIndexOf("=== ");
      return last < 0 ? all : all.substring(last);
    } catch (IOException e) {
      return "(cannot read " + m.logFile() + ": " + e + ")";
    }
  }

  static String key(LocalEtcdCluster cluster) {
    return "it/" + cluster.name() + "/" + cluster.dir().getFileName();
  }

  @Override
  public void close() {
    kv.close();
    etcd.close();
  }
}
