package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcdoperator.sandbox.kubelet.PodHandle;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults against a real 3-member etcd cluster: kill, freeze and thaw, delete, wipe; operator stop
 * and start.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultsIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static KubernetesClient k;
  static final AtomicInteger operatorStarts = new AtomicInteger();
  static final AtomicInteger operatorStops = new AtomicInteger();

  @BeforeAll
  static void start() {
    sandbox =
        Sandbox.start(
            SandboxFixture.fastConfig(dir),
            client -> {
              operatorStarts.incrementAndGet();
              return operatorStops::incrementAndGet;
            });
    k = sandbox.client();
    k.services().resource(Manifests.headless("etcd")).create();
    k.configMaps().resource(Manifests.clusterState("etcd", 3)).create();
    k.apps().statefulSets().resource(Manifests.etcd("etcd", 3)).create();
    awaitAllReady();
  }

  @AfterAll
  static void stop() {
    sandbox.close();
    assertThat(operatorStops.get()).isEqualTo(operatorStarts.get());
  }

  static void awaitAllReady() {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              for (int i = 0; i < 3; i++) {
                assertThat(StatefulSetIT.ready(pod("etcd-" + i)))
                    .as("etcd-" + i + " ready")
                    .isTrue();
              }
            });
  }

  static Pod pod(String name) {
    return k.pods().inNamespace("default").withName(name).get();
  }

  static int restarts(String name) {
    return pod(name).getStatus().getContainerStatuses().get(0).getRestartCount();
  }

  static boolean healthy(String pod) {
    try {
      HttpURLConnection c =
          (HttpURLConnection)
              URI.create("http://" + pod + ".etcd-headless.default.svc:2379/health")
                  .toURL()
                  .openConnection(Proxy.NO_PROXY);
      c.setConnectTimeout(1000);
      c.setReadTimeout(1000);
      return c.getResponseCode() == 200
          && new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8).contains("true");
    } catch (Exception e) {
      return false;
    }
  }

  static void putAndGet(String key) throws Exception {
    try (Client etcd =
        Client.builder().endpoints(Manifests.endpoints("etcd", 3).toArray(String[]::new)).build()) {
      ByteSequence k1 = ByteSequence.from(key, StandardCharsets.UTF_8);
      etcd.getKVClient()
          .put(k1, ByteSequence.from("v", StandardCharsets.UTF_8))
          .get(10, TimeUnit.SECONDS);
      assertThat(etcd.getKVClient().get(k1).get(10, TimeUnit.SECONDS).getCount()).isEqualTo(1);
    }
  }

  @Test
  @Order(1)
  void killRestartsTheContainerInTheSamePod() throws Exception {
    String uid = pod("etcd-1").getMetadata().getUid();
    int before = restarts("etcd-1");
    long pid = sandbox.kubelet().pod("default", "etcd-1").pid(null);
    sandbox.faults().kill("default", "etcd-1", null);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              assertThat(restarts("etcd-1")).isEqualTo(before + 1);
              assertThat(sandbox.kubelet().pod("default", "etcd-1").pid(null))
                  .isPositive()
                  .isNotEqualTo(pid);
            });
    assertThat(pod("etcd-1").getMetadata().getUid()).isEqualTo(uid);
    awaitAllReady();
    putAndGet("after-kill");
  }

  @Test
  @Order(2)
  void freezeStopsAnsweringAndThawResumes() throws Exception {
    PodHandle h = sandbox.kubelet().pod("default", "etcd-2");
    sandbox.faults().freeze("default", "etcd-2");
    Path stat = Path.of("/proc", String.valueOf(h.pid(null)), "stat");
    // The kernel delivers SIGSTOP asynchronously: the process shows 'T' (stopped) moments later.
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .untilAsserted(
            () -> {
              String s = Files.readString(stat);
              assertThat(s.substring(s.lastIndexOf(')') + 2).charAt(0)).isEqualTo('T');
            });
    assertThat(healthy("etcd-2")).isFalse();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !StatefulSetIT.ready(pod("etcd-2")));
    putAndGet("while-frozen");
    sandbox.faults().thaw("default", "etcd-2");
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> healthy("etcd-2"));
    awaitAllReady();
  }

  @Test
  @Order(4)
  void deleteRecreatesThePodWhichRejoinsWithItsData() throws Exception {
    Pod before = pod("etcd-0");
    sandbox.faults().delete("default", "etcd-0");
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              Pod after = pod("etcd-0");
              assertThat(after).isNotNull();
              assertThat(after.getMetadata().getUid()).isNotEqualTo(before.getMetadata().getUid());
              assertThat(StatefulSetIT.ready(after)).isTrue();
            });
    assertThat(pod("etcd-0").getStatus().getPodIP()).isNotEqualTo(before.getStatus().getPodIP());
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> healthy("etcd-0"));
    putAndGet("after-delete");
  }

  @Test
  @Order(5)
  void wipeEmptiesTheClaimAndRestartsTheContainer() throws Exception {
    PodHandle h = sandbox.kubelet().pod("default", "etcd-2");
    Path data = h.volume("data");
    assertThat(data.resolve("default.etcd/member")).isDirectory();
    Path oldWal = Files.list(data.resolve("default.etcd/member/wal")).findFirst().orElseThrow();
    int before = restarts("etcd-2");
    assertThat(sandbox.faults().wipe("default", "etcd-2")).containsExactly("data-etcd-2");
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> restarts("etcd-2") > before);
    assertThat(oldWal).doesNotExist();
    assertThat(sandbox.kubelet().pod("default", "etcd-2").uid()).isEqualTo(h.uid());
  }

  @Test
  @Order(6)
  void operatorStopsAndStartsAgain() throws Exception {
    int starts = operatorStarts.get();
    sandbox.faults().stopOperator();
    sandbox.faults().stopOperator();
    assertThat(operatorStops.get()).isEqualTo(starts);
    sandbox.faults().startOperator();
    sandbox.faults().startOperator();
    assertThat(operatorStarts.get()).isEqualTo(starts + 1);
  }

  @Test
  @Order(3)
  void aPartitionHidesAPodFromTheOperatorOnlyUntilHealed() throws Exception {
    awaitAllReady();
    sandbox.faults().partition("default", "etcd-1");
    long start = System.nanoTime();
    assertThat(healthy("etcd-1")).as("the JVM (the operator's side) reaches etcd-1").isFalse();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("the call timed out rather than being refused")
        .isGreaterThanOrEqualTo(Duration.ofMillis(900));
    assertThat(healthy("etcd-0")).isTrue();
    assertThat(sandbox.resolve("etcd-1.etcd-headless.default.svc"))
        .as("pods resolve etcd-1 to its own address")
        .isEqualTo(pod("etcd-1").getStatus().getPodIP());
    String etcdctl =
        sandbox.kubelet().etcdImages().resolve("quay.io/coreos/etcd:v3.5.30").tool("etcdctl");
    PodHandle.ExecResult peer =
        sandbox
            .kubelet()
            .pod("default", "etcd-0")
            .exec(
                null,
                Duration.ofSeconds(20),
                etcdctl,
                "--endpoints=http://etcd-1.etcd-headless.default.svc:2379",
                "endpoint",
                "health");
    assertThat(peer.exitCode()).as("a peer reaches etcd-1: %s", peer.output()).isZero();
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> StatefulSetIT.ready(pod("etcd-1")));
    sandbox.faults().heal("default", "etcd-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> healthy("etcd-1"));
    assertThat(sandbox.kubelet().dns().partitioned()).isEmpty();
  }

  @Test
  @Order(7)
  void faultsOnUnknownPodsSayWhatIsMissing() {
    assertThatThrownBy(() -> sandbox.faults().kill("default", "nope-0", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no running pod default/nope-0");
    assertThatThrownBy(() -> sandbox.faults().delete("default", "nope-0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no pod default/nope-0");
  }
}
