package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Volume expansion end to end, under a recording writer: a 3-member cluster on the sandbox's
 * default StorageClass (which allows expansion) grows from 4Gi to 8Gi: every claim is asked to grow
 * and reports the new capacity, the StatefulSet is recreated with its pods orphaned and adopted
 * again, and no pod restarts; member IDs are kept and 0 acknowledged writes are lost. A shrink is
 * refused naming the field and changes nothing; on a StorageClass without expansion a growth is
 * refused naming the class.
 */
class VolumeExpansionE2EIT {
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
        storage:
          volumeClaimTemplate:
            spec:
              accessModes: [ReadWriteOnce]
              resources:
                requests:
                  storage: 4Gi
      """;

  static final String FIXED =
      """
      apiVersion: etcd.aenix.io/v1alpha1
      kind: EtcdCluster
      metadata:
        name: fixed
        namespace: default
      spec:
        replicas: 1
        storage:
          volumeClaimTemplate:
            spec:
              storageClassName: fixed
              accessModes: [ReadWriteOnce]
              resources:
                requests:
                  storage: 1Gi
      """;

  @Test
  void claimsGrowWithoutARestartAndShrinkingIsRefused() throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(10));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster test = new Cluster(e2e, "test");
        Cluster fixed = new Cluster(e2e, "fixed")) {
      e2e.client()
          .storage()
          .v1()
          .storageClasses()
          .resource(
              new StorageClassBuilder()
                  .withNewMetadata()
                  .withName("fixed")
                  .endMetadata()
                  .withProvisioner("sandbox.etcd-operator.io/directory")
                  .withAllowVolumeExpansion(false)
                  .build())
          .create();
      e2e.apply(CLUSTER);
      e2e.apply(FIXED);
      test.awaitConverged(1, 3, STEP);
      fixed.awaitConverged(1, 1, STEP);
      Map<String, String> ids = test.memberIds();
      Map<String, String> pods = podUids(test);
      assertThat(capacities(e2e, "test"))
          .containsOnlyKeys(claimNames())
          .allSatisfy((k, v) -> assertThat(v).isEqualTo("4Gi"));

      try (RecordingWriter writer = test.writer(Duration.ofMinutes(4))) {
        int from = calls.size();
        writer.mark("4Gi -> 8Gi");
        long start = System.nanoTime();
        long generation = grow(test, "8Gi");
        await()
            .atMost(STEP)
            .until(
                () ->
                    capacities(e2e, "test").values().stream().allMatch("8Gi"::equals)
                        && "8Gi".equals(templateSize(e2e))
                        && test.converged(generation, 3));
        System.out.printf(
            "expansion 4Gi -> 8Gi of 3 claims: %d ms%n", (System.nanoTime() - start) / 1_000_000);
        List<String> labels = calls.since(from).stream().map(CallLog.Call::label).toList();
        System.out.println("  " + labels.stream().filter(l -> l.startsWith("k8s")).toList());
        assertThat(labels)
            .containsSubsequence(
                "k8s patch PersistentVolumeClaim data-test-0",
                "k8s patch PersistentVolumeClaim data-test-1",
                "k8s patch PersistentVolumeClaim data-test-2",
                "k8s delete StatefulSet test",
                "k8s create StatefulSet test")
            .noneMatch(l -> l.startsWith("k8s delete Pod") || l.startsWith("etcd "));
        assertThat(podUids(test)).as("no pod restarted").isEqualTo(pods);
        assertThat(test.memberIds()).isEqualTo(ids);
        assertThat(test.events()).filteredOn(e -> e.startsWith("Normal ClaimResized")).hasSize(3);
        assertThat(test.events()).anyMatch(e -> e.startsWith("Normal StatefulSetRecreated"));

        // Shrinking is refused, naming the field; nothing changes.
        writer.mark("8Gi -> 2Gi refused");
        grow(test, "2Gi");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    String.valueOf(e2e.condition("test", "Ready")).contains("VolumeShrinkRefused"));
        assertThat(E2E.condition(test.status(), "Ready").orElseThrow().getMessage())
            .contains("spec.storage.volumeClaimTemplate.spec.resources.requests.storage")
            .contains("cannot shrink");
        assertThat(E2E.condition(test.status(), "Available").orElseThrow().getStatus())
            .isEqualTo("True");
        assertThat(capacities(e2e, "test").values()).containsOnly("8Gi");
        assertThat(templateSize(e2e)).isEqualTo("8Gi");
        long back = grow(test, "8Gi");
        test.awaitConverged(back, 3, STEP);

        WriterReport report = writer.report();
        System.out.println(report.summary());
        report.gapsByMark().forEach(g -> System.out.println("  " + MembershipE2EIT.gap(g)));
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
        assertThat(report.altered()).isEmpty();
      }
      assertThat(podUids(test)).isEqualTo(pods);

      // A class without expansion: refused, naming the class and what to do.
      grow(fixed, "2Gi");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  String.valueOf(e2e.condition("fixed", "Ready"))
                      .contains("VolumeExpansionRefused"));
      assertThat(E2E.condition(fixed.status(), "Ready").orElseThrow().getMessage())
          .contains("StorageClass fixed does not allow volume expansion")
          .contains("spec.storage.volumeClaimTemplate.spec.resources.requests.storage");
      assertThat(capacities(e2e, "fixed").values()).containsOnly("1Gi");
    }
  }

  static List<String> claimNames() {
    return List.of("data-test-0", "data-test-1", "data-test-2");
  }

  static long grow(Cluster c, String size) {
    return c.patchSpec(
        "{\"storage\":{\"volumeClaimTemplate\":{\"spec\":{\"resources\":{\"requests\":{\"storage\":\""
            + size
            + "\"}}}}}}");
  }

  /** Each claim's reported capacity. */
  static Map<String, String> capacities(E2E e2e, String cluster) {
    Map<String, String> out = new TreeMap<>();
    for (PersistentVolumeClaim c :
        e2e.client()
            .persistentVolumeClaims()
            .inNamespace(E2E.NS)
            .withLabel(Names.LABEL_INSTANCE, cluster)
            .list()
            .getItems()) {
      Quantity q =
          c.getStatus() == null || c.getStatus().getCapacity() == null
              ? null
              : c.getStatus().getCapacity().get("storage");
      out.put(c.getMetadata().getName(), q == null ? "" : q.toString());
    }
    return out;
  }

  static String templateSize(E2E e2e) {
    StatefulSet s = e2e.client().apps().statefulSets().inNamespace(E2E.NS).withName("test").get();
    if (s == null || s.getMetadata().getDeletionTimestamp() != null) {
      return "";
    }
    return s.getSpec()
        .getVolumeClaimTemplates()
        .get(0)
        .getSpec()
        .getResources()
        .getRequests()
        .get("storage")
        .toString();
  }

  static Map<String, String> podUids(Cluster c) {
    Map<String, String> out = new TreeMap<>();
    for (Pod p : c.pods()) {
      out.put(p.getMetadata().getName(), p.getMetadata().getUid());
    }
    return out;
  }
}
