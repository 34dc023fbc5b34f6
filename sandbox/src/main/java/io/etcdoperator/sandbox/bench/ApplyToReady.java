package io.etcdoperator.sandbox.bench;

import io.etcdoperator.sandbox.OperatorLauncher;
import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.sandbox.net.AddressPool;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The two measurements of the apply-to-Ready benchmark: a 3-member cluster in a sandbox, and three
 * etcd processes bootstrapped by hand on loopback.
 *
 * <p>In the sandbox, the clock starts when the manifest is applied (the sandbox is already up).
 * With an operator, the manifest is the sample EtcdCluster and the clock stops at its {@code
 * Ready=True} condition. Without one, the manifest is what the operator would create (headless
 * Service, cluster-state ConfigMap, StatefulSet) and the clock stops when all three members answer
 * {@code /health} with {@code true} through their DNS names, which is also when the by-hand
 * baseline stops.
 */
final class ApplyToReady {
  static final ResourceDefinitionContext ETCD_CLUSTERS =
      new ResourceDefinitionContext.Builder()
          .withGroup("etcd.aenix.io")
          .withVersion("v1alpha1")
          .withPlural("etcdclusters")
          .withKind("EtcdCluster")
          .withNamespaced(true)
          .build();
  private static final Duration LIMIT = Duration.ofMinutes(3);

  private ApplyToReady() {}

  /**
   * One bootstrap in the sandbox: from the apply to Ready, and where that time went.
   *
   * @param statefulSet apply to the StatefulSet seen by the benchmark's watch (empty without an
   *     operator)
   * @param objects apply to the last of the cluster's objects seen by then
   * @param starts apply to each member's container start, by ordinal
   * @param reactions the operator's reactions on the cluster once Ready ({@link Reactions}), in the
   *     order of {@link Reactions#SCENARIOS}; empty when not run
   */
  record SandboxRun(
      Duration total,
      Milestones milestones,
      Optional<Duration> statefulSet,
      Optional<Duration> objects,
      List<Duration> starts,
      List<Reactions.Result> reactions) {

    /**
     * The operator's share after etcd: from the moment etcd had formed and the last pod was Ready
     * (in the client Service) to Ready in the status; empty when a milestone is unknown.
     */
    Optional<Duration> afterReachable() {
      if (milestones.formed().isEmpty() || milestones.podsReady().isEmpty()) {
        return Optional.empty();
      }
      Duration reachable =
          Collections.max(List.of(milestones.formed().get(), milestones.podsReady().get()));
      return Optional.of(total.minus(reachable));
    }
  }

  /**
   * One bootstrap in the sandbox; then, when {@code reactions} and with an operator, the {@link
   * Reactions} on the cluster it made ({@code run} marks this run's roll).
   */
  static SandboxRun sandbox(Path dir, OperatorLauncher operator, boolean reactions, int run)
      throws Exception {
    try (Sandbox s =
        Sandbox.start(
            SandboxConfig.defaults(dir), operator == null ? OperatorLauncher.NONE : operator)) {
      KubernetesClient k = s.client();
      if (operator != null) {
        warmUp(k);
      }
      FirstSeen objects = new FirstSeen(k, "default", "bench");
      Instant applied = Instant.now();
      long t0 = System.nanoTime();
      if (operator != null) {
        apply(k, "bench", 3);
        await(
            () ->
                ready(
                    k.genericKubernetesResources(ETCD_CLUSTERS)
                        .inNamespace("default")
                        .withName("bench")
                        .get()));
      } else {
        applyByHand(k);
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          urls.add("http://bench-" + i + ".bench-headless.default.svc:2379/health");
        }
        await(() -> urls.stream().allMatch(ApplyToReady::healthy));
      }
      Duration total = Duration.ofNanos(System.nanoTime() - t0);
      Optional<Duration> statefulSet = objects.statefulSet(t0);
      Optional<Duration> all = objects.all(t0);
      objects.close();
      // The clock has stopped. The pods' own Ready (the kubelet's readiness probe, which puts a
      // member behind the client Service) is awaited a few seconds more, for the milestones only.
      long podsDeadline = System.nanoTime() + PODS_READY_GRACE.toNanos();
      List<Pod> pods = benchPods(k);
      while (System.nanoTime() < podsDeadline
          && Milestones.of(applied, pods, List.of()).podsReady().isEmpty()) {
        Thread.sleep(20);
        pods = benchPods(k);
      }
      List<String> logs = new ArrayList<>();
      for (Pod p : pods) {
        String log = k.pods().inNamespace("default").withName(p.getMetadata().getName()).getLog();
        logs.add(log == null ? "" : log);
      }
      Milestones milestones = Milestones.of(applied, pods, logs);
      List<Duration> starts = Milestones.starts(applied, pods);
      List<Reactions.Result> reacted =
          operator != null && reactions ? Reactions.run(k, s.faults(), "bench", run) : List.of();
      return new SandboxRun(
          total,
          milestones,
          operator == null ? Optional.empty() : statefulSet,
          operator == null ? Optional.empty() : all,
          starts,
          reacted);
    }
  }

  private static final Duration PODS_READY_GRACE = Duration.ofSeconds(5);

  private static void apply(KubernetesClient k, String name, int replicas) {
    k.genericKubernetesResources(ETCD_CLUSTERS)
        .inNamespace("default")
        .resource(
            new GenericKubernetesResourceBuilder()
                .withApiVersion("etcd.aenix.io/v1alpha1")
                .withKind("EtcdCluster")
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("replicas", replicas)))
                .build())
        .create();
  }

  /**
   * The operator starts with the sandbox, and its first reconcile ever is slower than any after; a
   * user's apply meets an operator that has run a while. So a cluster of 0 members (hibernated from
   * the start: its objects, no pod) is applied first, and the clock starts once its status says it
   * was reconciled.
   */
  private static void warmUp(KubernetesClient k) throws Exception {
    apply(k, "warm-up", 0);
    await(
        () -> {
          GenericKubernetesResource c =
              k.genericKubernetesResources(ETCD_CLUSTERS)
                  .inNamespace("default")
                  .withName("warm-up")
                  .get();
          return c != null
              && c.getAdditionalProperties().get("status") instanceof Map<?, ?> status
              && status.get("observedGeneration") != null;
        });
  }

  private static List<Pod> benchPods(KubernetesClient k) {
    return k.pods().inNamespace("default").list().getItems().stream()
        .filter(p -> p.getMetadata().getName().matches("bench-[0-9]+"))
        .toList();
  }

  /**
   * Three etcd processes bootstrapped by hand on loopback, from the first start until all answer
   * {@code /health} with {@code true}. {@code starts} empty: all three at once; otherwise member
   * {@code i} starts at {@code starts[i]} from the clock's start, as the sandbox's containers did.
   */
  static Duration byHand(Path dir, String etcd, List<Duration> starts) throws Exception {
    Files.createDirectories(dir);
    List<Process> processes = new ArrayList<>();
    try (AddressPool pool = new AddressPool(AddressPool.defaultLockDir(), List.of(2379, 2380))) {
      List<String> ips = List.of(pool.acquire(), pool.acquire(), pool.acquire());
      StringBuilder initial = new StringBuilder();
      for (int i = 0; i < 3; i++) {
        initial
            .append(i == 0 ? "" : ",")
            .append("m")
            .append(i)
            .append("=http://")
            .append(ips.get(i))
            .append(":2380");
      }
      long t0 = System.nanoTime();
      for (int i = 0; i < 3; i++) {
        if (!starts.isEmpty()) {
          long wait = t0 + starts.get(i).toNanos() - System.nanoTime();
          if (wait > 0) {
            // the gap the sandbox's container had: a timing to reproduce, not a condition
            TimeUnit.NANOSECONDS.sleep(wait);
          }
        }
        String ip = ips.get(i);
        processes.add(
            new ProcessBuilder(
                    etcd,
                    "--name=m" + i,
                    "--data-dir=" + dir.resolve("m" + i),
                    "--listen-client-urls=http://" + ip + ":2379",
                    "--advertise-client-urls=http://" + ip + ":2379",
                    "--listen-peer-urls=http://" + ip + ":2380",
                    "--initial-advertise-peer-urls=http://" + ip + ":2380",
                    "--initial-cluster=" + initial,
                    "--initial-cluster-state=new",
                    "--initial-cluster-token=bench")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("m" + i + ".log").toFile())
                .start());
      }
      await(() -> ips.stream().allMatch(ip -> healthy("http://" + ip + ":2379/health")));
      return Duration.ofNanos(System.nanoTime() - t0);
    } finally {
      for (Process p : processes) {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  private static void applyByHand(KubernetesClient k) {
    k.services()
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("bench-headless")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .withSelector(Map.of("app", "bench"))
                .addNewPort()
                .withName("client")
                .withPort(2379)
                .endPort()
                .endSpec()
                .build())
        .create();
    k.configMaps()
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("bench-cluster-state")
                .withNamespace("default")
                .endMetadata()
                .withData(
                    Map.of(
                        "ETCD_INITIAL_CLUSTER",
                        "bench-0=http://bench-0.bench-headless.default.svc:2380,bench-1=http://bench-1.bench-headless.default.svc:2380,bench-2=http://bench-2.bench-headless.default.svc:2380",
                        "ETCD_INITIAL_CLUSTER_STATE",
                        "new",
                        "ETCD_INITIAL_CLUSTER_TOKEN",
                        "bench"))
                .build())
        .create();
    String host = "$(POD_NAME).bench-headless.default.svc";
    k.apps()
        .statefulSets()
        .resource(
            new StatefulSetBuilder()
                .withNewMetadata()
                .withName("bench")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withReplicas(3)
                .withServiceName("bench-headless")
                .withPodManagementPolicy("Parallel")
                .withNewUpdateStrategy()
                .withType("OnDelete")
                .endUpdateStrategy()
                .withNewSelector()
                .withMatchLabels(Map.of("app", "bench"))
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(Map.of("app", "bench"))
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("etcd")
                .withImage("etcd")
                .withCommand("etcd")
                .withArgs(
                    "--name=$(POD_NAME)",
                    "--data-dir=/var/run/etcd/default.etcd",
                    "--listen-peer-urls=http://0.0.0.0:2380",
                    "--listen-client-urls=http://0.0.0.0:2379",
                    "--initial-advertise-peer-urls=http://" + host + ":2380",
                    "--advertise-client-urls=http://" + host + ":2379")
                .addNewEnv()
                .withName("POD_NAME")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnvFrom()
                .withNewConfigMapRef()
                .withName("bench-cluster-state")
                .endConfigMapRef()
                .endEnvFrom()
                .addNewVolumeMount()
                .withName("data")
                .withMountPath("/var/run/etcd")
                .endVolumeMount()
                .withNewReadinessProbe()
                .withNewHttpGet()
                .withPath("/health")
                .withPort(new IntOrString(2379))
                .endHttpGet()
                .withPeriodSeconds(1)
                .endReadinessProbe()
                .endContainer()
                .endSpec()
                .endTemplate()
                .addNewVolumeClaimTemplate()
                .withNewMetadata()
                .withName("data")
                .endMetadata()
                .withNewSpec()
                .withAccessModes("ReadWriteOnce")
                .withNewResources()
                .withRequests(Map.of("storage", new Quantity("1Gi")))
                .endResources()
                .endSpec()
                .endVolumeClaimTemplate()
                .endSpec()
                .build())
        .create();
  }

  private static boolean ready(GenericKubernetesResource c) {
    if (c == null
        || !(c.getAdditionalProperties().get("status") instanceof Map<?, ?> status)
        || !(status.get("conditions") instanceof List<?> conditions)) {
      return false;
    }
    return conditions.stream()
        .anyMatch(
            o ->
                o instanceof Map<?, ?> m
                    && "Ready".equals(m.get("type"))
                    && "True".equals(m.get("status")));
  }

  static boolean healthy(String url) {
    try {
      HttpURLConnection c =
          (HttpURLConnection) URI.create(url).toURL().openConnection(Proxy.NO_PROXY);
      c.setConnectTimeout(500);
      c.setReadTimeout(1000);
      try {
        return c.getResponseCode() == 200
            && new String(c.getInputStream().readAllBytes()).contains("\"true\"");
      } finally {
        c.disconnect();
      }
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private interface Check {
    boolean ok() throws Exception;
  }

  private static void await(Check check) throws Exception {
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (check.ok()) {
        return;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("not ready within " + LIMIT.toMinutes() + " minutes");
  }
}
