package io.etcdoperator.e2e;

import static io.etcdoperator.e2e.NodeFailureE2EIT.CLUSTER;
import static io.etcdoperator.e2e.NodeFailureE2EIT.STEP;
import static io.etcdoperator.e2e.NodeFailureE2EIT.labels;
import static io.etcdoperator.e2e.NodeFailureE2EIT.nodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two of three nodes down (issue 18), with {@code replaceLostMemberAfter: 20s}: quorum is lost, so
 * nothing is removed, deleted or added past the wait, and both members come back with their data
 * when their nodes do; 0 acknowledged writes lost. Behind {@code -Plong} (about a minute); the
 * planner's table has the same case (PlannerTest: "two of three nodes lost").
 */
class NodeQuorumLossE2EIT {
  @TempDir Path dir;

  @Test
  void twoOfThreeNodesDownIsQuorumLostNothingReplacedAndBothComeBackWithTheirData()
      throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        NodeFailureE2EIT.threeNodes(dir)
            .withNodeTimings(Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofSeconds(1));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster test = new Cluster(e2e, "test")) {
      e2e.apply(CLUSTER);
      test.awaitConverged(1, 3, STEP);
      Map<String, String> ids = test.memberIds();
      Map<String, String> nodes = nodes(test);
      try (RecordingWriter writer = test.writer(Duration.ofMinutes(3))) {
        writer.mark("two nodes down");
        int from = calls.size();
        e2e.sandbox().faults().nodeDown(nodes.get("test-1"));
        e2e.sandbox().faults().nodeDown(nodes.get("test-2"));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> String.valueOf(e2e.condition("test", "Available")).contains("QuorumLost"));
        // Past the wait (20 s) and then some: still nothing removed, deleted or added.
        await()
            .during(Duration.ofSeconds(25))
            .atMost(Duration.ofSeconds(35))
            .until(() -> String.valueOf(e2e.condition("test", "Available")).contains("QuorumLost"));
        assertThat(labels(calls, from))
            .noneMatch(
                l ->
                    l.startsWith("etcd removeMember")
                        || l.startsWith("etcd addLearner")
                        || l.startsWith("k8s delete PersistentVolumeClaim"));
        writer.mark("both nodes up");
        e2e.sandbox().faults().nodeUp(nodes.get("test-1"));
        e2e.sandbox().faults().nodeUp(nodes.get("test-2"));
        test.awaitConverged(1, 3, STEP);
        assertThat(test.memberIds()).isEqualTo(ids);
        WriterReport report = writer.report();
        System.out.println(report.summary());
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
      }
    }
  }
}
