package io.etcdoperator.e2e;

import static org.awaitility.Awaitility.await;

import io.etcdoperator.e2e.RobustnessPlan.Action;
import io.etcdoperator.e2e.RobustnessPlan.Fault;
import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.tls.ClientTls;
import io.etcdoperator.operator.tls.Pem;
import io.etcdoperator.sandbox.Faults;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.CertManagerEmulation;
import io.etcdoperator.testing.robustness.Checker;
import io.etcdoperator.testing.robustness.History;
import io.etcdoperator.testing.robustness.HistoryFile;
import io.etcdoperator.testing.robustness.Op;
import io.etcdoperator.testing.robustness.Violation;
import io.etcdoperator.testing.robustness.Workload;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One robustness run: a fresh sandbox with the real operator, a cluster {@code test}, the recording
 * {@link Workload} through the cluster's client Service (as users reach it), and a {@link
 * RobustnessPlan}'s action and faults done to the cluster while the workload runs:
 *
 * <ol>
 *   <li>the cluster is created and awaited (Ready, the members etcd lists are the pods);
 *   <li>the workload starts; once it has 100 answers, the action starts (a span in the history);
 *   <li>each fault is injected at its delay after the action's start (a span each);
 *   <li>the run waits until the cluster is what the action asked for (at most {@link #SETTLE}),
 *       then lets the workload make 100 more answers, and stops it;
 *   <li>the history is checked ({@link Checker}), and so is the live cluster: every member holds
 *       the same data (HashKV at one revision) and the member list matches the spec.
 * </ol>
 *
 * The history is written to {@code <dir>/history.json.gz} whatever the outcome, so that a unit test
 * can replay it.
 */
final class Robustness {
  static final String C = "test";
  static final Duration SETTLE = Duration.ofMinutes(3);
  static final String SAME_DATA = "members hold the same data (HashKV)";
  static final String MEMBER_LIST = "member list matches the spec";

  private final RobustnessPlan plan;
  private final Random random;
  private final CallLog calls = new CallLog();
  private final List<String> problems = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  /** The pods a WIPE of this run hit, in order. */
  private final List<String> wiped = new ArrayList<>();

  private E2E e2e;
  private Cluster cluster;
  private Crasher crasher;
  private String actionNode;
  private String memberIdBefore;
  private Workload workload;
  private ClientTls root;
  private Path tlsExample;
  private CertManagerEmulation certs;
  private Map<String, Map<String, byte[]>> secrets;
  private Map<String, String> beforeRoll;
  private Map<String, byte[]> nextCa;
  private long burstEnd;
  private int callsAtStart;
  private Members members;

  /** For a rebuild: when the user opted in, on the history's clock. */
  private long optIn = -1;

  private Robustness(RobustnessPlan plan) {
    this.plan = plan;
    this.random = new Random(plan.seed() ^ 0x5eedL);
  }

  /** What a run found. */
  record Outcome(
      RobustnessPlan plan,
      Checker.Report report,
      Duration toReady,
      List<String> problems,
      List<String> notes,
      Path history) {
    boolean ok() {
      return problems.isEmpty() && report != null && report.ok();
    }

    long violations() {
      return report == null ? 0 : report.violationCount();
    }

    int operations() {
      return report == null ? 0 : report.history().ops().size();
    }

    String line() {
      StringBuilder b =
          new StringBuilder(
              String.format(
                  Locale.ROOT, "robustness run seed=%d: %s; ", plan.seed(), plan.describe()));
      if (report != null) {
        List<Op> ops = report.history().ops();
        b.append(
            String.format(
                Locale.ROOT,
                "%d operations (%d answered, %d indeterminate), ",
                ops.size(),
                ops.stream().filter(op -> !op.failed()).count(),
                ops.stream().filter(Op::indeterminate).count()));
      }
      b.append(
          toReady == null
              ? "NOT READY"
              : String.format(Locale.ROOT, "Ready after %.1f s", toReady.toMillis() / 1000.0));
      if (!notes.isEmpty()) {
        b.append(" (").append(String.join("; ", notes)).append(')');
      }
      if (report != null) {
        for (Checker.Property p : report.properties()) {
          b.append("; ")
              .append(p.name())
              .append(' ')
              .append(
                  p.holds()
                      ? "ok"
                      : p.violations() == null
                          ? "not checked"
                          : p.violations().size() + " VIOLATED");
        }
      }
      b.append("; violations ").append(violations());
      b.append(
          ok()
              ? "; OK"
              : "; FAILED" + (problems.isEmpty() ? "" : ": " + String.join("; ", problems)));
      return b.toString();
    }
  }

  static Outcome run(RobustnessPlan plan, Path dir) throws Exception {
    return new Robustness(plan).run(dir);
  }

  private SandboxConfig config(Path dir) {
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(4))
            .withMaxGracePeriod(Duration.ofSeconds(5))
            .withPeerLinks();
    if (plan.action() == Action.REBUILD) {
      // as DurabilityE2EIT's case 6: a wiped member that panicked stays down (a 90 s back-off,
      // as CrashLoopBackOff), so the second one panics while the survivor still leads
      config = config.withRestartBackoff(Duration.ofSeconds(90), Duration.ofSeconds(90));
    }
    if (plan.action() == Action.NODE_DRAIN || plan.action() == Action.NODE_LOST) {
      config =
          config
              .withNodes(3)
              .withNodeTimings(Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofSeconds(1));
    }
    return config;
  }

  private String manifest() {
    int n = plan.action().members;
    return switch (plan.action()) {
      case UPGRADE -> UpgradeE2EIT.manifest(C, n, UpgradeE2EIT.V34);
      case REBUILD -> DurabilityE2EIT.slowElections(UpgradeE2EIT.V35);
      case NODE_LOST ->
          """
          apiVersion: etcd.aenix.io/v1alpha1
          kind: EtcdCluster
          metadata:
            name: test
            namespace: default
          spec:
            replicas: %d
            replaceLostMemberAfter: 20s
            storage:
              volumeClaimTemplate:
                spec:
                  storageClassName: local
                  accessModes: [ReadWriteOnce]
                  resources:
                    requests:
                      storage: 1Gi
          """
              .formatted(n);
      case NO_SPACE ->
          """
          apiVersion: etcd.aenix.io/v1alpha1
          kind: EtcdCluster
          metadata:
            name: test
            namespace: default
          spec:
            replicas: %d
            options:
              quota-backend-bytes: "16777216"
          """
              .formatted(n);
      default ->
          """
          apiVersion: etcd.aenix.io/v1alpha1
          kind: EtcdCluster
          metadata:
            name: test
            namespace: default
          spec:
            replicas: %d
          """
              .formatted(n);
    };
  }

  /**
   * {@code examples/tls/}'s cluster named {@value #C}, without its security section: its Secrets
   * issued (as cert-manager would) and created, the cluster's YAML returned.
   */
  /**
   * {@code examples/tls/}'s cluster renamed {@value #C}, its Secrets issued, with peer TLS only
   * when {@code peerTls}, else no TLS: clients use http either way.
   */
  private String plaintextTlsExample(Path dir, boolean peerTls) throws Exception {
    Files.createDirectories(dir);
    Path example = dir.resolve("tls-example.yaml");
    Files.writeString(example, Files.readString(TlsE2EIT.EXAMPLE).replace("etcd-tls", C));
    CertManagerEmulation.of(example)
        .issueAll()
        .forEach((name, data) -> e2e.client().resource(TlsE2EIT.secret(name, data)).create());
    var serialization = e2e.client().getKubernetesSerialization();
    var cluster =
        serialization.unmarshal(
            E2E.document(example, "EtcdCluster"), io.etcdoperator.api.v1alpha1.EtcdCluster.class);
    cluster
        .getSpec()
        .setSecurity(
            peerTls
                ? serialization
                    .unmarshal(
                        CrashSafetyE2EIT.PEER_TLS.replace("etcd-tls", C),
                        io.etcdoperator.api.v1alpha1.EtcdClusterSpec.class)
                    .getSecurity()
                : null);
    return serialization.asYaml(cluster);
  }

  /** {@code examples/tls/}'s cluster renamed {@value #C}, its Secrets issued, its root client. */
  private void issueTls(Path dir) throws Exception {
    Files.createDirectories(dir);
    tlsExample = dir.resolve("tls-example.yaml");
    Files.writeString(tlsExample, Files.readString(TlsE2EIT.EXAMPLE).replace("etcd-tls", C));
    certs = CertManagerEmulation.of(tlsExample);
    secrets = certs.issueAll();
    root = TlsE2EIT.clientTls(secrets.get(C + "-client"), secrets.get(C + "-server"));
  }

  /** Awaits a roll: every pod replaced since {@code before} (uids), and the cluster converged. */
  private void awaitRolled(Map<String, String> before, String what) {
    awaitOrNote(
        () -> {
          Map<String, String> now = TlsE2EIT.restarts(cluster);
          return now.size() == 3
              && now.keySet().stream()
                  .allMatch(
                      p ->
                          !TlsE2EIT.uid(now.get(p))
                              .equals(TlsE2EIT.uid(before.getOrDefault(p, ""))))
              && cluster.converged(1, 3);
        },
        what + ": not every member restarted");
  }

  /**
   * A cluster made the way aenix's operator makes it, formed, with this operator stopped (as in
   * {@link AenixTakeoverE2EIT}).
   */
  private void aenixCluster() throws Exception {
    faults().stopOperator();
    var resource =
        e2e.client()
            .resource(
                AenixObjects.defaulted(
                    e2e.client()
                        .getKubernetesSerialization()
                        .unmarshal(
                            AenixExamplesE2EIT.etcdCluster("with-default-pdb"),
                            io.etcdoperator.api.v1alpha1.EtcdCluster.class)))
            .create();
    AenixObjects.create(e2e.client(), resource);
    await().atMost(SETTLE).until(() -> AenixTakeoverE2EIT.readyPods(cluster) == 3);
    AenixObjects.markExisting(e2e.client(), resource);
  }

  private Outcome run(Path dir) throws Exception {
    OperatorSettings settings =
        OperatorSettings.defaults().withQuorumLossAlarm(Duration.ofSeconds(30)).withCallHook(calls);
    Checker.Report report = null;
    Duration toReady = null;
    Path file = dir.resolve("history.json.gz");
    if (plan.action() == Action.CA_ROTATION) {
      issueTls(dir);
    }
    Optional<ClientTls> tls = Optional.ofNullable(root);
    try (E2E session = E2E.start(config(dir), settings);
        Cluster test = tls.isPresent() ? new Cluster(session, C, root) : new Cluster(session, C);
        Members members = new Members(C, tls)) {
      e2e = session;
      cluster = test;
      this.members = members;
      crasher = new Crasher(e2e.sandbox());
      calls.listen(crasher);
      if (plan.action() == Action.TAKEOVER) {
        aenixCluster();
      } else if (plan.action() == Action.CA_ROTATION) {
        secrets.forEach(
            (name, data) -> e2e.client().resource(TlsE2EIT.secret(name, data)).create());
        e2e.apply(E2E.document(tlsExample, "EtcdCluster"));
        test.awaitConverged(1, plan.action().members, SETTLE);
      } else {
        e2e.apply(
            plan.action() == Action.PEER_TLS || plan.action() == Action.PEER_TLS_OFF
                ? plaintextTlsExample(dir, plan.action() == Action.PEER_TLS_OFF)
                : manifest());
        test.awaitConverged(1, plan.action().members, SETTLE);
      }
      workload =
          (tls.isPresent()
                  ? Workload.builder(List.of(test.clientUrl())).tls(root)
                  : Workload.builder(List.of(test.clientUrl())))
              .seed(plan.seed())
              .rate(20)
              .maxDuration(Duration.ofMinutes(8))
              .start();
      workload.about("action", plan.describe());
      workload.about(
          "etcd versions",
          plan.action() == Action.UPGRADE
              ? tag(UpgradeE2EIT.V34) + "," + tag(UpgradeE2EIT.V35)
              : tag(UpgradeE2EIT.V35));
      Target target = null;
      try {
        awaitAnswers(workload, 100);
        long start = System.nanoTime();
        callsAtStart = calls.size();
        try (var action = workload.span("action " + plan.action().label())) {
          target = start(plan.action());
          for (int i = 0; i < plan.faults().size(); i++) {
            long due = start + plan.delaysMillis().get(i) * 1_000_000;
            long wait = due - System.nanoTime();
            if (wait > 0) {
              Thread.sleep(wait / 1_000_000);
            }
            Fault f = plan.faults().get(i);
            try (var fault = workload.span("fault " + f.label())) {
              inject(f);
            }
          }
          target = finish(plan.action(), target);
          try {
            final Target t = target;
            test.awaitConverged(t.generation(), t.members(), SETTLE);
            // Ready says every member is a healthy voter; a roll may still be under way
            await()
                .atMost(SETTLE)
                .pollInterval(Duration.ofMillis(50))
                .until(
                    () ->
                        test.converged(t.generation(), t.members())
                            && String.valueOf(e2e.condition(C, "Progressing"))
                                .startsWith("False/"));
            toReady = Duration.ofNanos(System.nanoTime() - start);
            if (plan.action() == Action.UPGRADE) {
              // etcd decides its cluster version a few seconds after the last member runs 3.5
              awaitOrNote(
                  () -> "3.5.0".equals(test.status().getClusterVersion()),
                  "cluster version not 3.5.0");
            }
            if (plan.action() == Action.ROLL
                || plan.action() == Action.UPGRADE
                || plan.action() == Action.TAKEOVER) {
              notes.add(
                  calls.labelsSince(callsAtStart).stream()
                          .filter(l -> l.startsWith("k8s delete Pod"))
                          .count()
                      + " pods restarted by the operator");
            }
          } catch (AssertionError | ConditionTimeoutException e) {
            problems.add(
                "not settled within "
                    + SETTLE.toSeconds()
                    + " s: "
                    + e.getMessage()
                    + "; Progressing "
                    + e2e.condition(C, "Progressing"));
          }
        }
        after(plan.action());
        if (plan.action() != Action.REBUILD) {
          awaitAnswers(workload, workload.answered() + 100);
        }
      } finally {
        History history = workload.stop();
        HistoryFile.write(history, file);
        report = check(history);
      }
      if (toReady != null) {
        report = report.with(sameData(members, target.members()));
        report = report.with(memberList(test, target));
      }
    }
    return new Outcome(plan, report, toReady, problems, notes, file);
  }

  /**
   * The history checked; a rebuilt cluster's for exactly the loss the rebuild documents, at the
   * revision its status reports ({@link Checker#checkRebuilt}).
   */
  private Checker.Report check(History history) {
    if (plan.action() != Action.REBUILD || optIn < 0) {
      return new Checker().check(history);
    }
    var rebuilt = e2e.status(C).getLastRebuild();
    if (rebuilt == null || rebuilt.getRevision() == null) {
      problems.add("no status.lastRebuild.revision after the opt-in");
      return new Checker().check(history);
    }
    notes.add("rebuilt from " + rebuilt.getSurvivor() + " at revision " + rebuilt.getRevision());
    Checker.Report report = new Checker().checkRebuilt(history, rebuilt.getRevision(), optIn);
    report.properties().stream()
        .filter(p -> p.name().equals(Checker.REBUILD_LOSS))
        .forEach(p -> notes.add("lost " + p.note()));
    return report;
  }

  /**
   * Both followers of the leader wiped, the operator away, each until its member panics on the
   * leader's heartbeat and is held down (as DurabilityE2EIT's case 6 does: the leader remembers how
   * far each follower's log went, so the empty one cannot take its data again silently); the
   * workload paused during each wipe, for under writes the leader's first message to a restarted
   * member is often an append it rejoins from. Then the operator reports MajorityDataLost, the
   * workload pauses for good, and the user opts in.
   */
  private Target majorityLostThenOptIn() throws Exception {
    String survivor = cluster.leader().orElseThrow();
    awaitQuietly(this::everyMemberAckedTheLeader, Duration.ofSeconds(20));
    List<String> followers = new ArrayList<>(cluster.podNames(false));
    followers.remove(survivor);
    faults().stopOperator();
    for (String p : followers) {
      workload.pause();
      try {
        wipeUntilPanicked(p, survivor);
      } finally {
        workload.resume();
      }
    }
    faults().startOperator();
    awaitOrNote(
        () -> "MajorityDataLost".equals(reason(e2e.condition(C, "Available"))),
        "no MajorityDataLost");
    workload.pause();
    optIn = workload.now();
    String uid = e2e.cluster(C).get().getMetadata().getUid();
    e2e.cluster(C)
        .edit(
            x -> {
              x.getMetadata().getAnnotations().put(Names.REBUILD_OPT_IN_ANNOTATION, uid);
              return x;
            });
    notes.add("followers " + followers + " wiped, survivor " + survivor);
    return new Target(1, 3);
  }

  private static String reason(String condition) {
    String c = String.valueOf(condition);
    return c.contains("/") ? c.substring(c.indexOf('/') + 1) : c;
  }

  /** Every member in the leader's term, its log as far as the leader's. */
  private boolean everyMemberAckedTheLeader() {
    Map<String, EtcdStatus> st = members.statuses(3);
    var leader = st.values().stream().filter(EtcdStatus::isLeader).findFirst();
    return leader.isPresent()
        && st.values().stream()
            .allMatch(
                x ->
                    x.reachable()
                        && x.raftTerm() == leader.get().raftTerm()
                        && x.raftIndex() >= leader.get().raftIndex()
                        && x.leaderId() == leader.get().memberId());
  }

  /** Wipes until the member panics and is held down, at most three times. */
  private void wipeUntilPanicked(String pod, String survivor) throws Exception {
    for (int attempt = 1; attempt <= 3; attempt++) {
      faults().wipe(E2E.NS, pod);
      Boolean panicked = null;
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (panicked == null && System.nanoTime() < until) {
        if (lastTermination(pod).contains("is out of range [lastIndex(")
            && waitingReason(pod).equals("CrashLoopBackOff")) {
          panicked = true;
        } else {
          Map<String, EtcdStatus> st = members.statuses(3);
          EtcdStatus self = st.get(pod);
          EtcdStatus leader = st.get(survivor);
          if (self != null
              && leader != null
              && self.reachable()
              && leader.reachable()
              && self.leaderId() == leader.memberId()
              && self.raftIndex() >= leader.raftIndex()) {
            panicked = false;
          } else {
            Thread.sleep(100);
          }
        }
      }
      if (Boolean.TRUE.equals(panicked)) {
        return;
      }
      notes.add(pod + " rejoined silently after wipe " + attempt);
    }
    problems.add(pod + " never panicked after 3 wipes");
  }

  private String lastTermination(String name) {
    var p = e2e.client().pods().inNamespace(E2E.NS).withName(name).get();
    if (p == null || p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
      return "";
    }
    return p.getStatus().getContainerStatuses().stream()
        .filter(cs -> cs.getLastState() != null && cs.getLastState().getTerminated() != null)
        .map(cs -> String.valueOf(cs.getLastState().getTerminated().getMessage()))
        .findFirst()
        .orElse("");
  }

  private String waitingReason(String name) {
    var p = e2e.client().pods().inNamespace(E2E.NS).withName(name).get();
    if (p == null || p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
      return "";
    }
    return p.getStatus().getContainerStatuses().stream()
        .filter(cs -> cs.getState() != null && cs.getState().getWaiting() != null)
        .map(cs -> String.valueOf(cs.getState().getWaiting().getReason()))
        .findFirst()
        .orElse("");
  }

  /** The version an image's tag names: {@code quay.io/coreos/etcd:v3.5.30} is 3.5.30. */
  private static String tag(String image) {
    return image.substring(image.lastIndexOf(':') + 2);
  }

  private void awaitAnswers(Workload workload, long n) {
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> workload.answered() >= n);
    } catch (ConditionTimeoutException e) {
      problems.add("the workload got fewer than " + n + " answers in 60 s");
    }
  }

  /** What the cluster must come to: the spec's generation, and how many members. */
  private record Target(long generation, int members) {}

  private Target start(Action action) throws Exception {
    return switch (action) {
      case SCALE_UP -> new Target(cluster.scale(5), 5);
      case SCALE_DOWN -> new Target(cluster.scale(3), 3);
      case ROLL -> new Target(cluster.patchSpec("{\"options\":{\"snapshot-count\":\"7000\"}}"), 3);
      case UPGRADE -> new Target(cluster.patchSpec(UpgradeE2EIT.image(UpgradeE2EIT.V35)), 3);
      case DEFRAGMENTATION ->
          new Target(
              cluster.patchSpec(
                  "{\"defragmentation\":{\"threshold\":{\"percent\":1,\"minReclaimable\":\"4Ki\"}}}"),
              3);
      case VOLUME_EXPANSION -> new Target(VolumeExpansionE2EIT.grow(cluster, "8Gi"), 3);
      case HIBERNATE -> new Target(cluster.scale(0), 0);
      case NODE_DRAIN -> {
        String pod = "test-1";
        actionNode = nodeOf(pod);
        notes.add("drained " + actionNode + " of " + pod);
        NodeFailureE2EIT.drain(e2e, actionNode, pod);
        yield new Target(1, 3);
      }
      case PEER_TLS ->
          new Target(
              cluster.patchSpec(
                  "{\"security\":{\"tls\":{\"peerTrustedCASecret\":\"test-peer-ca\","
                      + "\"peerSecret\":\"test-peer\"}}}"),
              3);
      case PEER_TLS_OFF -> new Target(cluster.patchSpec("{\"security\":null}"), 3);
      case NO_SPACE -> {
        int puts = workload.burst(400, 512 * 1024, "database space exceeded");
        burstEnd = workload.now();
        notes.add("NOSPACE after " + puts + " puts of 512 KiB");
        yield new Target(1, 3);
      }
      case BACKUP -> {
        e2e.client()
            .persistentVolumeClaims()
            .inNamespace(E2E.NS)
            .resource(
                new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder()
                    .withNewMetadata()
                    .withName("backup-claim")
                    .endMetadata()
                    .withNewSpec()
                    .withAccessModes("ReadWriteOnce")
                    .withNewResources()
                    .withRequests(
                        Map.of("storage", new io.fabric8.kubernetes.api.model.Quantity("1Gi")))
                    .endResources()
                    .endSpec()
                    .build())
            .create();
        e2e.client()
            .resource(
                e2e.client()
                    .getKubernetesSerialization()
                    .unmarshal(
                        """
                        apiVersion: etcd.aenix.io/v1alpha1
                        kind: EtcdBackup
                        metadata:
                          name: during
                          namespace: default
                        spec:
                          clusterRef:
                            name: test
                          destination:
                            pvc:
                              claimName: backup-claim
                        """,
                        io.etcdoperator.api.v1alpha1.EtcdBackup.class))
            .create();
        yield new Target(1, 3);
      }
      case CA_ROTATION -> {
        // 1. the peer CA Secret holds the old and the new CA: a roll
        byte[] oldCa = secrets.get(C + "-peer-ca").get("ca.crt");
        nextCa = certs.replaceCa(C + "-peer-ca");
        Map<String, byte[]> bundle = new LinkedHashMap<>(nextCa);
        bundle.put("ca.crt", TlsE2EIT.concat(oldCa, nextCa.get("ca.crt")));
        beforeRoll = TlsE2EIT.restarts(cluster);
        e2e.client().resource(TlsE2EIT.secret(C + "-peer-ca", bundle)).update();
        yield new Target(1, 3);
      }
      case TAKEOVER -> {
        faults().startOperator();
        yield new Target(1, 3);
      }
      case REBUILD -> majorityLostThenOptIn();
      case NODE_LOST -> {
        actionNode = nodeOf("test-1");
        memberIdBefore = cluster.memberIds().get("test-1");
        notes.add(actionNode + " of test-1 down");
        // Its data (local storage) is gone with its node until the member is replaced: it counts
        // as wiped, so that a WIPE drawn meanwhile does not take a second member's data (seed
        // 32001: node-lost + wipe left test-2 alone with data, rightly QuorumLost for good).
        wiped.add("test-1");
        faults().nodeDown(actionNode);
        yield new Target(1, 3);
      }
    };
  }

  /** The second half of an action, if it has one (hibernation's wake-up), or its sign of done. */
  private Target finish(Action action, Target target) throws Exception {
    if (action == Action.NODE_DRAIN) {
      awaitOrNote(
          () -> {
            var p = e2e.client().pods().inNamespace(E2E.NS).withName("test-1").get();
            return p != null
                && p.getSpec().getNodeName() != null
                && !p.getSpec().getNodeName().equals(actionNode);
          },
          "test-1 never left " + actionNode);
    }
    if (action == Action.NODE_LOST) {
      awaitOrNote(
          () -> !memberIdBefore.equals(cluster.memberIds().getOrDefault("test-1", memberIdBefore)),
          "test-1 never replaced");
      notes.add("test-1 replaced: " + memberIdBefore + " -> " + cluster.memberIds().get("test-1"));
    }
    if (action == Action.PEER_TLS || action == Action.PEER_TLS_OFF) {
      String scheme = action == Action.PEER_TLS ? "https" : "http";
      List<String> wanted =
          List.of(0, 1, 2).stream()
              .map(i -> io.etcdoperator.operator.model.Names.peerUrl(E2E.NS, C, i, scheme))
              .toList();
      awaitOrNote(
          () ->
              TlsE2EIT.peerUrls(cluster).equals(wanted)
                  && TlsE2EIT.everyPodRuns(
                      cluster, "--listen-peer-urls=" + scheme + "://[::]:2380"),
          "peers not all on " + scheme);
      notes.add(
          cluster.events().stream().filter(e -> e.contains(" MemberPeerUrlUpdated: ")).count()
              + " peer URL updates");
    }
    if (action == Action.CA_ROTATION) {
      awaitRolled(beforeRoll, "CA bundle");
      // 2. peer certificates of the new CA: no restart
      Map<String, byte[]> peer = certs.renew(C + "-peer");
      e2e.client().resource(TlsE2EIT.secret(C + "-peer", peer)).update();
      BigInteger serial = Pem.certificates(peer.get("tls.crt")).get(0).getSerialNumber();
      ClientTls asPeer =
          ClientTls.of(
              Pem.certificates(nextCa.get("ca.crt")),
              Optional.of(Pem.privateKey(peer.get("tls.key"))),
              Pem.certificates(peer.get("tls.crt")));
      awaitOrNote(
          () -> {
            for (int i = 0; i < 3; i++) {
              // by the pod's address: the cluster DNS leaves pod names to the links
              String address =
                  e2e.client()
                      .pods()
                      .inNamespace(E2E.NS)
                      .withName(C + "-" + i)
                      .get()
                      .getStatus()
                      .getPodIP();
              if (!TlsE2EIT.served(address, 2380, asPeer).equals(serial)) {
                return false;
              }
            }
            return cluster.converged(1, 3);
          },
          "new peer certificates: not served by every member");
      // 3. the old CA dropped: a roll
      Map<String, String> rolled = TlsE2EIT.restarts(cluster);
      e2e.client().resource(TlsE2EIT.secret(C + "-peer-ca", nextCa)).update();
      awaitRolled(rolled, "old CA dropped");
      notes.add("peer CA rotated in three steps");
    }
    if (action == Action.TAKEOVER) {
      // onto this operator's template, one member at a time (a pod a fault deleted comes back
      // on it too: the pods are counted, not the operator's deletions)
      awaitOrNote(
          () -> AenixTakeoverE2EIT.onOurTemplate(cluster),
          "not every member restarted onto this operator's template");
    }
    if (action == Action.NO_SPACE) {
      awaitOrNote(() -> workload.answeredWriteSince(burstEnd), "no write accepted after NOSPACE");
    }
    if (action == Action.BACKUP) {
      awaitOrNote(
          () -> {
            var b =
                e2e.client()
                    .resources(io.etcdoperator.api.v1alpha1.EtcdBackup.class)
                    .inNamespace(E2E.NS)
                    .withName("during")
                    .get();
            return b.getStatus() != null && "Complete".equals(b.getStatus().getPhase());
          },
          "the backup did not complete");
    }
    if (action == Action.VOLUME_EXPANSION) {
      awaitOrNote(
          () -> VolumeExpansionE2EIT.capacities(e2e, C).values().stream().allMatch("8Gi"::equals),
          "claims not all 8Gi");
    }
    if (action == Action.HIBERNATE) {
      cluster.awaitConverged(target.generation(), 0, SETTLE);
      return new Target(cluster.scale(3), 3);
    }
    if (action == Action.DEFRAGMENTATION) {
      int from = callsAtStart;
      awaitQuietly(
          () ->
              calls.labelsSince(from).stream().filter(l -> l.startsWith("etcd defragment")).count()
                  >= 3,
          Duration.ofSeconds(90));
      long defrags =
          calls.labelsSince(from).stream().filter(l -> l.startsWith("etcd defragment")).count();
      notes.add(defrags + " defragmentations");
      return new Target(cluster.patchSpec("{\"defragmentation\":null}"), 3);
    }
    return target;
  }

  /** Undoes what the action did to the world, once the cluster has settled. */
  private void after(Action action) {
    if (action == Action.NODE_DRAIN || action == Action.NODE_LOST) {
      String node = actionNode;
      if (action == Action.NODE_LOST) {
        faults().nodeUp(node);
      }
      // A merge patch, not an edit: the node's own heartbeat updates it meanwhile, and an edit
      // carries the resourceVersion it read (seed 31107 met the 409 Conflict).
      e2e.client()
          .nodes()
          .withName(node)
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":false}}");
    }
  }

  private String nodeOf(String pod) {
    return e2e.client().pods().inNamespace(E2E.NS).withName(pod).get().getSpec().getNodeName();
  }

  private Faults faults() {
    return e2e.sandbox().faults();
  }

  /**
   * The member pods to split or bridge: those listed, or, while fewer than two are (pods being
   * recreated by a roll and a fault at once, seed 32262: a split then had no pod to put on one side
   * and threw), the action's members by ordinal: links are cut by pod name, so the cut holds for
   * the pods as they come back.
   */
  private List<String> members() {
    List<String> listed = new ArrayList<>(cluster.podNames(false));
    if (listed.size() >= 2) {
      return listed;
    }
    List<String> byOrdinal = new ArrayList<>();
    for (int i = 0; i < plan.action().members; i++) {
      byOrdinal.add(C + "-" + i);
    }
    return byOrdinal;
  }

  /**
   * A pod of the cluster, or, while none is listed (a majority just deleted, seed 32109: a
   * partition drawn then had no pod to cut off and threw), one by ordinal: the fault still hits a
   * member, as it would on a cluster.
   */
  private String somePod() {
    List<String> pods = cluster.podNames(false);
    return pods.isEmpty()
        ? C + "-" + random.nextInt(plan.action().members)
        : pods.get(random.nextInt(pods.size()));
  }

  private void inject(Fault fault) throws Exception {
    String pod = somePod();
    if (pod == null && fault.ordinal() <= Fault.WIPE.ordinal()) {
      notes.add(fault.label() + ": no pod");
      return;
    }
    try {
      switch (fault) {
        case KILL -> faults().kill(E2E.NS, pod, "etcd");
        case FREEZE -> {
          faults().freeze(E2E.NS, pod);
          awaitQuietly(
              () -> e2e.member(C, pod).map(m -> Boolean.FALSE.equals(m.getHealthy())).orElse(false),
              Duration.ofSeconds(10));
          faults().thaw(E2E.NS, pod);
        }
        case DELETE_POD -> faults().delete(E2E.NS, pod);
        case DELETE_MAJORITY -> {
          List<String> pods = new ArrayList<>(cluster.podNames(false));
          java.util.Collections.shuffle(pods, random);
          for (String p : pods.subList(0, Math.min(pods.size(), pods.size() / 2 + 1))) {
            faults().delete(E2E.NS, p);
          }
        }
        case WIPE -> {
          // At most a minority loses its data in one run: a majority wiped at once is the
          // MajorityDataLost case, which the operator reports and repairs only when asked (the
          // REBUILD action and DurabilityE2EIT test that). Seed 31530 drew two wipes of two
          // members 2 s apart, and the harness then waited for a cluster the operator rightly
          // left alone. A wipe that would be one too many hits an already wiped pod again.
          String target = pod;
          int members = cluster.podNames(false).size();
          if (!wiped.contains(pod) && wiped.size() + 1 > (members - 1) / 2 && !wiped.isEmpty()) {
            target = wiped.get(0);
            notes.add("wipe: " + pod + " spared, " + target + " wiped again (a minority only)");
          }
          wiped.add(target);
          faults().wipe(E2E.NS, target);
        }
        case OPERATOR_RESTART -> {
          faults().stopOperator();
          Thread.sleep(1000 + random.nextInt(3000));
          faults().startOperator();
        }
        case PARTITION_MEMBER -> partitioned(List.of(java.util.Set.of(pod)), "alone: " + pod);
        case PARTITION_LEADER -> {
          String leader = cluster.leader().orElse(pod);
          partitioned(List.of(java.util.Set.of(leader)), "leader alone: " + leader);
        }
        case SPLIT -> {
          List<String> pods = members();
          java.util.Collections.shuffle(pods, random);
          int minority = (pods.size() - 1) / 2;
          partitioned(
              List.of(
                  java.util.Set.copyOf(pods.subList(0, Math.max(1, minority))),
                  java.util.Set.copyOf(pods.subList(Math.max(1, minority), pods.size()))),
              "split "
                  + pods.subList(0, Math.max(1, minority))
                  + " | "
                  + pods.subList(Math.max(1, minority), pods.size()));
        }
        case BRIDGE -> {
          List<String> pods = members();
          java.util.Collections.shuffle(pods, random);
          if (pods.size() < 3) {
            notes.add("bridge: fewer than 3 members");
            return;
          }
          partitioned(
              List.of(java.util.Set.of(pods.get(0)), java.util.Set.of(pods.get(1))),
              "bridge " + pods.get(2) + " between " + pods.get(0) + " and " + pods.get(1));
        }
        case DELAY_PEERS -> {
          Duration delay = Duration.ofMillis(50 + random.nextInt(200));
          List<String> others = new ArrayList<>(cluster.podNames(false));
          others.remove(pod);
          faults().delayPeers(E2E.NS, pod, others, delay);
          notes.add(pod + " delayed " + delay.toMillis() + " ms");
          Thread.sleep(3000 + random.nextInt(5000));
          faults().healPeers(E2E.NS);
        }
        case API_THROTTLE -> apiFault(() -> faults().apiThrottle(3, Duration.ofSeconds(1)), "429");
        case API_ERRORS -> apiFault(() -> faults().apiFail(3), "500");
        case API_SLOW -> {
          Duration delay = Duration.ofMillis(300 + random.nextInt(1200));
          apiFault(() -> faults().apiSlow(delay), "slow " + delay.toMillis() + " ms");
        }
        case API_WATCH_GONE -> notes.add(faults().apiWatchesGone() + " watches ended with 410");
        case OPERATOR_CRASH -> {
          crasher.arm(CallLog::destructive, 0);
          awaitQuietly(() -> crasher.fired() != null, Duration.ofSeconds(20));
          String fired = crasher.fired();
          notes.add(fired == null ? "no call to crash after" : "crashed after '" + fired + "'");
          if (fired != null) {
            crasher.awaitStopped(Duration.ofSeconds(30));
          }
          crasher.disarm();
          faults().startOperator();
        }
      }
    } catch (IllegalArgumentException e) {
      notes.add(fault.label() + " skipped: " + e.getMessage());
    }
  }

  /** An API server fault for the operator for 3 to 8 s, then healed. */
  private void apiFault(Runnable fault, String what) throws InterruptedException {
    fault.run();
    notes.add("API " + what);
    try {
      Thread.sleep(3000 + random.nextInt(5000));
    } finally {
      faults().apiHeal();
    }
  }

  /** Cuts the sides off from each other for 3 to 8 s, then heals. */
  private void partitioned(List<java.util.Set<String>> sides, String what)
      throws InterruptedException {
    faults().partitionPeers(E2E.NS, sides);
    notes.add(what);
    try {
      Thread.sleep(3000 + random.nextInt(5000));
    } finally {
      faults().healPeers(E2E.NS);
    }
  }

  private void awaitOrNote(Callable<Boolean> done, String otherwise) {
    try {
      await().atMost(SETTLE).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(done);
    } catch (ConditionTimeoutException e) {
      problems.add(otherwise + " within " + SETTLE.toSeconds() + " s");
    }
  }

  private static void awaitQuietly(Callable<Boolean> condition, Duration atMost) {
    try {
      await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(condition);
    } catch (ConditionTimeoutException e) {
      // the caller says what it saw
    }
  }

  private static Checker.Property sameData(Members members, int n) {
    if (n == 0) {
      return new Checker.Property(SAME_DATA, 0, List.of(), "no member");
    }
    Map<String, Long> hashes = members.hashes(n);
    boolean same = hashes.size() == n && hashes.values().stream().distinct().count() == 1;
    return new Checker.Property(
        SAME_DATA,
        hashes.size(),
        same ? List.of() : List.of(Violation.of(SAME_DATA, "HashKV per member: " + hashes)),
        "");
  }

  /** Observed generation and the Ready condition, as the member-list check saw them. */
  private static String statusLine(Cluster test) {
    var s = test.status();
    if (s == null) {
      return "none";
    }
    return "observedGeneration="
        + s.getObservedGeneration()
        + " Ready="
        + E2E.condition(s, "Ready")
            .map(c -> c.getStatus() + "/" + c.getReason() + " (" + c.getMessage() + ")")
            .orElse("absent");
  }

  /**
   * The member list at the end, once the workload stopped: given up to a minute to settle, since
   * the last of the workload's writes may have started work the operator is still doing (a NOSPACE
   * that the workload's own writes raised again under the no-space action's small quota is
   * recovered member by member).
   */
  private static Checker.Property memberList(Cluster test, Target target) {
    boolean ok;
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> test.converged(target.generation(), target.members()));
      ok = true;
    } catch (ConditionTimeoutException e) {
      ok = false;
    }
    return new Checker.Property(
        MEMBER_LIST,
        target.members(),
        ok
            ? List.of()
            : List.of(
                Violation.of(
                    MEMBER_LIST,
                    "etcd lists "
                        + test.memberList().map(Object::toString).orElse("nothing")
                        + ", the spec asks for "
                        + target.members()
                        + " at generation "
                        + target.generation()
                        + "; status "
                        + statusLine(test)
                        + "; pods "
                        + test.podNames(true))),
        "");
  }
}
