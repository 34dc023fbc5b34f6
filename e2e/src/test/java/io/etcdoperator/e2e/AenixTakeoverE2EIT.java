package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running 3-member cluster made the way aenix-io/etcd-operator makes it ({@link AenixObjects}:
 * its StatefulSet, cluster-state ConfigMap, Services and {@code data-test-<i>} claims, etcd peers
 * on {@code --peer-auto-tls}) is taken over by this operator, under a writer: aenix's example
 * {@code etcdcluster-persistent.yaml} applied unchanged while this operator is stopped, aenix's
 * objects created and its cluster formed, then this operator started. It reads the members before
 * it changes anything, then restarts them one at a time onto its own template (peers stay on etcd's
 * auto TLS: their recorded URLs are https), quorum kept: the same member and cluster IDs, the same
 * claims, and no acknowledged write lost.
 */
class AenixTakeoverE2EIT {
  static final Duration STEP = Duration.ofMinutes(2);

  @TempDir Path dir;

  @Test
  void aRunningAenixClusterIsTakenOverOneMemberAtATime() throws Exception {
    CallLog calls = new CallLog();
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(10));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults().withCallHook(calls));
        Cluster c = new Cluster(e2e, "test")) {
      // aenix's operator runs the cluster; this one is not there yet.
      e2e.sandbox().faults().stopOperator();
      EtcdCluster cluster =
          e2e.client()
              .resource(
                  AenixObjects.defaulted(
                      e2e.client()
                          .getKubernetesSerialization()
                          .unmarshal(
                              AenixExamplesE2EIT.etcdCluster("with-default-pdb"),
                              EtcdCluster.class)))
              .create();
      AenixObjects.create(e2e.client(), cluster);
      await().atMost(STEP).until(() -> readyPods(c) == 3);
      AenixObjects.markExisting(e2e.client(), cluster);
      Map<String, String> ids = c.memberIds();
      String clusterId = c.clusterId();
      Map<String, String> claims = c.claims();
      System.out.println("aenix's cluster: members " + ids + ", cluster " + clusterId);
      assertThat(ids).containsOnlyKeys("test-0", "test-1", "test-2");
      assertThat(claims).containsOnlyKeys("data-test-0", "data-test-1", "data-test-2");
      assertThat(c.memberList().orElseThrow().members())
          .allMatch(m -> m.peerUrls().stream().allMatch(u -> u.startsWith("https://")));

      try (RecordingWriter writer = c.writer(Duration.ofMinutes(4))) {
        writer.mark("start this operator");
        int from = calls.size();
        // Every status the operator writes, in order (a watch sees each version).
        List<io.etcdoperator.api.v1alpha1.EtcdClusterStatus> statuses =
            new java.util.concurrent.CopyOnWriteArrayList<>();
        try (var watch =
            e2e.cluster("test")
                .watch(
                    new io.fabric8.kubernetes.client.Watcher<EtcdCluster>() {
                      @Override
                      public void eventReceived(Action action, EtcdCluster r) {
                        if (r.getStatus() != null && r.getStatus().getConditions() != null) {
                          statuses.add(r.getStatus());
                        }
                      }

                      @Override
                      public void onClose(io.fabric8.kubernetes.client.WatcherException e) {}
                    })) {
          e2e.sandbox().faults().startOperator();
          await().atMost(STEP).until(() -> !statuses.isEmpty());
        }
        // Nothing changes before the members were read: the first status the operator wrote
        // already names all three, and no destructive call came before that write.
        assertThat(membersRead(statuses.get(0).getMembers(), ids))
            .as("the first status names the members: " + statuses.get(0).getMembers())
            .isTrue();
        List<String> sinceStart = calls.labelsSince(from);
        int firstStatus = sinceStart.indexOf("k8s updateStatus EtcdCluster test");
        List<String> beforeRead =
            sinceStart.subList(0, firstStatus < 0 ? sinceStart.size() : firstStatus);
        System.out.println("calls before the first status: " + beforeRead);

        Duration took = c.awaitConverged(cluster.getMetadata().getGeneration(), 3, STEP);
        await().atMost(STEP).until(() -> onOurTemplate(c));
        c.awaitConverged(cluster.getMetadata().getGeneration(), 3, STEP);
        List<String> all = calls.labelsSince(from);
        List<String> deletions = all.stream().filter(l -> l.startsWith("k8s delete Pod")).toList();
        System.out.printf("taken over in %d ms; calls:%n", took.toMillis());
        calls.print(from, System.out::println);
        assertThat(beforeRead).noneMatch(CallLog::destructive);
        assertThat(deletions)
            .as("each member restarted once, one at a time")
            .containsExactlyInAnyOrder(
                "k8s delete Pod test-0", "k8s delete Pod test-1", "k8s delete Pod test-2");
        assertThat(all)
            .noneMatch(l -> l.startsWith("etcd removeMember") || l.startsWith("etcd addLearner"));
        assertThat(c.memberIds()).isEqualTo(ids);
        assertThat(c.clusterId()).isEqualTo(clusterId);
        assertThat(c.claims()).containsOnlyKeys(claims.keySet().toArray(String[]::new));
        assertThat(c.memberList().orElseThrow().members())
            .allMatch(m -> m.peerUrls().stream().allMatch(u -> u.startsWith("https://")));
        StatefulSet sts =
            e2e.client().apps().statefulSets().inNamespace(E2E.NS).withName("test").get();
        System.out.println("StatefulSet selector now: " + sts.getSpec().getSelector());
        // The unlabelled objects were adopted: the operator's own labels and hash are on them.
        assertThat(sts.getMetadata().getLabels())
            .containsEntry(Names.LABEL_MANAGED_BY, Names.MANAGER);
        assertThat(sts.getMetadata().getAnnotations()).containsKey(Names.DESIRED_HASH_ANNOTATION);
        var state =
            e2e.client().configMaps().inNamespace(E2E.NS).withName("test-cluster-state").get();
        assertThat(state.getMetadata().getLabels())
            .containsEntry(Names.LABEL_MANAGED_BY, Names.MANAGER);
        assertThat(state.getData()).containsEntry("ETCD_INITIAL_CLUSTER_STATE", "existing");
        assertThat(state.getMetadata().getAnnotations())
            .containsEntry(Names.CLUSTER_ID_ANNOTATION, clusterId);
        var pdb =
            e2e.client()
                .policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(E2E.NS)
                .withName("test")
                .get();
        assertThat(pdb.getMetadata().getLabels())
            .containsEntry(Names.LABEL_MANAGED_BY, Names.MANAGER);
        assertThat(c.claims().values())
            .as("claims marked with their members")
            .allMatch(id -> !id.isEmpty());
        assertThat(all).noneMatch(l -> l.startsWith("k8s create"));
        writer.mark("done");
        WriterReport report = writer.report();
        System.out.println(report.summary());
        assertThat(report.ok())
            .as("read back, nothing lost or changed: " + report.summary())
            .isTrue();
      }
    }
  }

  /**
   * An object of the cluster's name that is not the cluster's (no owner reference to it) is never
   * written: the write it would have had is reported as refused, naming it, and the object stays as
   * it was.
   */
  @Test
  void anObjectOfTheClustersNameThatIsNotItsOwnIsLeftAlone() throws Exception {
    try (E2E e2e = E2E.start(SandboxConfig.defaults(dir));
        Cluster c = new Cluster(e2e, "other")) {
      var foreign =
          new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
              .withNewMetadata()
              .withName("other-cluster-state")
              .withNamespace(E2E.NS)
              .endMetadata()
              .withData(Map.of("mine", "yes"))
              .build();
      e2e.client().resource(foreign).create();
      e2e.apply(Cluster.THREE_MEMBERS.replace("name: test", "name: other"));
      String message = awaitRefused(c);
      System.out.println("foreign ConfigMap: " + message);
      assertThat(message)
          .contains("ConfigMap other-cluster-state exists and is not this EtcdCluster's");
      assertThat(c.events()).anyMatch(e -> e.startsWith("Warning ApiRefused: "));
      var now = e2e.client().configMaps().inNamespace(E2E.NS).withName("other-cluster-state").get();
      assertThat(now.getData()).isEqualTo(Map.of("mine", "yes"));
      assertThat(now.getMetadata().getLabels()).isNullOrEmpty();
      assertThat(c.pods()).as("nothing started on a state that is not the cluster's").isEmpty();
    }
  }

  /**
   * A cluster deleted and applied again under its name: the earlier cluster's objects may still be
   * there for a moment, until the garbage collector takes them. Its cluster-state ConfigMap says
   * {@code existing}; taken for the new cluster's own, it made the new cluster wait for members it
   * never had, for good (seen in a full run, where the sandbox's collector came late). Here the
   * leftover's owner, another EtcdCluster, still exists, so the collector keeps it for as long as
   * the test wants: the new cluster leaves it alone and says so, and forms once it is gone.
   */
  @Test
  void aLeftoverOfAnEarlierClusterOfTheSameNameIsNotTakenForItsOwn() throws Exception {
    try (E2E e2e = E2E.start(SandboxConfig.defaults(dir));
        Cluster c = new Cluster(e2e, "again")) {
      e2e.apply(
          Cluster.THREE_MEMBERS
              .replace("name: test", "name: keeper")
              .replace("replicas: 3", "replicas: 0"));
      EtcdCluster keeper =
          await().atMost(STEP).until(() -> e2e.cluster("keeper").get(), k -> k != null);
      var leftover =
          new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
              .withNewMetadata()
              .withName(Names.clusterStateConfigMap("again"))
              .withNamespace(E2E.NS)
              .withLabels(Names.labels("again"))
              .addNewOwnerReference()
              .withApiVersion(keeper.getApiVersion())
              .withKind(keeper.getKind())
              .withName("keeper")
              .withUid(keeper.getMetadata().getUid())
              .endOwnerReference()
              .endMetadata()
              .withData(Map.of(Names.ENV_INITIAL_CLUSTER_STATE, "existing"))
              .build();
      String leftoverUid = e2e.client().resource(leftover).create().getMetadata().getUid();
      e2e.apply(Cluster.THREE_MEMBERS.replace("name: test", "name: again"));
      String message = awaitRefused(c);
      System.out.println("leftover ConfigMap: " + message);
      assertThat(message)
          .contains("ConfigMap again-cluster-state exists and is not this EtcdCluster's");
      assertThat(E2E.condition(c.status(), "Ready").orElseThrow().getReason())
          .isNotEqualTo("QuorumLost");
      var now = e2e.client().configMaps().inNamespace(E2E.NS).withName("again-cluster-state").get();
      assertThat(now.getMetadata().getUid()).as("not replaced").isEqualTo(leftoverUid);
      assertThat(now.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(r -> assertThat(r.getName()).isEqualTo("keeper"));
      assertThat(c.pods()).as("nothing started on an earlier cluster's state").isEmpty();

      e2e.client().resource(now).delete();
      c.awaitConverged(1, 3, STEP);
    }
  }

  /** Waits for Progressing to say a write was refused, and returns what it says. */
  private static String awaitRefused(Cluster c) {
    await()
        .atMost(STEP)
        .until(
            () ->
                E2E.condition(c.status(), "Progressing")
                    .map(p -> p.getReason().equals("ApiRefused"))
                    .orElse(false));
    return E2E.condition(c.status(), "Progressing").orElseThrow().getMessage();
  }

  static long readyPods(Cluster c) {
    return c.pods().stream().filter(AenixTakeoverE2EIT::ready).count();
  }

  static boolean ready(Pod p) {
    return io.fabric8.kubernetes.client.readiness.Readiness.isPodReady(p);
  }

  static boolean membersRead(
      List<io.etcdoperator.api.v1alpha1.MemberStatus> members, Map<String, String> ids) {
    return members != null
        && members.size() == ids.size()
        && members.stream().allMatch(m -> m.getId() != null && ids.containsValue(m.getId()));
  }

  /** Every pod made from this operator's template (it carries the template's hash). */
  static boolean onOurTemplate(Cluster c) {
    List<Pod> pods = c.pods();
    return pods.size() == 3
        && pods.stream()
            .allMatch(
                p ->
                    p.getMetadata().getAnnotations() != null
                        && p.getMetadata()
                            .getAnnotations()
                            .containsKey(Names.POD_TEMPLATE_HASH_ANNOTATION)
                        && p.getMetadata().getDeletionTimestamp() == null
                        && ready(p));
  }
}
