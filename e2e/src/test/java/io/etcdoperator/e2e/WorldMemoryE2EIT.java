package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.OperatorSettings;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.WriterReport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's history comes from the world, not from the operator's own objects: each managed
 * object deleted behind the operator's back (the cluster-state ConfigMap, the StatefulSet with its
 * pods orphaned and with them, the headless Service, all of them at once), once while quorum holds
 * and once while two members are frozen (quorum lost), writer running. After each: no condition
 * ever said {@code Bootstrapping}, the ConfigMap says {@code existing} again (also while quorum is
 * still lost), the cluster and member IDs are those of before, and no acknowledged write is lost.
 * README's command runs two deletions each way: the StatefulSet with its pods, and all of them at
 * once (the ConfigMap, the StatefulSet with its pods orphaned and the headless Service); {@code
 * -Plong} (system property {@code long.all.cases}) also each of those three alone.
 */
class WorldMemoryE2EIT {
  static final String C = "test";
  static final Duration STEP = Duration.ofMinutes(2);

  @TempDir Path dir;

  /** Every condition reason the operator wrote, by watching the resource. */
  static final class Reasons implements AutoCloseable {
    final Set<String> seen = new ConcurrentSkipListSet<>();
    final Watch watch;

    Reasons(E2E e2e) {
      watch =
          e2e.cluster(C)
              .watch(
                  new Watcher<EtcdCluster>() {
                    @Override
                    public void eventReceived(Action action, EtcdCluster r) {
                      if (r.getStatus() != null) {
                        r.getStatus().getConditions().forEach(c -> seen.add(c.getReason()));
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  });
    }

    @Override
    public void close() {
      watch.close();
    }
  }

  /** What to delete, and the objects ("Kind/name") that must come back as new objects. */
  record Deletion(String name, List<Runnable> deletes, List<String> recreated) {}

  /** The UID of each managed object ("Kind/name"), and of each pod. */
  static Map<String, String> uids(E2E e2e) {
    var k = e2e.client();
    Map<String, String> uids = new java.util.TreeMap<>();
    var cm = k.configMaps().inNamespace(E2E.NS).withName(Names.clusterStateConfigMap(C)).get();
    var sts = k.apps().statefulSets().inNamespace(E2E.NS).withName(C).get();
    var svc = k.services().inNamespace(E2E.NS).withName(Names.headlessService(C)).get();
    if (cm != null) {
      uids.put("ConfigMap/" + Names.clusterStateConfigMap(C), cm.getMetadata().getUid());
    }
    if (sts != null) {
      uids.put("StatefulSet/" + C, sts.getMetadata().getUid());
    }
    if (svc != null) {
      uids.put("Service/" + Names.headlessService(C), svc.getMetadata().getUid());
    }
    for (var p : k.pods().inNamespace(E2E.NS).list().getItems()) {
      if (Names.ordinalOf(C, p.getMetadata().getName()) >= 0
          && p.getMetadata().getDeletionTimestamp() == null) {
        uids.put("Pod/" + p.getMetadata().getName(), p.getMetadata().getUid());
      }
    }
    return uids;
  }

  @Test
  void everyManagedObjectDeletedIsRecreatedAndTheClusterKeepsItsIdentity() throws Exception {
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(2))
            .withMaxGracePeriod(Duration.ofSeconds(5));
    try (E2E e2e = E2E.start(config, OperatorSettings.defaults());
        Cluster test = new Cluster(e2e, C)) {
      e2e.apply(Cluster.THREE_MEMBERS);
      test.awaitConverged(1, 3, STEP);
      String clusterId = test.clusterId();
      Map<String, String> ids = test.memberIds();
      var k = e2e.client();
      Runnable configMap =
          () ->
              k.configMaps().inNamespace(E2E.NS).withName(Names.clusterStateConfigMap(C)).delete();
      Runnable orphaning =
          () ->
              k.apps()
                  .statefulSets()
                  .inNamespace(E2E.NS)
                  .withName(C)
                  .withPropagationPolicy(DeletionPropagation.ORPHAN)
                  .delete();
      Runnable cascading =
          () ->
              k.apps()
                  .statefulSets()
                  .inNamespace(E2E.NS)
                  .withName(C)
                  .withPropagationPolicy(DeletionPropagation.BACKGROUND)
                  .delete();
      Runnable headless =
          () -> k.services().inNamespace(E2E.NS).withName(Names.headlessService(C)).delete();
      String cmKey = "ConfigMap/" + Names.clusterStateConfigMap(C);
      String stsKey = "StatefulSet/" + C;
      String svcKey = "Service/" + Names.headlessService(C);
      Deletion withPods =
          new Deletion(
              "the StatefulSet with its pods",
              List.of(cascading),
              List.of(stsKey, "Pod/test-0", "Pod/test-1", "Pod/test-2"));
      Deletion all =
          new Deletion(
              "all of them",
              List.of(configMap, orphaning, headless),
              List.of(cmKey, stsKey, svcKey));
      List<Deletion> deletions =
          Boolean.getBoolean("long.all.cases")
              ? List.of(
                  new Deletion("the ConfigMap", List.of(configMap), List.of(cmKey)),
                  new Deletion(
                      "the StatefulSet, pods orphaned", List.of(orphaning), List.of(stsKey)),
                  withPods,
                  new Deletion("the headless Service", List.of(headless), List.of(svcKey)),
                  all)
              : List.of(withPods, all);
      try (RecordingWriter writer = test.writer(Duration.ofMinutes(15));
          Reasons reasons = new Reasons(e2e)) {
        for (boolean quorumLost : List.of(false, true)) {
          for (Deletion d : deletions) {
            String what = d.name() + (quorumLost ? ", quorum lost" : ", quorum held");
            writer.mark("delete " + what);
            List<String> frozen = List.of();
            if (quorumLost) {
              String leader = test.leader().orElseThrow();
              frozen = test.podNames(false).stream().filter(p -> !p.equals(leader)).toList();
              frozen.forEach(p -> e2e.sandbox().faults().freeze(E2E.NS, p));
              await()
                  .atMost(Duration.ofSeconds(30))
                  .until(() -> "False/QuorumLost".equals(e2e.condition(C, "Available")));
            }
            Map<String, String> before = uids(e2e);
            d.deletes().forEach(Runnable::run);
            await(what + ": recreated")
                .atMost(Duration.ofSeconds(60))
                .conditionEvaluationListener(
                    c -> {
                      if (c.getRemainingTimeInMS() < 700) {
                        System.out.println(
                            what
                                + ": not recreated yet; objects "
                                + uids(e2e).keySet()
                                + "; Available "
                                + e2e.condition(C, "Available")
                                + ", Ready "
                                + e2e.condition(C, "Ready")
                                + ": "
                                + E2E.condition(test.status(), "Ready")
                                    .map(r -> r.getMessage())
                                    .orElse(""));
                      }
                    })
                .until(
                    () -> {
                      Map<String, String> now = uids(e2e);
                      return d.recreated().stream()
                          .allMatch(o -> now.containsKey(o) && !now.get(o).equals(before.get(o)));
                    });
            // The ConfigMap is back, and says existing, before quorum is (if it was lost).
            await(what + ": the ConfigMap says existing")
                .atMost(Duration.ofSeconds(30))
                .until(() -> existing(e2e));
            for (String p : frozen) {
              try {
                e2e.sandbox().faults().thaw(E2E.NS, p);
              } catch (IllegalArgumentException gone) {
                // its pod was deleted (and replaced): nothing to thaw
              }
            }
            long start = System.nanoTime();
            await(what + ": Ready again, the same members")
                .atMost(STEP)
                .ignoreExceptions()
                .pollInterval(Duration.ofMillis(100))
                .until(
                    () ->
                        test.converged(test.status().getObservedGeneration(), 3)
                            && test.memberIds().equals(ids)
                            && clusterId.equals(test.clusterId()));
            System.out.printf(
                "%s: Ready again, same cluster and members, %d ms after the objects came back%n",
                what, (System.nanoTime() - start) / 1_000_000);
            assertThat(existing(e2e)).as(what).isTrue();
            // Clients write again (through the client Service, to Ready pods) before the next.
            int acked = writer.acknowledgedCount();
            await(what + ": writes acknowledged again")
                .atMost(Duration.ofSeconds(60))
                .until(() -> writer.acknowledgedCount() > acked + 10);
            assertThat(reasons.seen).as(what).doesNotContain("Bootstrapping");
            assertThat(k.services().inNamespace(E2E.NS).withName(Names.headlessService(C)).get())
                .isNotNull();
          }
        }
        WriterReport report = writer.report();
        System.out.println(report.summary());
        report.unconfirmed().stream()
            .collect(
                java.util.stream.Collectors.groupingBy(
                    f -> f.endpoint() + " " + f.error(), java.util.stream.Collectors.counting()))
            .entrySet()
            .stream()
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
            .limit(8)
            .forEach(e -> System.out.println("  failed " + e.getValue() + "x: " + e.getKey()));
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
        assertThat(report.altered()).isEmpty();
      }
    }
  }

  static boolean existing(E2E e2e) {
    ConfigMap cm =
        e2e.client()
            .configMaps()
            .inNamespace(E2E.NS)
            .withName(Names.clusterStateConfigMap(C))
            .get();
    return cm != null
        && cm.getData() != null
        && "existing".equals(cm.getData().get(Names.ENV_INITIAL_CLUSTER_STATE));
  }
}
