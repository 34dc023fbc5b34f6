package io.etcdoperator.e2e;

import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.sandbox.EtcdOperatorLauncher;
import io.etcdoperator.sandbox.OperatorLauncher;
import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.S3ProxyServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * An end-to-end session: the sandbox with the real, unchanged operator inside, and helpers to apply
 * manifests and read what the operator reports. Closing it stops everything.
 */
public final class E2E implements AutoCloseable {
  public static final String NS = "default";
  private final Sandbox sandbox;

  private E2E(Sandbox sandbox) {
    this.sandbox = sandbox;
  }

  public static E2E start(Path dir) throws Exception {
    return start(SandboxConfig.defaults(dir));
  }

  public static E2E start(SandboxConfig config) throws Exception {
    return new E2E(Sandbox.start(config, new EtcdOperatorLauncher()));
  }

  /** With operator settings of the test's own (e.g. a {@code CallHook} that injects crashes). */
  public static E2E start(SandboxConfig config, io.etcdoperator.operator.OperatorSettings settings)
      throws Exception {
    return new E2E(Sandbox.start(config, new EtcdOperatorLauncher(settings)));
  }

  /** With no operator inside: the test starts its own. */
  public static E2E withoutOperator(SandboxConfig config) throws Exception {
    return new E2E(Sandbox.start(config, OperatorLauncher.NONE));
  }

  /** With a launcher the test keeps, e.g. to reach a replica's HTTP endpoint. */
  public static E2E start(SandboxConfig config, EtcdOperatorLauncher launcher) throws Exception {
    return new E2E(Sandbox.start(config, launcher));
  }

  public Sandbox sandbox() {
    return sandbox;
  }

  /** A claim of 1 GiB in {@link #NS} with {@code accessMode}, which the sandbox binds. */
  public void createClaim(String name, String accessMode) {
    client()
        .resource(
            new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withAccessModes(accessMode)
                .withNewResources()
                .withRequests(
                    Map.of("storage", new io.fabric8.kubernetes.api.model.Quantity("1Gi")))
                .endResources()
                .endSpec()
                .build())
        .create();
  }

  /**
   * A Secret {@code name} in {@link #NS} with s3proxy's access key and {@code secretKey}, as an S3
   * destination's {@code credentialsSecretRef} names it.
   */
  public void createS3Credentials(String name, String secretKey) {
    client()
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .withStringData(
                    Map.of(
                        "AWS_ACCESS_KEY_ID",
                        S3ProxyServer.ACCESS_KEY,
                        "AWS_SECRET_ACCESS_KEY",
                        secretKey))
                .build())
        .create();
  }

  public KubernetesClient client() {
    return sandbox.client();
  }

  /** Applies a manifest of ../examples (or a literal YAML string when it has a newline). */
  public EtcdCluster apply(String manifest) throws IOException {
    String yaml =
        manifest.contains("\n") ? manifest : Files.readString(Path.of("..", "examples", manifest));
    EtcdCluster cluster = client().getKubernetesSerialization().unmarshal(yaml, EtcdCluster.class);
    // As kubectl apply does, retry when the operator's status write raced our read: the update
    // reads the latest resourceVersion, and a status update in between makes the PUT a 409.
    for (int attempt = 1; ; attempt++) {
      cluster.getMetadata().setResourceVersion(null);
      try {
        return client().resource(cluster).createOr(r -> r.update());
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  /** The document of {@code kind} in a multi-document YAML file, exactly as the file has it. */
  public static String document(Path file, String kind) throws IOException {
    for (String doc : Files.readString(file).split("(?m)^---$")) {
      if (doc.contains("kind: " + kind)) {
        return doc;
      }
    }
    throw new AssertionError("no " + kind + " in " + file);
  }

  /** A Secret as cert-manager writes it ({@code kubernetes.io/tls}, the keys base64-encoded). */
  public static io.fabric8.kubernetes.api.model.Secret tlsSecret(
      String namespace, String name, java.util.Map<String, byte[]> data) {
    java.util.Map<String, String> encoded = new java.util.TreeMap<>();
    data.forEach((k, v) -> encoded.put(k, java.util.Base64.getEncoder().encodeToString(v)));
    return new io.fabric8.kubernetes.api.model.SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withType("kubernetes.io/tls")
        .withData(encoded)
        .build();
  }

  public Resource<EtcdCluster> cluster(String name) {
    return client().resources(EtcdCluster.class).inNamespace(NS).withName(name);
  }

  public EtcdClusterStatus status(String name) {
    EtcdCluster c = cluster(name).get();
    return c == null ? null : c.getStatus();
  }

  public static Optional<Condition> condition(EtcdClusterStatus status, String type) {
    if (status == null || status.getConditions() == null) {
      return Optional.empty();
    }
    return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** {@code status/reason} of a condition, e.g. {@code True/QuorumHeld}, or null. */
  public String condition(String name, String type) {
    return condition(status(name), type).map(c -> c.getStatus() + "/" + c.getReason()).orElse(null);
  }

  public boolean ready(String name) {
    return "True".equals(condition(status(name), "Ready").map(Condition::getStatus).orElse(null));
  }

  public void awaitReady(String name, Duration atMost) {
    await().atMost(atMost).pollInterval(Duration.ofMillis(100)).until(() -> ready(name));
  }

  public Optional<MemberStatus> member(String cluster, String member) {
    EtcdClusterStatus s = status(cluster);
    if (s == null || s.getMembers() == null) {
      return Optional.empty();
    }
    return s.getMembers().stream().filter(m -> member.equals(m.getName())).findFirst();
  }

  /** Polls the status every 20 ms until it satisfies the test; returns how long that took. */
  public Duration timeUntil(String cluster, Predicate<EtcdClusterStatus> test, Duration atMost) {
    long start = System.nanoTime();
    await()
        .atMost(atMost)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> test.test(status(cluster)));
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /**
   * Kills the pod's etcd container, waits for it to run again, and kills it again: then the kubelet
   * waits out its back-off before the next start.
   */
  public void killAndKeepDown(String pod) {
    int before = restarts(pod);
    sandbox.faults().kill(NS, pod, "etcd");
    await().atMost(Duration.ofSeconds(30)).until(() -> restarts(pod) > before && running(pod));
    sandbox.faults().kill(NS, pod, "etcd");
  }

  /**
   * Kills the etcd containers of these pods, waits until each runs again, and kills them all again
   * at once: then every one of them waits out its back-off before its next start, together.
   */
  public void killAllAndKeepDown(List<String> pods) {
    java.util.Map<String, Integer> before = new java.util.HashMap<>();
    pods.forEach(p -> before.put(p, restarts(p)));
    pods.forEach(p -> sandbox.faults().kill(NS, p, "etcd"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> pods.stream().allMatch(p -> restarts(p) > before.get(p) && running(p)));
    pods.forEach(p -> sandbox.faults().kill(NS, p, "etcd"));
  }

  int restarts(String pod) {
    var p = client().pods().inNamespace(NS).withName(pod).get();
    return p == null || p.getStatus() == null || p.getStatus().getContainerStatuses() == null
        ? 0
        : p.getStatus().getContainerStatuses().stream()
            .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
            .sum();
  }

  boolean running(String pod) {
    var p = client().pods().inNamespace(NS).withName(pod).get();
    return p != null
        && p.getStatus() != null
        && p.getStatus().getContainerStatuses() != null
        && p.getStatus().getContainerStatuses().stream()
            .allMatch(c -> c.getState() != null && c.getState().getRunning() != null);
  }

  /** Prints every change of the cluster's conditions with a timestamp (a watch; for diagnosis). */
  public void recordStatusChanges(String name) {
    cluster(name)
        .watch(
            new io.fabric8.kubernetes.client.Watcher<EtcdCluster>() {
              String last = "";

              @Override
              public void eventReceived(Action action, EtcdCluster resource) {
                String now =
                    resource.getStatus() == null
                        ? ""
                        : resource.getStatus().getConditions().stream()
                            .map(
                                c ->
                                    c.getType()
                                        + "="
                                        + c.getStatus()
                                        + "/"
                                        + c.getReason()
                                        + ("Progressing".equals(c.getType())
                                            ? " (" + c.getMessage() + ")"
                                            : ""))
                            .toList()
                            .toString();
                if (!now.equals(last)) {
                  last = now;
                  System.out.println(java.time.Instant.now() + " " + now);
                }
              }

              @Override
              public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
            });
  }

  public List<String> podNames() {
    return client().pods().inNamespace(NS).list().getItems().stream()
        .map(p -> p.getMetadata().getName())
        .sorted()
        .toList();
  }

  @Override
  public void close() {
    sandbox.close();
  }
}
