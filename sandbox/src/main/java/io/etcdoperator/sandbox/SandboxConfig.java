package io.etcdoperator.sandbox;

import io.etcdoperator.sandbox.kubelet.EtcdImages;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Settings of one sandbox. Defaults are a real cluster's (restart back-off 10 s doubling to 5 min,
 * grace period as the pod says up to 30 s); tests shorten them.
 *
 * @param stateDir where everything of this sandbox lives (PVC directories, logs, kubeconfig)
 * @param etcdBinaries where the etcd versions that etcd images run are unpacked (see {@link
 *     io.etcdoperator.sandbox.kubelet.EtcdImages})
 * @param restartBackoff the first non-zero restart delay of a crashing container
 * @param maxRestartBackoff the cap of the restart delay
 * @param maxGracePeriod the longest a stopping container gets between SIGTERM and SIGKILL
 * @param resync how often controllers re-examine everything even without events
 * @param rbacManifest the manifest of {@code deploy/} whose ServiceAccount the operator acts as,
 *     under its RBAC ({@code cluster-scope.yaml} by default, or {@code namespace-scope.yaml})
 * @param nodes how many nodes the sandbox has: {@code node-0} ... {@code node-<n-1>} (default 3)
 * @param nodeMonitorGracePeriod how long a node's Lease may go unrenewed before the node lifecycle
 *     controller marks it Unknown and taints it unreachable (Kubernetes' default: 40 s)
 * @param defaultTolerationSeconds the tolerationSeconds the DefaultTolerationSeconds admission
 *     gives pods for the not-ready and unreachable taints (Kubernetes' default: 300 s)
 * @param nodeLeaseRenewInterval how often each node's kubelet renews its Lease and posts its status
 *     (Kubernetes' default: 10 s)
 * @param fakeEtcd etcd containers are answered by the load generator ({@link
 *     io.etcdoperator.sandbox.fake.FakeEtcd}) instead of etcd processes: for benchmarks of many
 *     clusters only, never for a test of correctness
 * @param peerLinks members of one cluster reach each other through the sandbox's links ({@link
 *     io.etcdoperator.sandbox.net.PeerLinks}), which faults can cut or slow (off by default)
 * @param tokenTtl the lifetime of the ServiceAccount tokens the kubelet puts in pods, shorter than
 *     the {@code expirationSeconds} they ask for (null: as asked, an hour by default; the API
 *     server never extends them): tests shorten it to see a pod's process read its token again
 */
public record SandboxConfig(
    Path stateDir,
    Path etcdBinaries,
    Duration restartBackoff,
    Duration maxRestartBackoff,
    Duration maxGracePeriod,
    Duration resync,
    String rbacManifest,
    int nodes,
    Duration nodeMonitorGracePeriod,
    Duration defaultTolerationSeconds,
    Duration nodeLeaseRenewInterval,
    boolean fakeEtcd,
    boolean peerLinks,
    Duration tokenTtl) {

  /** The RBAC of {@code deploy/cluster-scope.yaml}: the operator watches every namespace. */
  public static final String CLUSTER_SCOPE = "cluster-scope.yaml";

  /** The RBAC of {@code deploy/namespace-scope.yaml}: the operator watches its own namespace. */
  public static final String NAMESPACE_SCOPE = "namespace-scope.yaml";

  /** A real cluster's timings, the local etcd versions, and the given state directory. */
  public static SandboxConfig defaults(Path stateDir) {
    return new SandboxConfig(
        stateDir.toAbsolutePath().normalize(),
        EtcdImages.defaultDirectory(),
        Duration.ofSeconds(10),
        Duration.ofMinutes(5),
        Duration.ofSeconds(30),
        Duration.ofSeconds(1),
        CLUSTER_SCOPE,
        3,
        Duration.ofSeconds(40),
        Duration.ofSeconds(300),
        Duration.ofSeconds(10),
        false,
        false,
        null);
  }

  public SandboxConfig withRestartBackoff(Duration base, Duration max) {
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        base,
        max,
        maxGracePeriod,
        resync,
        rbacManifest,
        nodes,
        nodeMonitorGracePeriod,
        defaultTolerationSeconds,
        nodeLeaseRenewInterval,
        fakeEtcd,
        peerLinks,
        tokenTtl);
  }

  public SandboxConfig withMaxGracePeriod(Duration grace) {
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        restartBackoff,
        maxRestartBackoff,
        grace,
        resync,
        rbacManifest,
        nodes,
        nodeMonitorGracePeriod,
        defaultTolerationSeconds,
        nodeLeaseRenewInterval,
        fakeEtcd,
        peerLinks,
        tokenTtl);
  }

  /** The number of nodes, {@code node-0} ... {@code node-<count-1>}; at least 1. */
  public SandboxConfig withNodes(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("a sandbox needs at least one node, not " + count);
    }
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        restartBackoff,
        maxRestartBackoff,
        maxGracePeriod,
        resync,
        rbacManifest,
        count,
        nodeMonitorGracePeriod,
        defaultTolerationSeconds,
        nodeLeaseRenewInterval,
        fakeEtcd,
        peerLinks,
        tokenTtl);
  }

  /**
   * Node timings: the lifecycle controller's grace period for an unrenewed Lease, the default
   * tolerationSeconds of the not-ready and unreachable taints, and the kubelets' Lease renewal
   * interval (Kubernetes: 40 s, 300 s, 10 s).
   */
  public SandboxConfig withNodeTimings(
      Duration gracePeriod, Duration defaultToleration, Duration renewInterval) {
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        restartBackoff,
        maxRestartBackoff,
        maxGracePeriod,
        resync,
        rbacManifest,
        nodes,
        gracePeriod,
        defaultToleration,
        renewInterval,
        fakeEtcd,
        peerLinks,
        tokenTtl);
  }

  /**
   * How often controllers look at everything without an event (a real one's informers resync
   * rarely; the sandbox's default of 1 s keeps tests quick, and costs a list of every object per
   * controller and second, which thousands of objects make the sandbox's own load).
   */
  public SandboxConfig withResync(Duration value) {
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        restartBackoff,
        maxRestartBackoff,
        maxGracePeriod,
        value,
        rbacManifest,
        nodes,
        nodeMonitorGracePeriod,
        defaultTolerationSeconds,
        nodeLeaseRenewInterval,
        fakeEtcd,
        peerLinks,
        tokenTtl);
  }

  /** Etcd containers answered by the load generator, for a benchmark (see {@link #fakeEtcd}). */
  public SandboxConfig withFakeEtcd() {
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        restartBackoff,
        maxRestartBackoff,
        maxGracePeriod,
        resync,
        rbacManifest,
        nodes,
        nodeMonitorGracePeriod,
        defaultTolerationSeconds,
        nodeLeaseRenewInterval,
        true,
        peerLinks,
        tokenTtl);
  }

  /**
   * Members reach each other through links that faults can cut or slow (see {@link #peerLinks}).
   */
  public SandboxConfig withPeerLinks() {
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        restartBackoff,
        maxRestartBackoff,
        maxGracePeriod,
        resync,
        rbacManifest,
        nodes,
        nodeMonitorGracePeriod,
        defaultTolerationSeconds,
        nodeLeaseRenewInterval,
        fakeEtcd,
        true,
        tokenTtl);
  }

  /** The name of node {@code i}: {@code node-<i>}. */
  public static String nodeName(int i) {
    return "node-" + i;
  }

  /** The names of this sandbox's nodes, in order. */
  public List<String> nodeNames() {
    return IntStream.range(0, nodes).mapToObj(SandboxConfig::nodeName).toList();
  }

  /** ServiceAccount tokens in pods expire after {@code ttl}; the kubelet renews them at 80 %. */
  public SandboxConfig withTokenTtl(Duration ttl) {
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        restartBackoff,
        maxRestartBackoff,
        maxGracePeriod,
        resync,
        rbacManifest,
        nodes,
        nodeMonitorGracePeriod,
        defaultTolerationSeconds,
        nodeLeaseRenewInterval,
        fakeEtcd,
        peerLinks,
        ttl);
  }

  /**
   * The operator acts as the ServiceAccount of this manifest of {@code deploy/}, under its RBAC.
   */
  public SandboxConfig withRbac(String manifest) {
    return new SandboxConfig(
        stateDir,
        etcdBinaries,
        restartBackoff,
        maxRestartBackoff,
        maxGracePeriod,
        resync,
        manifest,
        nodes,
        nodeMonitorGracePeriod,
        defaultTolerationSeconds,
        nodeLeaseRenewInterval,
        fakeEtcd,
        peerLinks,
        tokenTtl);
  }

  /** The tag every process of a sandbox in this state directory carries (see ProcessSweeper). */
  public String tag() {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256")
              .digest(stateDir.toString().getBytes(StandardCharsets.UTF_8));
      return "sandbox-" + HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public Path podsDir() {
    return stateDir.resolve("pods");
  }

  public Path logDir() {
    return stateDir.resolve("logs");
  }

  public Path dnsDir() {
    return stateDir.resolve("dns");
  }

  public Path claimsDir() {
    return stateDir.resolve("pvc");
  }

  /**
   * The directory of a claim: {@code pvc/<namespace>/<name>.<uid>} (a recreated claim is empty).
   */
  public Path claimDir(PersistentVolumeClaim claim) {
    return claimsDir()
        .resolve(claim.getMetadata().getNamespace())
        .resolve(claim.getMetadata().getName() + "." + claim.getMetadata().getUid());
  }

  public Path kubeconfig() {
    return stateDir.resolve("kubeconfig");
  }
}
