package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcdoperator.sandbox.api.ApiFaults;
import io.etcdoperator.sandbox.api.ApiServer;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.kubelet.PodHandle;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes, the scheduler, the node lifecycle controller and the node faults, with plain pods and
 * StatefulSets of shell containers (no operator): each test has a sandbox of its own with three
 * nodes, a 3 s grace period, 4 s default tolerations and a 1 s Lease renewal.
 */
class NodesIT {
  private static final Duration GRACE = Duration.ofSeconds(3);
  private static final Duration TOLERATION = Duration.ofSeconds(4);

  @TempDir Path dir;
  Sandbox sandbox;
  KubernetesClient k;

  private void start(int nodes) {
    sandbox =
        Sandbox.start(
            SandboxFixture.fastConfig(dir)
                .withNodes(nodes)
                .withNodeTimings(GRACE, TOLERATION, Duration.ofSeconds(1)),
            OperatorLauncher.NONE);
    k = sandbox.client();
  }

  @AfterEach
  void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  // --- helpers ---

  private static StatefulSet set(String name, int replicas, String storageClass) {
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
                new VolumeMountBuilder()
                    .withName("data")
                    .withMountPath("/var/run/sandbox-it/data")
                    .build()));
    if (storageClass != null) {
      s.getSpec().getVolumeClaimTemplates().get(0).getSpec().setStorageClassName(storageClass);
    }
    return s;
  }

  private void create(StatefulSet s) {
    k.services().resource(Manifests.headless(s.getMetadata().getName())).create();
    k.apps().statefulSets().resource(s).create();
  }

  private static Pod pinnedPod(String name, String node, List<Toleration> tolerations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .addToLabels("app", name)
        .endMetadata()
        .withNewSpec()
        .withContainers(Manifests.shell("main", "exec sleep 3600"))
        .withTerminationGracePeriodSeconds(2L)
        .withNodeSelector(node == null ? Map.of() : Map.of("kubernetes.io/hostname", node))
        .withTolerations(tolerations)
        .endSpec()
        .build();
  }

  private Pod pod(String name) {
    return k.pods().inNamespace("default").withName(name).get();
  }

  private Pod awaitPod(String name, Predicate<Pod> condition) {
    return await()
        .atMost(Duration.ofSeconds(40))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> pod(name), p -> p != null && condition.test(p));
  }

  private static boolean ready(Pod p) {
    return condition(p, "Ready") != null && "True".equals(condition(p, "Ready").getStatus());
  }

  private static PodCondition condition(Pod p, String type) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return null;
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  private static String unschedulable(Pod p) {
    PodCondition c = condition(p, "PodScheduled");
    return c != null && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason())
        ? c.getMessage()
        : null;
  }

  private Pod awaitUnschedulable(String name, String message) {
    return awaitPod(name, p -> message.equals(unschedulable(p)));
  }

  private static String nodeOf(Pod p) {
    return p.getSpec().getNodeName();
  }

  private Node node(String name) {
    return k.nodes().withName(name).get();
  }

  private static NodeCondition nodeReady(Node n) {
    return n.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("Ready"))
        .findFirst()
        .orElseThrow();
  }

  private static List<String> taints(Node n) {
    List<String> out = new ArrayList<>();
    if (n.getSpec().getTaints() != null) {
      for (Taint t : n.getSpec().getTaints()) {
        out.add(t.getKey() + ":" + t.getEffect());
      }
    }
    return out;
  }

  private void cordon(String node, boolean on) {
    k.nodes()
        .withName(node)
        .edit(
            n -> {
              n.getSpec().setUnschedulable(on ? true : null);
              return n;
            });
  }

  /** The state letter of a process in /proc (T: stopped). */
  private static char state(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    return stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
  }

  private HttpResponse<String> evict(String pod) throws Exception {
    String body =
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\""
            + pod
            + "\",\"namespace\":\"default\"}}";
    HttpRequest r =
        HttpRequest.newBuilder(
                URI.create(
                    sandbox.apiUrl() + "/api/v1/namespaces/default/pods/" + pod + "/eviction"))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + Kubeconfig.token(sandbox.config().kubeconfig()))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return io.etcdoperator.sandbox.api.SelfSigned.httpClient(Duration.ofSeconds(5))
        .send(r, HttpResponse.BodyHandlers.ofString());
  }

  private String kubectl(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of("/usr/bin/kubectl", "--kubeconfig", sandbox.config().kubeconfig().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  // --- tests ---

  @Test
  void nodesAreRegisteredReadyWithLabelsAndHeartbeatLeases() {
    start(3);
    List<Node> nodes = k.nodes().list().getItems();
    assertThat(nodes)
        .extracting(n -> n.getMetadata().getName())
        .containsExactlyInAnyOrder("node-0", "node-1", "node-2");
    Node n1 = node("node-1");
    assertThat(n1.getMetadata().getLabels())
        .containsEntry("kubernetes.io/hostname", "node-1")
        .containsEntry("kubernetes.io/os", "linux")
        .containsEntry("topology.kubernetes.io/zone", "sandbox");
    assertThat(nodeReady(n1).getStatus()).isEqualTo("True");
    assertThat(nodeReady(n1).getLastHeartbeatTime()).isNotNull();
    assertThat(nodeReady(n1).getLastTransitionTime()).isNotNull();
    assertThat(n1.getStatus().getAddresses()).isNotEmpty();
    var lease = k.leases().inNamespace("kube-node-lease").withName("node-1").get();
    var first = lease.getSpec().getRenewTime();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                k.leases()
                    .inNamespace("kube-node-lease")
                    .withName("node-1")
                    .get()
                    .getSpec()
                    .getRenewTime()
                    .isAfter(first));
    assertThat(SandboxConfig.defaults(dir).nodes()).isEqualTo(3);
    assertThatThrownBy(() -> SandboxConfig.defaults(dir).withNodes(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void schedulingHonoursAntiAffinitySelectorsTaintsAndSpreadAndSaysWhyNot() throws Exception {
    start(3);
    // required anti-affinity: one per node; a fourth cannot go anywhere
    StatefulSet spread = set("spread", 3, null);
    spread
        .getSpec()
        .getTemplate()
        .getSpec()
        .setAffinity(
            new io.fabric8.kubernetes.api.model.AffinityBuilder()
                .withNewPodAntiAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(
                    new PodAffinityTermBuilder()
                        .withTopologyKey("kubernetes.io/hostname")
                        .withLabelSelector(
                            new LabelSelectorBuilder()
                                .withMatchLabels(Map.of("app", "spread"))
                                .build())
                        .build())
                .endPodAntiAffinity()
                .build());
    create(spread);
    List<String> used = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      used.add(nodeOf(awaitPod("spread-" + i, NodesIT::ready)));
    }
    assertThat(used).containsExactlyInAnyOrder("node-0", "node-1", "node-2");
    Pod bound = pod("spread-0");
    assertThat(condition(bound, "PodScheduled").getStatus()).isEqualTo("True");
    k.apps().statefulSets().inNamespace("default").withName("spread").scale(4);
    Pod fourth =
        awaitUnschedulable(
            "spread-3", "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.");
    assertThat(fourth.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(nodeOf(fourth)).isNull();
    assertThat(sandbox.kubelet().pod("default", "spread-3")).isNull();
    assertThat(
            k.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "FailedScheduling".equals(e.getReason()))
                .map(e -> e.getInvolvedObject().getName()))
        .contains("spread-3");

    // the API refuses to move a bound pod
    assertThatThrownBy(
            () ->
                k.pods()
                    .inNamespace("default")
                    .withName("spread-0")
                    .edit(
                        p -> {
                          p.getSpec()
                              .setNodeName(
                                  p.getSpec().getNodeName().equals("node-0") ? "node-1" : "node-0");
                          return p;
                        }))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("pod updates may not change fields");

    // the default tolerations
    Toleration defaulted =
        bound.getSpec().getTolerations().stream()
            .filter(t -> "node.kubernetes.io/unreachable".equals(t.getKey()))
            .findFirst()
            .orElseThrow();
    assertThat(defaulted.getOperator()).isEqualTo("Exists");
    assertThat(defaulted.getEffect()).isEqualTo("NoExecute");
    assertThat(defaulted.getTolerationSeconds()).isEqualTo(TOLERATION.toSeconds());
    assertThat(bound.getSpec().getTolerations())
        .anyMatch(t -> "node.kubernetes.io/not-ready".equals(t.getKey()));

    // nodeSelector and taints: untolerated, then tolerated once the toleration is added
    k.nodes()
        .withName("node-1")
        .edit(
            n -> {
              n.getSpec()
                  .setTaints(
                      List.of(
                          new TaintBuilder()
                              .withKey("dedicated")
                              .withValue("etcd")
                              .withEffect("NoSchedule")
                              .build()));
              return n;
            });
    k.pods().resource(pinnedPod("picky", "node-1", List.of())).create();
    awaitUnschedulable(
        "picky",
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: etcd}, 2 node(s)"
            + " didn't match Pod's node affinity/selector.");
    k.pods()
        .inNamespace("default")
        .withName("picky")
        .edit(
            p -> {
              List<Toleration> ts = new ArrayList<>(p.getSpec().getTolerations());
              ts.add(
                  new TolerationBuilder()
                      .withKey("dedicated")
                      .withOperator("Equal")
                      .withValue("etcd")
                      .withEffect("NoSchedule")
                      .build());
              p.getSpec().setTolerations(ts);
              return p;
            });
    assertThat(nodeOf(awaitPod("picky", NodesIT::ready))).isEqualTo("node-1");

    // a cordoned node takes nothing new
    cordon("node-2", true);
    k.pods().resource(pinnedPod("cordoned", "node-2", List.of())).create();
    awaitUnschedulable(
        "cordoned",
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s)"
            + " had untolerated taint {dedicated: etcd}, 1 node(s) were unschedulable.");
    cordon("node-2", false);
    assertThat(nodeOf(awaitPod("cordoned", NodesIT::ready))).isEqualTo("node-2");
  }

  @Test
  void fiveMembersWithPreferredAntiAffinityFitOnThreeNodesAndSpreadConstraintsBalance() {
    start(3);
    StatefulSet five = set("five", 5, null);
    five.getSpec()
        .getTemplate()
        .getSpec()
        .setAffinity(
            new io.fabric8.kubernetes.api.model.AffinityBuilder()
                .withNewPodAntiAffinity()
                .withPreferredDuringSchedulingIgnoredDuringExecution(
                    new WeightedPodAffinityTermBuilder()
                        .withWeight(100)
                        .withNewPodAffinityTerm()
                        .withTopologyKey("kubernetes.io/hostname")
                        .withLabelSelector(
                            new LabelSelectorBuilder()
                                .withMatchLabels(Map.of("app", "five"))
                                .build())
                        .endPodAffinityTerm()
                        .build())
                .endPodAntiAffinity()
                .build());
    create(five);
    Map<String, Integer> perNode = new HashMap<>();
    for (int i = 0; i < 5; i++) {
      perNode.merge(nodeOf(awaitPod("five-" + i, NodesIT::ready)), 1, Integer::sum);
    }
    assertThat(perNode.values()).containsExactlyInAnyOrder(2, 2, 1);

    // three unrelated pods on node-2: by pod count alone the third of "even" would go elsewhere;
    // its spread constraint (maxSkew 1) sends it to the node with none of its own
    for (String n : List.of("x-0", "x-1", "x-2")) {
      k.pods().resource(pinnedPod(n, "node-2", List.of())).create();
    }
    for (String n : List.of("x-0", "x-1", "x-2")) {
      awaitPod(n, NodesIT::ready);
    }
    k.apps().statefulSets().inNamespace("default").withName("five").scale(0);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> pod("five-0") == null && pod("five-4") == null);
    StatefulSet even = set("even", 3, null);
    even.getSpec().setPodManagementPolicy("OrderedReady");
    even.getSpec()
        .getTemplate()
        .getSpec()
        .setTopologySpreadConstraints(
            List.of(
                new TopologySpreadConstraintBuilder()
                    .withMaxSkew(1)
                    .withTopologyKey("kubernetes.io/hostname")
                    .withWhenUnsatisfiable("DoNotSchedule")
                    .withLabelSelector(
                        new LabelSelectorBuilder().withMatchLabels(Map.of("app", "even")).build())
                    .build()));
    create(even);
    List<String> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(nodeOf(awaitPod("even-" + i, NodesIT::ready)));
    }
    assertThat(nodes).containsExactlyInAnyOrder("node-0", "node-1", "node-2");

    // with two nodes cordoned a fourth still fits (skew 1), a fifth would make a skew of 2
    cordon("node-0", true);
    cordon("node-1", true);
    k.apps().statefulSets().inNamespace("default").withName("even").scale(5);
    assertThat(nodeOf(awaitPod("even-3", NodesIT::ready))).isEqualTo("node-2");
    awaitUnschedulable(
        "even-4",
        "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 node(s)"
            + " were unschedulable.");
  }

  @Test
  void aNodeDownIsNotReadyAfterTheGracePeriodItsPodsTerminatingAfterTheirTolerationUntilItIsBack()
      throws Exception {
    start(3);
    k.pods().resource(pinnedPod("fragile", "node-1", List.of())).create();
    k.pods()
        .resource(
            pinnedPod(
                "tolerant",
                "node-1",
                List.of(
                    new TolerationBuilder()
                        .withKey("node.kubernetes.io/unreachable")
                        .withOperator("Exists")
                        .withEffect("NoExecute")
                        .build())))
        .create();
    k.pods().resource(pinnedPod("elsewhere", "node-0", List.of())).create();
    for (String p : List.of("fragile", "tolerant", "elsewhere")) {
      awaitPod(p, NodesIT::ready);
    }
    long pid = sandbox.kubelet().pod("default", "tolerant").pid(null);
    k.services()
        .resource(
            new io.fabric8.kubernetes.api.model.ServiceBuilder()
                .withNewMetadata()
                .withName("tolerant")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withSelector(Map.of("app", "tolerant"))
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build())
        .create();
    String address = sandbox.kubelet().pod("default", "tolerant").ip();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> address.equals(sandbox.resolve("tolerant.default.svc")));

    sandbox.faults().nodeDown("node-1");
    // SIGSTOP is delivered when the process is next scheduled: on a busy machine /proc says 'R' a
    // moment longer.
    await().atMost(Duration.ofSeconds(5)).until(() -> state(pid) == 'T');
    // a freeze that ends while the node is down leaves the process stopped (seed 31287)
    sandbox.faults().freeze("default", "tolerant");
    sandbox.faults().thaw("default", "tolerant");
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(2))
        .until(() -> state(pid) == 'T');
    Node down =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> node("node-1"),
                n ->
                    "Unknown".equals(nodeReady(n).getStatus())
                        && taints(n)
                            .containsAll(
                                List.of(
                                    "node.kubernetes.io/unreachable:NoSchedule",
                                    "node.kubernetes.io/unreachable:NoExecute")));
    assertThat(nodeReady(down).getReason()).isEqualTo("NodeStatusUnknown");
    assertThat(nodeReady(down).getMessage()).isEqualTo("Kubelet stopped posting node status.");
    assertThat(down.getSpec().getTaints()).allMatch(t -> t.getTimeAdded() != null);
    awaitPod("tolerant", p -> !ready(p));
    // its Service no longer sends clients to it, as endpoints follow the Ready condition
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> sandbox.resolve("tolerant.default.svc") == null);
    // after its 4 s toleration: deleted, and Terminating for as long as the node is away
    awaitPod("fragile", p -> p.getMetadata().getDeletionTimestamp() != null);
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                pod("fragile") != null
                    && pod("tolerant").getMetadata().getDeletionTimestamp() == null);
    assertThat(ready(pod("elsewhere"))).isTrue();
    assertThat(nodeReady(node("node-0")).getStatus()).isEqualTo("True");
    // the scheduler keeps new pods off it
    k.pods().resource(pinnedPod("late", "node-1", List.of())).create();
    awaitUnschedulable(
        "late",
        "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable:"
            + " }, 2 node(s) didn't match Pod's node affinity/selector.");
    assertThatThrownBy(() -> sandbox.faults().nodeDown("node-7"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no node node-7");

    sandbox.faults().nodeUp("node-1");
    await().atMost(Duration.ofSeconds(20)).until(() -> pod("fragile") == null);
    Pod tolerant = awaitPod("tolerant", NodesIT::ready);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> address.equals(sandbox.resolve("tolerant.default.svc")));
    assertThat(tolerant.getSpec().getNodeName()).isEqualTo("node-1");
    await().atMost(Duration.ofSeconds(5)).until(() -> state(pid) != 'T');
    Node up =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> node("node-1"),
                n -> "True".equals(nodeReady(n).getStatus()) && taints(n).isEmpty());
    assertThat(up.getSpec().getTaints()).isNullOrEmpty();
    assertThat(nodeOf(awaitPod("late", NodesIT::ready))).isEqualTo("node-1");
  }

  @Test
  void aDeletedNodesPodsAreForceDeletedItsLocalClaimsLostAndNetworkPodsMoveWithTheirData()
      throws Exception {
    start(3);
    cordon("node-1", true);
    cordon("node-2", true);
    create(set("net", 1, null));
    create(set("loc", 1, Sandbox.LOCAL_STORAGE_CLASS));
    Pod net = awaitPod("net-0", NodesIT::ready);
    Pod loc = awaitPod("loc-0", NodesIT::ready);
    assertThat(nodeOf(net)).isEqualTo("node-0");
    assertThat(nodeOf(loc)).isEqualTo("node-0");
    cordon("node-1", false);
    cordon("node-2", false);
    PodHandle h = sandbox.kubelet().pod("default", "net-0");
    Files.writeString(h.volume("data").resolve("kept.txt"), "written on node-0");
    PersistentVolumeClaim locClaim =
        k.persistentVolumeClaims().inNamespace("default").withName("data-loc-0").get();
    PersistentVolume locVolume =
        k.persistentVolumes().withName(locClaim.getSpec().getVolumeName()).get();
    Path locDir = Path.of(locVolume.getSpec().getLocal().getPath());
    assertThat(locDir).isDirectory();

    List<String> lost = sandbox.faults().nodeDelete("node-0");
    assertThat(lost).containsExactly(locVolume.getMetadata().getName());
    assertThat(node("node-0")).isNull();
    assertThat(locDir).doesNotExist();
    Pod moved =
        awaitPod(
            "net-0", p -> !p.getMetadata().getUid().equals(net.getMetadata().getUid()) && ready(p));
    assertThat(nodeOf(moved)).isIn("node-1", "node-2");
    PodHandle h2 = sandbox.kubelet().pod("default", "net-0");
    assertThat(Files.readString(h2.volume("data").resolve("kept.txt")))
        .isEqualTo("written on node-0");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> k.persistentVolumeClaims().inNamespace("default").withName("data-loc-0").get(),
            c -> "Lost".equals(c.getStatus().getPhase()));
    assertThat(k.persistentVolumes().withName(locVolume.getMetadata().getName()).get()).isNull();
    Pod stuck =
        awaitPod(
            "loc-0",
            p ->
                !p.getMetadata().getUid().equals(loc.getMetadata().getUid())
                    && unschedulable(p) != null);
    assertThat(unschedulable(stuck))
        .isEqualTo(
            "0/2 nodes are available: persistentvolumeclaim \"data-loc-0\" bound to non-existent"
                + " persistentvolume \""
                + locVolume.getMetadata().getName()
                + "\".");
    assertThat(sandbox.kubelet().nodes()).containsExactlyInAnyOrder("node-1", "node-2");
  }

  /**
   * A node deleted while its kubelet's heartbeat is under way stays deleted: the heartbeat had seen
   * the node up, and its post found the Node gone and registered it again (CI saw
   * SandboxCommandIT's node-delete come back so). The kubelet's answers are made 1 s late (it
   * shares the administrator's identity), so the deletion falls between the heartbeat's Lease
   * renewal and its look at the Node; the test watches with an identity of its own that is not
   * slowed.
   */
  @Test
  void aNodeDeletedDuringItsHeartbeatStaysDeleted() throws Exception {
    start(2);
    ApiServer api = sandbox.faults().api();
    try (KubernetesClient watcher =
        api.newClient(
            api.issueToken(
                new Identity(
                    "nodes-it", List.of("system:masters", "system:authenticated"), true)))) {
      sandbox.faults().nodeDown("node-1");
      String before = renewTime(watcher, "node-1");
      api.faults()
          .fail(Identity.administrator().name(), new ApiFaults.Fault.Slow(Duration.ofSeconds(1)));
      try {
        sandbox.faults().nodeUp("node-1");
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> !Objects.equals(renewTime(watcher, "node-1"), before));
        sandbox.faults().removeNode("node-1");
      } finally {
        api.faults().heal(Identity.administrator().name());
      }
      assertThat(sandbox.kubelet().nodes()).containsExactly("node-0");
      await()
          .during(Duration.ofSeconds(4))
          .atMost(Duration.ofSeconds(6))
          .until(() -> watcher.nodes().withName("node-1").get() == null);
    }
  }

  private static String renewTime(KubernetesClient c, String node) {
    var lease = c.leases().inNamespace("kube-node-lease").withName(node).get();
    return lease == null ? null : String.valueOf(lease.getSpec().getRenewTime());
  }

  /** A claim of 1 Gi of the storage class ({@code null}: the default, network storage). */
  private void claim(String name, String accessMode, String storageClass) {
    k.persistentVolumeClaims()
        .resource(
            new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withStorageClassName(storageClass)
                .withAccessModes(accessMode)
                .withNewResources()
                .withRequests(
                    Map.of("storage", new io.fabric8.kubernetes.api.model.Quantity("1Gi")))
                .endResources()
                .endSpec()
                .build())
        .create();
  }

  /** A pod on {@code node} (no scheduler) that mounts the claim. */
  private void podOn(String name, String node, String claim) {
    Container c = Manifests.shell("main", "exec sleep 3600");
    c.setVolumeMounts(
        List.of(new VolumeMountBuilder().withName("data").withMountPath("/data").build()));
    k.pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .withTerminationGracePeriodSeconds(1L)
                .withContainers(c)
                .addNewVolume()
                .withName("data")
                .withNewPersistentVolumeClaim()
                .withClaimName(claim)
                .endPersistentVolumeClaim()
                .endVolume()
                .endSpec()
                .build())
        .create();
  }

  private static String waitingMessage(Pod p) {
    return p == null
            || p.getStatus() == null
            || p.getStatus().getContainerStatuses() == null
            || p.getStatus().getContainerStatuses().isEmpty()
            || p.getStatus().getContainerStatuses().get(0).getState().getWaiting() == null
        ? ""
        : String.valueOf(
            p.getStatus().getContainerStatuses().get(0).getState().getWaiting().getMessage());
  }

  @Test
  void aReadWriteOnceVolumeIsAttachedToOneNodeAtATime() {
    start(3);
    claim("once", "ReadWriteOnce", null);
    podOn("a", "node-0", "once");
    awaitPod("a", NodesIT::ready);

    // another node: Multi-Attach while a uses it, attached once a is gone
    podOn("b", "node-1", "once");
    awaitPod("b", p -> waitingMessage(p).contains("Volume is already used by pod(s) a"));
    assertThat(waitingMessage(pod("b"))).startsWith("Multi-Attach error for volume \"pvc-");
    k.pods().inNamespace("default").withName("a").delete();
    awaitPod("b", NodesIT::ready);

    // b's node goes down and b is force-deleted: the volume stays attached to node-1 (6 minutes
    // on a real cluster), until the node is back
    sandbox.faults().nodeDown("node-1");
    k.pods().inNamespace("default").withName("b").withGracePeriod(0).delete();
    await().atMost(Duration.ofSeconds(20)).until(() -> pod("b") == null);
    podOn("c", "node-2", "once");
    awaitPod(
        "c", p -> waitingMessage(p).contains("Volume is already exclusively attached to one node"));
    sandbox.faults().nodeUp("node-1");
    awaitPod("c", NodesIT::ready);

    // a volume several nodes may mount: both pods run
    claim("many", "ReadWriteMany", null);
    podOn("d", "node-0", "many");
    podOn("e", "node-2", "many");
    awaitPod("d", NodesIT::ready);
    awaitPod("e", NodesIT::ready);
  }

  @Test
  void aLocalClaimWaitsForItsFirstPodAndPinsItToItsNode() {
    start(3);
    // a claim of the local class with no pod stays Pending
    claim("unused", "ReadWriteOnce", Sandbox.LOCAL_STORAGE_CLASS);
    create(set("pin", 1, Sandbox.LOCAL_STORAGE_CLASS));
    Pod first = awaitPod("pin-0", NodesIT::ready);
    String home = nodeOf(first);
    PersistentVolumeClaim claim =
        k.persistentVolumeClaims().inNamespace("default").withName("data-pin-0").get();
    assertThat(claim.getMetadata().getAnnotations())
        .containsEntry("volume.kubernetes.io/selected-node", home);
    assertThat(claim.getStatus().getPhase()).isEqualTo("Bound");
    PersistentVolume pv = k.persistentVolumes().withName(claim.getSpec().getVolumeName()).get();
    assertThat(pv.getMetadata().getName()).isEqualTo("pvc-" + claim.getMetadata().getUid());
    assertThat(pv.getSpec().getClaimRef().getName()).isEqualTo("data-pin-0");
    assertThat(pv.getSpec().getStorageClassName()).isEqualTo("local");
    assertThat(pv.getSpec().getCapacity()).containsKey("storage");
    assertThat(
            pv.getSpec()
                .getNodeAffinity()
                .getRequired()
                .getNodeSelectorTerms()
                .get(0)
                .getMatchExpressions()
                .get(0)
                .getValues())
        .containsExactly(home);
    assertThat(
            k.persistentVolumeClaims()
                .inNamespace("default")
                .withName("unused")
                .get()
                .getStatus()
                .getPhase())
        .isEqualTo("Pending");

    cordon(home, true);
    k.pods().inNamespace("default").withName("pin-0").delete();
    awaitUnschedulable(
        "pin-0",
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) had volume node affinity"
            + " conflict.");
    cordon(home, false);
    assertThat(nodeOf(awaitPod("pin-0", NodesIT::ready))).isEqualTo(home);

    // a network claim has a PV with no node affinity
    create(set("anywhere", 1, null));
    awaitPod("anywhere-0", NodesIT::ready);
    PersistentVolumeClaim net =
        k.persistentVolumeClaims().inNamespace("default").withName("data-anywhere-0").get();
    PersistentVolume netPv = k.persistentVolumes().withName(net.getSpec().getVolumeName()).get();
    assertThat(netPv.getSpec().getNodeAffinity()).isNull();
    assertThat(netPv.getSpec().getStorageClassName()).isEqualTo("standard");

    // deleting a claim deletes its volume
    k.apps().statefulSets().inNamespace("default").withName("anywhere").delete();
    await().atMost(Duration.ofSeconds(20)).until(() -> pod("anywhere-0") == null);
    k.persistentVolumeClaims().inNamespace("default").withName("data-anywhere-0").delete();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> k.persistentVolumes().withName(netPv.getMetadata().getName()).get() == null);
  }

  @Test
  void evictionIsRefusedByABudgetThatAllowsNoDisruptionAndAllowedOtherwise() throws Exception {
    start(3);
    create(set("budget", 2, null));
    awaitPod("budget-0", NodesIT::ready);
    awaitPod("budget-1", NodesIT::ready);
    PodDisruptionBudget pdb =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withName("budget")
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .withMinAvailable(new IntOrString(2))
            .withSelector(
                new LabelSelectorBuilder().withMatchLabels(Map.of("app", "budget")).build())
            .endSpec()
            .build();
    k.policy().v1().podDisruptionBudget().resource(pdb).create();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                k.policy()
                    .v1()
                    .podDisruptionBudget()
                    .inNamespace("default")
                    .withName("budget")
                    .get(),
            b ->
                b.getStatus() != null
                    && Integer.valueOf(2).equals(b.getStatus().getCurrentHealthy()));
    HttpResponse<String> refused = evict("budget-0");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body())
        .contains("Cannot evict pod as it would violate the pod's disruption budget.")
        .contains("TooManyRequests")
        .contains("The disruption budget budget needs 2 healthy pods and has 2 currently");
    assertThat(pod("budget-0").getMetadata().getDeletionTimestamp()).isNull();

    k.policy()
        .v1()
        .podDisruptionBudget()
        .inNamespace("default")
        .withName("budget")
        .edit(
            b -> {
              b.getSpec().setMinAvailable(null);
              b.getSpec().setMaxUnavailable(new IntOrString(1));
              return b;
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                k.policy()
                    .v1()
                    .podDisruptionBudget()
                    .inNamespace("default")
                    .withName("budget")
                    .get(),
            b -> Integer.valueOf(1).equals(b.getStatus().getDisruptionsAllowed()));
    String uid = pod("budget-0").getMetadata().getUid();
    HttpResponse<String> allowed = evict("budget-0");
    assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(201);
    // the one disruption is spent at once: a second eviction is refused
    HttpResponse<String> second = evict("budget-1");
    assertThat(second.statusCode()).as(second.body()).isEqualTo(429);
    awaitPod("budget-0", p -> !p.getMetadata().getUid().equals(uid) && ready(p));

    // two budgets selecting one pod: the eviction API does not support it
    k.policy()
        .v1()
        .podDisruptionBudget()
        .resource(
            new PodDisruptionBudgetBuilder(pdb)
                .editMetadata()
                .withName("budget-2")
                .endMetadata()
                .build())
        .create();
    HttpResponse<String> two = evict("budget-1");
    assertThat(two.statusCode()).isEqualTo(500);
    assertThat(two.body()).contains("more than one PodDisruptionBudget");
    assertThat(evict("nobody").statusCode()).isEqualTo(404);
  }

  @Test
  void kubectlDrainCordonsANodeAndEvictsItsPodsWhichMoveElsewhere() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/kubectl")), "kubectl is not installed");
    start(3);
    StatefulSet s = set("drained", 3, null);
    s.getSpec()
        .getTemplate()
        .getSpec()
        .setAffinity(
            new io.fabric8.kubernetes.api.model.AffinityBuilder()
                .withNewPodAntiAffinity()
                .withPreferredDuringSchedulingIgnoredDuringExecution(
                    new WeightedPodAffinityTermBuilder()
                        .withWeight(100)
                        .withNewPodAffinityTerm()
                        .withTopologyKey("kubernetes.io/hostname")
                        .withLabelSelector(
                            new LabelSelectorBuilder()
                                .withMatchLabels(Map.of("app", "drained"))
                                .build())
                        .endPodAffinityTerm()
                        .build())
                .endPodAntiAffinity()
                .build());
    create(s);
    String onNode1 = null;
    for (int i = 0; i < 3; i++) {
      Pod p = awaitPod("drained-" + i, NodesIT::ready);
      if ("node-1".equals(nodeOf(p))) {
        onNode1 = p.getMetadata().getName();
      }
    }
    assertThat(onNode1).isNotNull();
    String uid = pod(onNode1).getMetadata().getUid();
    Process p =
        new ProcessBuilder(
                "/usr/bin/kubectl",
                "--kubeconfig",
                sandbox.config().kubeconfig().toString(),
                "drain",
                "node-1",
                "--ignore-daemonsets",
                "--delete-emptydir-data",
                "--timeout=60s")
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(90, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("node/node-1 cordoned")
        .contains("evicting pod default/" + onNode1)
        .contains("node/node-1 drained");
    assertThat(node("node-1").getSpec().getUnschedulable()).isTrue();
    assertThat(kubectl("get", "nodes"))
        .contains("STATUS", "VERSION")
        .containsPattern("node-1 +Ready,SchedulingDisabled")
        .containsPattern("node-0 +Ready ");
    assertThat(kubectl("get", "pv")).contains("Bound", "default/data-drained-0", "standard");
    assertThat(kubectl("get", "pods", "-o", "wide")).contains("NODE");
    String name = onNode1;
    Pod moved = awaitPod(name, x -> !x.getMetadata().getUid().equals(uid) && ready(x));
    assertThat(nodeOf(moved)).isIn("node-0", "node-2");
    assertThat(k.pods().inNamespace("default").list().getItems())
        .noneMatch(x -> "node-1".equals(nodeOf(x)));
  }
}
