package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node failures end to end (issue 18), on the sandbox's three virtual nodes with short timings (a
 * node is NotReady 4 s after its last heartbeat, its pods evicted 3 s later), a 3-member cluster on
 * local volumes ({@code storageClassName: local}: each claim is bound to the node its pod first ran
 * on) with {@code replaceLostMemberAfter: 20s}, and a writer running throughout:
 *
 * <ol>
 *   <li>node-down, then node-up within the wait: the member's pod is evicted but stays Terminating
 *       while its node is away; back, it restarts on its data: same member IDs.
 *   <li>node-down past the wait: the member is removed from etcd, its claim and (forcibly) its pod
 *       deleted, and it joins again on another node as a new member; 3 voters again. The time from
 *       node-down to Ready is printed (the wait plus the replacement).
 *   <li>node-delete: the member on that node is replaced the same way.
 *   <li>(a second test) drain: the member's pod, evicted, cannot go back to its volume while the
 *       node is cordoned; it is replaced after the wait. (A third) on network storage, the drained
 *       member moves to another node with its data; a member whose node is down past the wait is
 *       replaced (its pod cannot leave the node, so its volume cannot follow).
 * </ol>
 *
 * 0 acknowledged writes lost throughout.
 */
class NodeFailureE2EIT {
  @TempDir Path dir;

  static final Duration STEP = Duration.ofMinutes(2);

  static final String CLUSTER =
      """
      apiVersion: etcd.aenix.io/v1alpha1
      kind: EtcdCluster
      metadata:
        name: test
        namespace: default
      spec:
        replicas: 3
        replaceLostMemberAfter: 20s
        storage:
          volumeClaimTemplate:
            spec:
              storageClassName: local
              accessModes: [ReadWriteOnce]
              resources:
                requests:
                  storage: 1Gi
      """;

  @Test
  void aLostNodesMemberWaitsThenIsReplacedAndOneBackInTimeKeepsItsData() throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        threeNodes(dir)
            .withNodeTimings(Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofSeconds(1));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster test = new Cluster(e2e, "test")) {
      e2e.apply(CLUSTER);
      test.awaitConverged(1, 3, STEP);
      Map<String, String> ids = test.memberIds();
      Map<String, String> nodes = nodes(test);
      assertThat(nodes.values()).as("one member per node").doesNotHaveDuplicates().hasSize(3);
      assertThat(test.status().getMembers())
          .allSatisfy(m -> assertThat(m.getNode()).isEqualTo(nodes.get(m.getName())));

      try (RecordingWriter writer = test.writer(Duration.ofMinutes(6))) {
        // 1. Down, and back before the wait is over: the same member, on its data.
        String node1 = nodes.get("test-1");
        writer.mark("node-down " + node1 + ", up within the wait");
        e2e.sandbox().faults().nodeDown(node1);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> member(test, "test-1").getNodeUnreachableSince() != null);
        assertThat(member(test, "test-1").getMessage())
            .contains("node " + node1 + " is unreachable")
            .contains("replaced after spec.replaceLostMemberAfter (20s)");
        // Evicted (its toleration ran out) but Terminating: its kubelet is away.
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> pod(test, "test-1").getMetadata().getDeletionTimestamp() != null);
        e2e.sandbox().faults().nodeUp(node1);
        test.awaitConverged(1, 3, STEP);
        assertThat(test.memberIds()).as("the same members").isEqualTo(ids);
        assertThat(test.events())
            .anyMatch(e -> e.startsWith("Warning MemberNodeUnreachable: test-1"))
            .anyMatch(e -> e.startsWith("Normal MemberNodeBack: test-1"));
        assertThat(labels(calls, 0)).noneMatch(l -> l.startsWith("etcd removeMember"));

        // 2. Down past the wait: replaced on another node as a new member.
        String node2 = nodes(test).get("test-2");
        int from = calls.size();
        writer.mark("node-down " + node2 + " past the wait");
        long down = System.nanoTime();
        e2e.sandbox().faults().nodeDown(node2);
        awaitOrSay(
            test,
            calls,
            from,
            () ->
                !ids.get("test-2").equals(test.memberIds().get("test-2")) && test.converged(1, 3));
        System.out.printf(
            "node-down %s to Ready with 3 healthy voters: %d ms (wait 20 s, grace 4 s)%n",
            node2, (System.nanoTime() - down) / 1_000_000);
        assertThat(labels(calls, from))
            .containsSubsequence(
                "etcd removeMember test-2",
                "k8s delete PersistentVolumeClaim data-test-2",
                "k8s delete Pod test-2",
                "etcd addLearner test-2",
                "etcd promoteLearner test-2");
        assertThat(nodes(test).get("test-2")).isNotEqualTo(node2);
        assertThat(test.memberIds().get("test-0")).isEqualTo(ids.get("test-0"));
        assertThat(test.memberIds().get("test-1")).isEqualTo(ids.get("test-1"));
        e2e.sandbox().faults().nodeUp(node2);

        // 3. A deleted node: its member is replaced too. test-2 now shares a node with another
        // member (node2 was NotReady when it was placed): delete a node that holds only one.
        Map<String, String> before = test.memberIds();
        Map<String, String> placed = nodes(test);
        String lone =
            placed.entrySet().stream()
                .filter(e -> placed.values().stream().filter(e.getValue()::equals).count() == 1)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow();
        String gone = placed.get(lone);
        from = calls.size();
        writer.mark("node-delete " + gone + " (" + lone + ")");
        long deleted = System.nanoTime();
        e2e.sandbox().faults().nodeDelete(gone);
        awaitOrSay(
            test,
            calls,
            from,
            () -> !before.get(lone).equals(test.memberIds().get(lone)) && test.converged(1, 3));
        System.out.printf(
            "node-delete %s (%s) to Ready with 3 healthy voters: %d ms%n",
            gone, lone, (System.nanoTime() - deleted) / 1_000_000);
        assertThat(labels(calls, from))
            .containsSubsequence("etcd removeMember " + lone, "etcd addLearner " + lone);
        assertThat(test.events()).anyMatch(e -> e.startsWith("Warning MembersShareNode"));

        WriterReport report = writer.report();
        report.gapsByMark().forEach(g -> System.out.println("  " + MembershipE2EIT.gap(g)));
        assertNothingLost(report);
      }
    }
  }

  /**
   * A drain ({@code kubectl drain} does the same two things: cordon the node, then evict its pods
   * through the Eviction API, which the operator's PodDisruptionBudget admits one at a time) of the
   * node of a member on a local volume: its pod, created again, cannot be scheduled back to its
   * data while the node is cordoned. Reported as such; past spec.replaceLostMemberAfter the member
   * is replaced on another node; uncordoned, nothing more happens. 0 acknowledged writes lost.
   */
  @Test
  void aDrainedNodesMemberOnALocalVolumeIsReplacedAfterTheWait() throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        threeNodes(dir)
            .withNodeTimings(Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofSeconds(1));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster test = new Cluster(e2e, "test")) {
      e2e.apply(CLUSTER);
      test.awaitConverged(1, 3, STEP);
      Map<String, String> ids = test.memberIds();
      String node = nodes(test).get("test-1");
      try (RecordingWriter writer = test.writer(Duration.ofMinutes(3))) {
        writer.mark("drain " + node);
        long drained = System.nanoTime();
        drain(e2e, node, "test-1");
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    member(test, "test-1").getMessage() != null
                        && member(test, "test-1").getMessage().contains("is cordoned"));
        assertThat(member(test, "test-1").getMessage())
            .contains("node " + node + " is cordoned (unschedulable) and holds its volume")
            .contains("replaced after spec.replaceLostMemberAfter (20s)");
        int from = 0;
        awaitOrSay(
            test,
            calls,
            from,
            () ->
                !ids.get("test-1").equals(test.memberIds().get("test-1")) && test.converged(1, 3));
        System.out.printf(
            "drain of %s (test-1 on a local volume) to Ready with 3 healthy voters: %d ms (wait"
                + " 20 s)%n",
            node, (System.nanoTime() - drained) / 1_000_000);
        assertThat(labels(calls, from))
            .containsSubsequence(
                "etcd removeMember test-1",
                "k8s delete PersistentVolumeClaim data-test-1",
                "etcd addLearner test-1",
                "etcd promoteLearner test-1");
        assertThat(nodes(test).get("test-1")).isNotEqualTo(node);
        assertThat(test.memberIds().get("test-0")).isEqualTo(ids.get("test-0"));
        assertThat(test.memberIds().get("test-2")).isEqualTo(ids.get("test-2"));
        assertThat(test.events())
            .anyMatch(e -> e.startsWith("Warning MemberNodeUnreachable: test-1"));

        // Uncordoned: nothing to do, the member stays where it is.
        int after = calls.size();
        e2e.client()
            .nodes()
            .withName(node)
            .edit(
                n -> {
                  n.getSpec().setUnschedulable(null);
                  return n;
                });
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(() -> test.converged(1, 3));
        assertThat(labels(calls, after))
            .noneMatch(l -> l.startsWith("etcd removeMember") || l.startsWith("k8s delete"));

        assertNothingLost(writer.report());
      }
    }
  }

  /**
   * The same drain of a member on network-attached storage ({@code standard}): its pod, evicted, is
   * scheduled on another node and its volume follows it; the member is back with its data under its
   * own ID, and nothing is removed or deleted by the operator. Then a node goes down past the wait:
   * its pod stays Terminating there and no other starts, so the volume cannot follow; the member is
   * replaced (removed from etcd first, its pod deleted forcibly, back as a new member).
   */
  @Test
  void onNetworkStorageADrainedMemberMovesWithItsDataAndOneOnALostNodeIsReplaced()
      throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        threeNodes(dir)
            .withNodeTimings(Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofSeconds(1));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster test = new Cluster(e2e, "test")) {
      e2e.apply(CLUSTER.replace("storageClassName: local", "storageClassName: standard"));
      test.awaitConverged(1, 3, STEP);
      Map<String, String> ids = test.memberIds();
      String node = nodes(test).get("test-1");
      try (RecordingWriter writer = test.writer(Duration.ofMinutes(4))) {
        writer.mark("drain " + node);
        long drained = System.nanoTime();
        drain(e2e, node, "test-1");
        awaitOrSay(
            test,
            calls,
            0,
            () -> {
              Map<String, String> placed = nodes(test);
              return placed.containsKey("test-1")
                  && !node.equals(placed.get("test-1"))
                  && test.converged(1, 3);
            });
        System.out.printf(
            "drain of %s (test-1 on network storage) to Ready on another node: %d ms%n",
            node, (System.nanoTime() - drained) / 1_000_000);
        assertThat(test.memberIds()).as("the same members, on their data").isEqualTo(ids);
        assertThat(labels(calls, 0))
            .noneMatch(
                l ->
                    l.startsWith("etcd removeMember")
                        || l.startsWith("etcd addLearner")
                        || l.startsWith("k8s delete PersistentVolumeClaim"));

        // A node down past the wait: the pod cannot move, the member is replaced.
        e2e.client()
            .nodes()
            .withName(node)
            .edit(
                n -> {
                  n.getSpec().setUnschedulable(false);
                  return n;
                });
        String lostNode = nodes(test).get("test-2");
        String before = test.memberIds().get("test-2");
        int from = calls.size();
        writer.mark("node-down " + lostNode + " past the wait");
        long down = System.nanoTime();
        e2e.sandbox().faults().nodeDown(lostNode);
        awaitOrSay(
            test,
            calls,
            from,
            () -> !before.equals(test.memberIds().get("test-2")) && test.converged(1, 3));
        System.out.printf(
            "node-down %s (test-2 on network storage) to Ready with 3 healthy voters: %d ms"
                + " (wait 20 s, node NotReady after 4 s)%n",
            lostNode, (System.nanoTime() - down) / 1_000_000);
        assertThat(labels(calls, from))
            .containsSubsequence(
                "etcd removeMember test-2",
                "k8s delete Pod test-2",
                "etcd addLearner test-2",
                "etcd promoteLearner test-2");
        assertThat(nodes(test).get("test-2")).isNotEqualTo(lostNode);
        e2e.sandbox().faults().nodeUp(lostNode);
        assertNothingLost(writer.report());
      }
    }
  }

  /** The sandbox these tests run: three nodes, short back-offs and grace periods. */
  static SandboxConfig threeNodes(Path dir) {
    return SandboxConfig.defaults(dir)
        .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
        .withMaxGracePeriod(Duration.ofSeconds(10))
        .withNodes(3);
  }

  /** Every acknowledged write read back, none lost or altered; the summary printed. */
  static void assertNothingLost(WriterReport report) {
    System.out.println(report.summary());
    assertThat(report.verified()).isTrue();
    assertThat(report.lost()).isEmpty();
    assertThat(report.altered()).isEmpty();
  }

  /**
   * What {@code kubectl drain} does to {@code pod}'s node: cordon it, then evict the pod through
   * the Eviction API (retried while the PodDisruptionBudget refuses it, as kubectl does).
   */
  static void drain(E2E e2e, String node, String pod) {
    e2e.client()
        .nodes()
        .withName(node)
        .edit(
            n -> {
              n.getSpec().setUnschedulable(true);
              return n;
            });
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> e2e.client().pods().inNamespace(E2E.NS).withName(pod).evict());
  }

  /** Awaits {@code done}; on a timeout, says what status, the pods and the calls were. */
  static void awaitOrSay(
      Cluster test, CallLog calls, int from, java.util.concurrent.Callable<Boolean> done) {
    try {
      await().atMost(STEP).until(done);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "not replaced: status "
              + test.status().getConditions()
              + " members "
              + test.status().getMembers()
              + "; pods "
              + test.pods().stream()
                  .map(
                      p ->
                          p.getMetadata().getName()
                              + " on "
                              + p.getSpec().getNodeName()
                              + (p.getMetadata().getDeletionTimestamp() != null ? " deleting" : "")
                              + " "
                              + p.getStatus().getPhase()
                              + " "
                              + p.getStatus().getConditions().stream()
                                  .map(
                                      c -> c.getType() + "=" + c.getStatus() + ":" + c.getMessage())
                                  .toList()
                              + " "
                              + (p.getStatus().getContainerStatuses() == null
                                  ? ""
                                  : p.getStatus().getContainerStatuses().stream()
                                      .map(c -> String.valueOf(c.getState()))
                                      .toList()))
                  .toList()
              + "; claims "
              + claimStates(test)
              + "; calls "
              + labels(calls, from)
              + "; events "
              + test.events(),
          e);
    }
  }

  static java.util.List<String> claimStates(Cluster test) {
    return test.e2eClient().persistentVolumeClaims().inNamespace(E2E.NS).list().getItems().stream()
        .map(
            c ->
                c.getMetadata().getName()
                    + " "
                    + (c.getStatus() == null ? "" : c.getStatus().getPhase())
                    + (c.getMetadata().getDeletionTimestamp() != null ? " deleting" : "")
                    + " "
                    + c.getMetadata().getAnnotations())
        .toList();
  }

  static java.util.List<String> labels(CallLog calls, int from) {
    return calls.since(from).stream().map(CallLog.Call::label).toList();
  }

  static io.etcdoperator.api.v1alpha1.MemberStatus member(Cluster c, String name) {
    return c.status().getMembers().stream()
        .filter(m -> name.equals(m.getName()))
        .findFirst()
        .orElseThrow();
  }

  static Pod pod(Cluster c, String name) {
    return c.pods().stream()
        .filter(p -> name.equals(p.getMetadata().getName()))
        .findFirst()
        .orElseThrow();
  }

  /** Each member pod's node. */
  static Map<String, String> nodes(Cluster c) {
    Map<String, String> out = new TreeMap<>();
    for (Pod p : c.pods()) {
      if (p.getSpec().getNodeName() != null && p.getMetadata().getDeletionTimestamp() == null) {
        out.put(p.getMetadata().getName(), p.getSpec().getNodeName());
      }
    }
    return out;
  }
}
