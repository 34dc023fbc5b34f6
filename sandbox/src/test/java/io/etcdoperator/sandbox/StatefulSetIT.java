package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.sandbox.kubelet.PodHandle;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetPersistentVolumeClaimRetentionPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The StatefulSet controller, volumes and DNS of the stand-in, with cheap shell containers. */
class StatefulSetIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static KubernetesClient k;

  @BeforeAll
  static void start() {
    sandbox = SandboxFixture.start(dir);
    k = sandbox.client();
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  private static StatefulSet sleeper(String name, int replicas) {
    StatefulSet s =
        Manifests.statefulSet(
            name, replicas, Manifests.shell("main", "echo started; exec sleep 3600"));
    s.getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .setVolumeMounts(
            List.of(
                new io.fabric8.kubernetes.api.model.VolumeMountBuilder()
                    .withName("data")
                    .withMountPath("/var/run/sandbox-it/data")
                    .build(),
                new io.fabric8.kubernetes.api.model.VolumeMountBuilder()
                    .withName("scratch")
                    .withMountPath("/var/run/sandbox-it/scratch")
                    .build()));
    s.getSpec()
        .getTemplate()
        .getSpec()
        .setVolumes(
            List.of(
                new VolumeBuilder()
                    .withName("scratch")
                    .withEmptyDir(new EmptyDirVolumeSource())
                    .build()));
    return s;
  }

  private static void create(StatefulSet s) {
    k.services().resource(Manifests.headless(s.getMetadata().getName())).create();
    k.apps().statefulSets().resource(s).create();
  }

  private static void awaitReady(String name, int replicas) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              StatefulSet s = k.apps().statefulSets().inNamespace("default").withName(name).get();
              assertThat(s.getStatus()).isNotNull();
              assertThat(s.getStatus().getReadyReplicas()).isEqualTo(replicas);
              assertThat(s.getStatus().getReplicas()).isEqualTo(replicas);
            });
  }

  private static Pod pod(String name) {
    return k.pods().inNamespace("default").withName(name).get();
  }

  @Test
  void deletedWithCascadeOrphanItsPodsStayAndASetOfTheSameNameAdoptsThem() {
    create(sleeper("orphans", 2));
    awaitReady("orphans", 2);
    String uid0 = pod("orphans-0").getMetadata().getUid();
    String uid1 = pod("orphans-1").getMetadata().getUid();
    k.apps()
        .statefulSets()
        .inNamespace("default")
        .withName("orphans")
        .withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.ORPHAN)
        .delete();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> k.apps().statefulSets().inNamespace("default").withName("orphans").get() == null);
    assertThat(pod("orphans-0").getMetadata().getOwnerReferences()).isEmpty();
    // The garbage collector does not take them (their owner reference is gone).
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> pod("orphans-0") != null && pod("orphans-1") != null);
    k.apps().statefulSets().resource(sleeper("orphans", 2)).create();
    StatefulSet adopter = k.apps().statefulSets().inNamespace("default").withName("orphans").get();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(pod("orphans-0").getMetadata().getOwnerReferences())
                    .anyMatch(r -> r.getUid().equals(adopter.getMetadata().getUid())));
    awaitReady("orphans", 2);
    assertThat(pod("orphans-0").getMetadata().getUid()).isEqualTo(uid0);
    assertThat(pod("orphans-1").getMetadata().getUid()).isEqualTo(uid1);
  }

  @Test
  void podsHaveOrdinalNamesAndClaimsFromTemplates() {
    create(sleeper("web", 3));
    awaitReady("web", 3);
    for (int i = 0; i < 3; i++) {
      Pod p = pod("web-" + i);
      assertThat(p.getSpec().getHostname()).isEqualTo("web-" + i);
      assertThat(p.getSpec().getSubdomain()).isEqualTo("web-headless");
      assertThat(p.getMetadata().getLabels())
          .containsEntry("statefulset.kubernetes.io/pod-name", "web-" + i);
      PersistentVolumeClaim c =
          k.persistentVolumeClaims().inNamespace("default").withName("data-web-" + i).get();
      assertThat(c.getStatus().getPhase()).isEqualTo("Bound");
    }
    StatefulSet s = k.apps().statefulSets().inNamespace("default").withName("web").get();
    assertThat(s.getStatus().getCurrentRevision()).isEqualTo(s.getStatus().getUpdateRevision());
    assertThat(s.getStatus().getObservedGeneration()).isEqualTo(s.getMetadata().getGeneration());
  }

  @Test
  void deletedPodComesBackWithSameNameSameClaimNewAddressAndDnsFollows() throws Exception {
    create(sleeper("mv", 2));
    awaitReady("mv", 2);
    Pod before = pod("mv-0");
    String claimUid =
        k.persistentVolumeClaims()
            .inNamespace("default")
            .withName("data-mv-0")
            .get()
            .getMetadata()
            .getUid();
    String name = "mv-0.mv-headless.default.svc";
    String oldIp = InetAddress.getByName(name).getHostAddress();
    assertThat(oldIp).isEqualTo(before.getStatus().getPodIP());
    Path data = sandbox.kubelet().pod("default", "mv-0").volume("data");
    Files.writeString(data.resolve("kept"), "yes");

    k.pods().inNamespace("default").withName("mv-0").delete();

    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              Pod after = pod("mv-0");
              assertThat(after).isNotNull();
              assertThat(after.getMetadata().getUid()).isNotEqualTo(before.getMetadata().getUid());
              assertThat(after.getStatus()).isNotNull();
              assertThat(after.getStatus().getPodIP()).isNotNull().isNotEqualTo(oldIp);
              assertThat(StatefulSetIT.ready(after)).isTrue();
            });
    Pod after = pod("mv-0");
    assertThat(
            k.persistentVolumeClaims()
                .inNamespace("default")
                .withName("data-mv-0")
                .get()
                .getMetadata()
                .getUid())
        .isEqualTo(claimUid);
    PodHandle h = sandbox.kubelet().pod("default", "mv-0");
    assertThat(h.volume("data")).isEqualTo(data);
    assertThat(
            h.exec("main", Duration.ofSeconds(5), "cat", "/var/run/sandbox-it/data/kept").output())
        .as(
            () -> {
              try {
                return h.exec(
                            "main",
                            Duration.ofSeconds(5),
                            "sh",
                            "-c",
                            "ls -la /var/run/sandbox-it/data; grep data /proc/self/mountinfo")
                        .output()
                    + " host "
                    + java.util.Arrays.toString(data.toFile().list());
              } catch (Exception e) {
                return e.toString();
              }
            })
        .isEqualTo("yes");
    // the JVM sees the new address
    assertThat(InetAddress.getByName(name).getHostAddress())
        .isEqualTo(after.getStatus().getPodIP());
    // and so does another pod, through its own /etc/hosts
    PodHandle other = sandbox.kubelet().pod("default", "mv-1");
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(
                        other.exec("main", Duration.ofSeconds(5), "getent", "hosts", name).output())
                    .startsWith(after.getStatus().getPodIP() + " "));
    assertThat(other.exec("main", Duration.ofSeconds(5), "hostname").output().strip())
        .isEqualTo("mv-1");
  }

  @Test
  void emptyDirDiesWithThePod() throws Exception {
    create(sleeper("tmp", 1));
    awaitReady("tmp", 1);
    PodHandle h = sandbox.kubelet().pod("default", "tmp-0");
    assertThat(
            h.exec(
                    "main",
                    Duration.ofSeconds(5),
                    "sh",
                    "-c",
                    "echo x > /var/run/sandbox-it/scratch/f && echo y > /var/run/sandbox-it/data/f")
                .exitCode())
        .isZero();
    Path oldScratch = h.volume("scratch");
    assertThat(oldScratch.resolve("f")).exists();
    String uid = h.uid();

    k.pods().inNamespace("default").withName("tmp-0").delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              PodHandle n = sandbox.kubelet().pod("default", "tmp-0");
              return n != null && !n.uid().equals(uid) && n.pid("main") > 0;
            });
    PodHandle n = sandbox.kubelet().pod("default", "tmp-0");
    assertThat(
            n.exec(
                    "main",
                    Duration.ofSeconds(5),
                    "sh",
                    "-c",
                    "ls /var/run/sandbox-it/scratch | wc -l; cat /var/run/sandbox-it/data/f")
                .output())
        .isEqualTo("0\ny\n");
    assertThat(oldScratch).doesNotExist();
  }

  @Test
  void scaleDownAndUpWithRetentionPolicy() {
    StatefulSet s = sleeper("ret", 3);
    s.getSpec()
        .setPersistentVolumeClaimRetentionPolicy(
            new StatefulSetPersistentVolumeClaimRetentionPolicyBuilder()
                .withWhenScaled("Delete")
                .withWhenDeleted("Retain")
                .build());
    create(s);
    awaitReady("ret", 3);
    k.apps().statefulSets().inNamespace("default").withName("ret").scale(1);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              assertThat(pod("ret-1")).isNull();
              assertThat(pod("ret-2")).isNull();
              assertThat(
                      k.persistentVolumeClaims()
                          .inNamespace("default")
                          .withName("data-ret-2")
                          .get())
                  .isNull();
              assertThat(
                      k.persistentVolumeClaims()
                          .inNamespace("default")
                          .withName("data-ret-1")
                          .get())
                  .isNull();
            });
    assertThat(k.persistentVolumeClaims().inNamespace("default").withName("data-ret-0").get())
        .isNotNull();
    k.apps().statefulSets().inNamespace("default").withName("ret").scale(2);
    awaitReady("ret", 2);
    // whenDeleted=Retain: deleting the set deletes pods, keeps claims
    k.apps().statefulSets().inNamespace("default").withName("ret").delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              assertThat(pod("ret-0")).isNull();
              assertThat(pod("ret-1")).isNull();
            });
    assertThat(k.persistentVolumeClaims().inNamespace("default").withName("data-ret-0").get())
        .isNotNull();
    assertThat(k.persistentVolumeClaims().inNamespace("default").withName("data-ret-1").get())
        .isNotNull();
  }

  @Test
  void retainOnScaleAndDeleteOnDelete() {
    StatefulSet s = sleeper("keep", 2);
    s.getSpec()
        .setPersistentVolumeClaimRetentionPolicy(
            new StatefulSetPersistentVolumeClaimRetentionPolicyBuilder()
                .withWhenScaled("Retain")
                .withWhenDeleted("Delete")
                .build());
    create(s);
    awaitReady("keep", 2);
    k.apps().statefulSets().inNamespace("default").withName("keep").scale(1);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> pod("keep-1") == null);
    assertThat(k.persistentVolumeClaims().inNamespace("default").withName("data-keep-1").get())
        .isNotNull();
    k.apps().statefulSets().inNamespace("default").withName("keep").delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              assertThat(pod("keep-0")).isNull();
              assertThat(
                      k.persistentVolumeClaims()
                          .inNamespace("default")
                          .withName("data-keep-0")
                          .get())
                  .isNull();
              assertThat(
                      k.persistentVolumeClaims()
                          .inNamespace("default")
                          .withName("data-keep-1")
                          .get())
                  .isNull();
            });
  }

  @Test
  void orderedReadyCreatesOneAtATimeAndRollingUpdateReplacesFromTheTop() {
    StatefulSet s = sleeper("ord", 3);
    s.getSpec().setPodManagementPolicy("OrderedReady");
    s.getSpec().getUpdateStrategy().setType("RollingUpdate");
    create(s);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () -> {
              Pod p0 = pod("ord-0");
              Pod p1 = pod("ord-1");
              if (p1 != null) {
                // ord-1 exists only once ord-0 is ready
                assertThat(ready(p0)).isTrue();
              }
              assertThat(pod("ord-2")).isNotNull();
            });
    awaitReady("ord", 3);
    String oldRevision =
        k.apps()
            .statefulSets()
            .inNamespace("default")
            .withName("ord")
            .get()
            .getStatus()
            .getUpdateRevision();
    k.apps()
        .statefulSets()
        .inNamespace("default")
        .withName("ord")
        .edit(
            x -> {
              x.getSpec().getTemplate().getMetadata().getLabels().put("version", "2");
              return x;
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              StatefulSet now =
                  k.apps().statefulSets().inNamespace("default").withName("ord").get();
              assertThat(now.getStatus().getUpdateRevision()).isNotEqualTo(oldRevision);
              assertThat(now.getStatus().getCurrentRevision())
                  .isEqualTo(now.getStatus().getUpdateRevision());
              assertThat(now.getStatus().getUpdatedReplicas()).isEqualTo(3);
              assertThat(now.getStatus().getReadyReplicas()).isEqualTo(3);
            });
    for (int i = 0; i < 3; i++) {
      assertThat(pod("ord-" + i).getMetadata().getLabels()).containsEntry("version", "2");
    }
  }

  static boolean ready(Pod p) {
    return p != null
        && p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
