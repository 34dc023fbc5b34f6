package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.AlarmMember;
import io.etcd.jetcd.maintenance.AlarmType;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upkeep end to end on one 3-member cluster with a 16 MiB quota and a fragmentation threshold, a
 * writer running throughout and nothing it was told was written lost:
 *
 * <ol>
 *   <li><b>Pause</b>: with {@code etcd.aenix.io/paused: "true"}, a scale to 4 does nothing (no pod,
 *       no member, for 10 s) while status says Paused; removed, the scale goes on.
 *   <li><b>Defragmentation under writes</b>: 6 MiB written then deleted and compacted leave every
 *       member's file mostly free pages; the threshold defragments each member, one at a time,
 *       followers first; each member's status records it; the writer's longest gap is printed.
 *   <li><b>NOSPACE</b>: one key overwritten with 512 KiB values until etcd refuses writes; the
 *       operator compacts, defragments member by member and disarms without a hand step, and writes
 *       are accepted again.
 * </ol>
 */
class MaintenanceE2EIT {
  @TempDir Path dir;

  static final String CLUSTER =
      """
      apiVersion: etcd.aenix.io/v1alpha1
      kind: EtcdCluster
      metadata:
        name: test
        namespace: default
      spec:
        replicas: 3
        options:
          quota-backend-bytes: "16777216"
        defragmentation:
          threshold:
            percent: 50
            minReclaimable: 2Mi
      """;

  static final Duration STEP = Duration.ofMinutes(2);

  @Test
  void pauseDefragmentationAndSpaceRecoveryWithoutAHandStep() throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(10));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster test = new Cluster(e2e, "test");
        Client etcd = Client.builder().endpoints(test.clientUrl()).build()) {
      e2e.apply(CLUSTER);
      test.awaitConverged(1, 3, STEP);
      String clusterId = test.clusterId();

      try (RecordingWriter writer = test.writer(Duration.ofMinutes(6))) {
        // 1. Pause: a scale to 4 waits; status is still observed and says so.
        writer.mark("paused");
        annotate(e2e, "true");
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> String.valueOf(e2e.condition("test", "Paused")).startsWith("True/"));
        int fromPause = calls.size();
        long generation = test.scale(4);
        await()
            .during(Duration.ofSeconds(10))
            .atMost(Duration.ofSeconds(15))
            .until(
                () ->
                    test.podNames(true).size() == 3
                        && test.memberIds().size() == 3
                        && test.status().getMembers().size() == 3);
        assertThat(calls.since(fromPause))
            .extracting(CallLog.Call::label)
            .noneMatch(l -> l.startsWith("etcd add") || l.contains("StatefulSet"));
        assertThat(E2E.condition(test.status(), "Progressing").orElseThrow().getMessage())
            .contains("paused by the annotation " + Names.PAUSED_ANNOTATION);
        writer.mark("resumed");
        annotate(e2e, null);
        Duration resumed = test.awaitConverged(generation, 4, STEP);
        System.out.printf("resumed: scaled 3 -> 4 in %d ms%n", resumed.toMillis());
        assertThat(test.events())
            .anyMatch(e -> e.startsWith("Normal Paused"))
            .anyMatch(e -> e.startsWith("Normal Resumed"));

        // 2. Defragmentation by the threshold, under writes.
        writer.mark("fragmented");
        ByteSequence big = ByteSequence.from(new byte[64 * 1024]);
        for (int i = 0; i < 96; i++) {
          etcd.getKVClient().put(key("frag-" + i), big).get(10, TimeUnit.SECONDS);
        }
        for (int i = 0; i < 96; i++) {
          etcd.getKVClient().delete(key("frag-" + i)).get(10, TimeUnit.SECONDS);
        }
        long revision =
            etcd.getKVClient()
                .get(key("frag-0"))
                .get(10, TimeUnit.SECONDS)
                .getHeader()
                .getRevision();
        etcd.getKVClient().compact(revision).get(10, TimeUnit.SECONDS);
        int fromDefrag = calls.size();
        long defragStart = System.nanoTime();
        await()
            .atMost(STEP)
            .until(
                () ->
                    test.status().getMembers().stream()
                        .allMatch(m -> m.getLastDefragmentation() != null));
        System.out.printf(
            "defragmentation of 4 members: %d ms after the compaction%n",
            (System.nanoTime() - defragStart) / 1_000_000);
        List<String> defrags =
            calls.since(fromDefrag).stream()
                .map(CallLog.Call::label)
                .filter(l -> l.startsWith("etcd defragment") || l.startsWith("etcd moveLeader"))
                .toList();
        System.out.println("  " + defrags);
        assertThat(defrags.stream().filter(l -> l.startsWith("etcd defragment")))
            .containsExactlyInAnyOrder(
                "etcd defragment test-0",
                "etcd defragment test-1",
                "etcd defragment test-2",
                "etcd defragment test-3");
        // The leader's turn comes last, after leadership moved off it.
        assertThat(defrags.get(defrags.size() - 2)).startsWith("etcd moveLeader");
        for (MemberStatus m : test.status().getMembers()) {
          assertThat(m.getLastDefragmentation().getError()).as(m.getName()).isNull();
          assertThat(m.getLastDefragmentation().getSizeAfter())
              .as(m.getName())
              .isLessThan(m.getLastDefragmentation().getSizeBefore());
        }
        assertThat(test.events()).filteredOn(e -> e.startsWith("Normal Defragmented")).hasSize(4);

        // 3. NOSPACE: filled until etcd refuses writes, recovered by the operator alone.
        writer.mark("NOSPACE");
        ByteSequence half = ByteSequence.from(new byte[512 * 1024]);
        int puts = 0;
        boolean refused = false;
        while (!refused && puts < 200) {
          try {
            etcd.getKVClient().put(key("fill"), half).get(10, TimeUnit.SECONDS);
            puts++;
          } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause().getMessage()).contains("database space exceeded");
            refused = true;
          }
        }
        assertThat(refused).as("NOSPACE within 200 puts of 512 KiB").isTrue();
        long noSpaceAt = System.nanoTime();
        System.out.printf("NOSPACE after %d puts of 512 KiB%n", puts);
        await()
            .atMost(STEP)
            .until(
                () ->
                    etcd
                        .getMaintenanceClient()
                        .listAlarms()
                        .get(5, TimeUnit.SECONDS)
                        .getAlarms()
                        .stream()
                        .map(AlarmMember::getAlarmType)
                        .noneMatch(AlarmType.NOSPACE::equals));
        etcd.getKVClient()
            .put(key("after"), ByteSequence.from("ok", StandardCharsets.UTF_8))
            .get(10, TimeUnit.SECONDS);
        System.out.printf(
            "NOSPACE recovered (disarmed, writes accepted) in %d ms%n",
            (System.nanoTime() - noSpaceAt) / 1_000_000);
        test.awaitConverged(generation, 4, STEP);
        assertThat(test.events())
            .anyMatch(e -> e.startsWith("Warning NoSpace"))
            .anyMatch(e -> e.startsWith("Normal Compacted"))
            .anyMatch(e -> e.startsWith("Normal AlarmDisarmed"))
            .anyMatch(e -> e.startsWith("Normal SpaceRecovered"));
        // Each transition told once (issue 14: bootstrap told BootstrapFinished twice), and no
        // alarm while the cluster formed: a member that answers before a majority does is a
        // cluster forming, not a quorum lost (Forming; it was QuorumLost then QuorumRegained).
        assertThat(test.events()).filteredOn(e -> e.contains("BootstrapFinished")).hasSize(1);
        assertThat(test.events()).noneMatch(e -> e.contains("QuorumLost"));
        assertThat(test.events()).noneMatch(e -> e.contains("QuorumRegained"));
        assertThat(test.events()).filteredOn(e -> e.contains("SpaceRecovered")).hasSize(1);
        assertThat(test.events()).noneMatch(e -> e.contains("healthy again"));
        assertThat(test.events())
            .filteredOn(e -> e.startsWith("Normal MemberHealthy: test-3"))
            .hasSizeLessThanOrEqualTo(1);
        assertThat(test.clusterId()).isEqualTo(clusterId);

        WriterReport report = writer.report();
        System.out.println(report.summary());
        report.gapsByMark().forEach(g -> System.out.println("  " + MembershipE2EIT.gap(g)));
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
        assertThat(report.altered()).isEmpty();
      }
    }
  }

  static ByteSequence key(String name) {
    return ByteSequence.from("/maintenance/" + name, StandardCharsets.UTF_8);
  }

  /** Sets (or, with null, removes) the pause annotation on the EtcdCluster. */
  static void annotate(E2E e2e, String value) {
    e2e.cluster("test")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + Names.PAUSED_ANNOTATION
                + "\":"
                + (value == null ? "null" : "\"" + value + "\"")
                + "}}}");
  }
}
