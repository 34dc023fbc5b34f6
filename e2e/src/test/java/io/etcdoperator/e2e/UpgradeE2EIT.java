package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrades end to end, writer running: 3 members (then 5 with -Plong) from etcd 3.4.23 to 3.5.30,
 * one member at a time (followers from the highest ordinal, the leader last after leadership
 * moved), each restart only once every member is healthy, caught up and Ready. Afterwards every
 * member runs 3.5, the cluster version is 3.5, the member IDs are those of before, no acknowledged
 * write is lost and every member holds every key. On the way: 3.4 to 3.6 is refused and nothing
 * restarts; a downgrade below the cluster version is refused; an upgrade to a version whose image
 * cannot be pulled restarts one member only, and setting the image back recovers it.
 *
 * <p>Printed for the closing notes: the longest write gap per restarted member of each upgrade.
 */
class UpgradeE2EIT {
  static final String V34 = "quay.io/coreos/etcd:v3.4.23";
  static final String V35 = "quay.io/coreos/etcd:v3.5.30";
  static final String V36 = "quay.io/coreos/etcd:v3.6.0";

  /** A 3.5 image the sandbox cannot pull: it runs etcd images only. */
  static final String UNPULLABLE = "quay.io/coreos/not-there:v3.5.30";

  static final Duration STEP = Duration.ofMinutes(3);

  @TempDir Path dir;

  static String manifest(String name, int replicas, String image) {
    return """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdCluster
        metadata:
          name: %s
          namespace: default
        spec:
          replicas: %d
          podTemplate:
            spec:
              containers:
              - name: etcd
                image: %s
        """
        .formatted(name, replicas, image);
  }

  static String image(String image) {
    return "{\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"etcd\",\"image\":\""
        + image
        + "\"}]}}}";
  }

  @Test
  void upgradesOneMinorVersionAtATimeAndLosesNothing() throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(10));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls))) {
      try (Cluster three = new Cluster(e2e, "three")) {
        e2e.apply(manifest("three", 3, V34));
        three.awaitConverged(1, 3, STEP);
        assertVersions(three, "3.4.23", "3.4.0");
        Map<String, String> ids = three.memberIds();
        try (RecordingWriter writer = three.writer(Duration.ofMinutes(8))) {
          RollE2EIT.RollMarks marks = new RollE2EIT.RollMarks(writer);
          calls.listen(marks);

          refusedAndNothingRestarts(
              e2e, three, V36, "InvalidSpec", "is etcd 3.6, which this operator has never run");

          RollE2EIT.Roll up = upgrade(three, calls, marks, writer, 3, V35);
          assertVersions(three, "3.5.30", "3.5.0");
          assertThat(three.memberIds()).isEqualTo(ids);

          refusedAndNothingRestarts(
              e2e, three, V34, "UnsupportedVersionChange", "below the cluster version 3.5");

          unpullableImageRestartsOneMemberAndTheOldImageRecoversIt(e2e, three, calls);
          assertThat(three.memberIds()).isEqualTo(ids);
          calls.unlisten(marks);

          WriterReport report = writer.report();
          checkNothingLost(report, three, 3);
          printGaps(up, report);
        }
      }
      if (!Boolean.getBoolean("long.all.cases")) {
        return; // five members: the roll's order on five is RollE2EIT's; the upgrade again, -Plong
      }
      try (Cluster five = new Cluster(e2e, "five")) {
        e2e.apply(manifest("five", 5, V34));
        five.awaitConverged(1, 5, STEP);
        Map<String, String> ids = five.memberIds();
        try (RecordingWriter writer = five.writer(Duration.ofMinutes(6))) {
          RollE2EIT.RollMarks marks = new RollE2EIT.RollMarks(writer);
          calls.listen(marks);
          RollE2EIT.Roll up = upgrade(five, calls, marks, writer, 5, V35);
          calls.unlisten(marks);
          assertVersions(five, "3.5.30", "3.5.0");
          assertThat(five.memberIds()).isEqualTo(ids);
          WriterReport report = writer.report();
          checkNothingLost(report, five, 5);
          printGaps(up, report);
        }
      }
    }
  }

  /** Sets the image and waits for the upgrade to converge; checks the order of the restarts. */
  static RollE2EIT.Roll upgrade(
      Cluster c,
      CallLog calls,
      RollE2EIT.RollMarks marks,
      RecordingWriter writer,
      int members,
      String image) {
    String leader = c.leader().orElseThrow();
    marks.clear();
    int from = calls.size();
    writer.mark("upgrade " + members + " members to " + image);
    long generation = c.patchSpec(image(image));
    java.time.Duration took = c.awaitConverged(generation, members, STEP);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "3.5.0".equals(c.status().getClusterVersion()));
    java.time.Instant end = writer.mark("upgrade of " + members + " done");
    System.out.printf(
        "upgrade of %d members to %s (leader %s): converged in %d ms%n",
        members, image, leader, took.toMillis());
    System.out.println("  calls: " + RollE2EIT.labels(calls, from));
    List<WriterReport.Mark> m = List.copyOf(marks.marks);
    List<String> order = m.stream().map(WriterReport.Mark::label).toList();
    assertThat(order).hasSize(members + 1);
    assertThat(order.get(members - 1)).startsWith("etcd moveLeader " + leader + " -> ");
    assertThat(order.get(members)).isEqualTo("k8s delete Pod " + leader);
    return new RollE2EIT.Roll(members, leader, m, end);
  }

  /** The image is refused with a condition naming the field; no pod restarts meanwhile. */
  static void refusedAndNothingRestarts(E2E e2e, Cluster c, String image, String reason, String why)
      throws Exception {
    Map<String, String> uids = uids(c);
    String before = c.status().getMembers().get(0).getVersion();
    long generation = c.patchSpec(image(image));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              EtcdClusterStatus s = c.status();
              return s.getObservedGeneration() == generation
                  && ("False/" + reason).equals(e2e.condition(c.name(), "Ready"));
            });
    String message = E2E.condition(c.status(), "Ready").orElseThrow().getMessage();
    assertThat(message)
        .startsWith("spec.podTemplate.spec.containers[name=etcd].image: " + image)
        .contains(why);
    assertThat(E2E.condition(c.status(), "Available").orElseThrow().getStatus()).isEqualTo("True");
    // Several reconciles more: still nothing restarted, the StatefulSet keeps the old template.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> uids(c).equals(uids));
    assertThat(
            e2e.client()
                .apps()
                .statefulSets()
                .inNamespace(E2E.NS)
                .withName(c.name())
                .get()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getImage())
        .isNotEqualTo(image);
    System.out.printf("%s refused: %s%n", image, message);
    // Back to what the members run.
    String current = "quay.io/coreos/etcd:v" + before;
    long back = c.patchSpec(image(current));
    c.awaitConverged(back, c.podNames(false).size(), STEP);
  }

  /**
   * An image the registry does not have: the first restarted member's pod waits in
   * ErrImagePull/ImagePullBackOff; no second member is restarted while it is down; the image set
   * back to 3.5 recovers it.
   */
  static void unpullableImageRestartsOneMemberAndTheOldImageRecoversIt(
      E2E e2e, Cluster c, CallLog calls) throws Exception {
    int from = calls.size();
    c.patchSpec(image(UNPULLABLE));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                calls.since(from).stream().anyMatch(x -> x.label().startsWith("k8s delete Pod ")));
    String victim =
        calls.since(from).stream()
            .map(CallLog.Call::label)
            .filter(l -> l.startsWith("k8s delete Pod "))
            .findFirst()
            .orElseThrow()
            .substring("k8s delete Pod ".length());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                waitingReason(e2e, victim)
                    .map(r -> r.equals("ErrImagePull") || r.equals("ImagePullBackOff"))
                    .orElse(false));
    Map<String, String> uids = uids(c);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> waitingReason(e2e, victim).map("ImagePullBackOff"::equals).orElse(false));
    Pod pod = e2e.client().pods().inNamespace(E2E.NS).withName(victim).get();
    System.out.printf(
        "%s with %s: %s%n",
        victim, UNPULLABLE, pod.getStatus().getContainerStatuses().get(0).getState().getWaiting());
    await("no other member restarted while " + victim + " is down")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(8))
        .until(() -> uids(c).equals(uids));
    assertThat(
            calls.since(from).stream()
                .map(CallLog.Call::label)
                .filter(l -> l.startsWith("k8s delete Pod ") || l.startsWith("etcd moveLeader"))
                .toList())
        .containsExactly("k8s delete Pod " + victim);
    assertThat(e2e.condition(c.name(), "Ready")).isEqualTo("False/RollingUpdate");
    long back = c.patchSpec(image(V35));
    Duration recovered = c.awaitConverged(back, 3, STEP);
    System.out.printf(
        "image set back to %s: %s recovered in %d ms%n", V35, victim, recovered.toMillis());
    assertVersions(c, "3.5.30", "3.5.0");
  }

  static java.util.Optional<String> waitingReason(E2E e2e, String pod) {
    Pod p = e2e.client().pods().inNamespace(E2E.NS).withName(pod).get();
    if (p == null || p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
      return java.util.Optional.empty();
    }
    return p.getStatus().getContainerStatuses().stream()
        .filter(s -> s.getName().equals("etcd"))
        .map(ContainerStatus::getState)
        .filter(s -> s != null && s.getWaiting() != null)
        .map(s -> s.getWaiting().getReason())
        .findFirst();
  }

  static Map<String, String> uids(Cluster c) {
    return c.pods().stream()
        .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getUid()));
  }

  static void assertVersions(Cluster c, String server, String cluster) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              EtcdClusterStatus s = c.status();
              assertThat(s.getMembers()).extracting(MemberStatus::getVersion).containsOnly(server);
              assertThat(s.getClusterVersion()).isEqualTo(cluster);
            });
  }

  /** No acknowledged write lost, and every member holds every acknowledged key. */
  static void checkNothingLost(WriterReport report, Cluster c, int n) {
    System.out.println(report.summary());
    assertThat(report.verified()).isTrue();
    assertThat(report.lost()).isEmpty();
    assertThat(report.altered()).isEmpty();
    Set<String> acknowledged =
        report.acknowledged().stream().map(WriterReport.Write::key).collect(Collectors.toSet());
    try (Members members = new Members(c.name())) {
      for (int i = 0; i < n; i++) {
        int ordinal = i;
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(members.keys(ordinal, report.prefix(), true))
                        .as("keys on member %d", ordinal)
                        .containsAll(acknowledged));
      }
    }
  }

  static void printGaps(RollE2EIT.Roll up, WriterReport report) {
    System.out.printf(
        "upgrade of %d members, longest write gap per restarted member:%n", up.members());
    for (RollE2EIT.Restart r : up.restarts(report)) {
      System.out.printf(
          "  %s%s: %d ms%n",
          r.pod(),
          r.leader() ? " (leader, after leadership moved)" : "",
          r.longestGap().toMillis());
      assertThat(r.longestGap()).as(r.toString()).isLessThan(Duration.ofSeconds(5));
    }
  }
}
