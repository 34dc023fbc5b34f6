package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator cut off from every member (sandbox fault {@code partition}: its calls to the members
 * time out, while peers and the kubelet's probes still reach them, as when the operator runs
 * outside the pod network or a NetworkPolicy stops it) while the podTemplate changes: for 15 s (30
 * reconciles at the pending pace of 0.5 s) no pod is deleted, no member removed or added, and
 * status names the members it cannot reach (CannotReachMembers; Ready is Unknown, as no member
 * answers the operator). Healed, the roll goes one pod at a time, and the writer (which reaches the
 * members through the client Service the whole time) lost nothing.
 */
class PartitionE2EIT {
  static final Duration STEP = Duration.ofMinutes(2);

  @TempDir Path dir;

  @Test
  void membersOutOfTheOperatorsSightAreNotTouchedUntilItSeesThemAgain() throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(10));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster c = new Cluster(e2e, "test")) {
      e2e.apply(Cluster.THREE_MEMBERS);
      c.awaitConverged(1, 3, STEP);
      Map<String, String> ids = c.memberIds();
      try (RecordingWriter writer = c.writer(Duration.ofMinutes(4))) {
        List<String> pods = c.podNames(false);
        writer.mark("partition every member from the operator");
        for (String pod : pods) {
          e2e.sandbox().faults().partition(E2E.NS, pod);
        }
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> ready(c).endsWith("/CannotReachMembers"));
        Map<String, String> uids = uids(c);
        int from = calls.size();
        long generation =
            c.patchSpec("{\"podTemplate\":{\"metadata\":{\"annotations\":{\"changed\":\"yes\"}}}}");
        writer.mark("podTemplate changed while partitioned");
        await()
            .during(Duration.ofSeconds(15))
            .atMost(Duration.ofSeconds(30))
            .until(() -> uids(c).equals(uids) && ready(c).endsWith("/CannotReachMembers"));
        List<String> during = calls.labelsSince(from);
        System.out.println("calls while partitioned: " + RollE2EIT.labels(calls, from));
        assertThat(during)
            .noneMatch(l -> l.startsWith("k8s delete Pod"))
            .noneMatch(l -> l.startsWith("etcd removeMember"))
            .noneMatch(l -> l.startsWith("etcd addLearner"))
            .noneMatch(l -> l.startsWith("k8s update StatefulSet"));
        String message = E2E.condition(c.status(), "Ready").orElseThrow().getMessage();
        System.out.println("while partitioned: " + message);
        assertThat(message).contains("test-0").contains("test-1").contains("test-2");

        writer.mark("heal");
        for (String pod : pods) {
          e2e.sandbox().faults().heal(E2E.NS, pod);
        }
        int healed = calls.size();
        Duration roll = c.awaitConverged(generation, 3, Duration.ofMinutes(3));
        c.awaitPodsAnnotated("changed", "yes", STEP);
        c.awaitConverged(generation, 3, STEP);
        List<String> deletions =
            calls.labelsSince(healed).stream().filter(l -> l.startsWith("k8s delete Pod")).toList();
        System.out.printf("healed: rolled in %d ms: %s%n", roll.toMillis(), deletions);
        assertThat(deletions).hasSize(3).doesNotHaveDuplicates();
        assertThat(c.memberIds()).isEqualTo(ids);
        writer.mark("done");
        WriterReport report = writer.report();
        System.out.println(report.summary());
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
        assertThat(report.altered()).isEmpty();
      }
    }
  }

  static String ready(Cluster c) {
    return E2E.condition(c.status(), "Ready")
        .map(r -> r.getStatus() + "/" + r.getReason())
        .orElse("");
  }

  static Map<String, String> uids(Cluster c) {
    Map<String, String> out = new TreeMap<>();
    c.pods().forEach(p -> out.put(p.getMetadata().getName(), p.getMetadata().getUid()));
    return out;
  }
}
