package io.etcdoperator.sandbox;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

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
 */
public record SandboxConfig(
    Path stateDir,
    Path etcdBinaries,
    Duration restartBackoff,
    Duration maxRestartBackoff,
    Duration maxGracePeriod,
    Duration resync,
    String rbacManifest) {

  /** The RBAC of {@code deploy/cluster-scope.yaml}: the operator watches every namespace. */
  public static final String CLUSTER_SCOPE = "cluster-scope.yaml";

  /** The RBAC of {@code deploy/namespace-scope.yaml}: the operator watches its own namespace. */
  public static final String NAMESPACE_SCOPE = "namespace-scope.yaml";

  /** A real cluster's timings, the local etcd versions, and the given state directory. */
  public static SandboxConfig defaults(Path stateDir) {
    return new SandboxConfig(
        stateDir.toAbsolutePath().normalize(),
        io.etcdoperator.sandbox.kubelet.EtcdImages.defaultDirectory(),
        Duration.ofSeconds(10),
        Duration.ofMinutes(5),
        Duration.ofSeconds(30),
        Duration.ofSeconds(1),
        CLUSTER_SCOPE);
  }

  public SandboxConfig withRestartBackoff(Duration base, Duration max) {
    return new SandboxConfig(
        stateDir, etcdBinaries, base, max, maxGracePeriod, resync, rbacManifest);
  }

  public SandboxConfig withMaxGracePeriod(Duration grace) {
    return new SandboxConfig(
        stateDir, etcdBinaries, restartBackoff, maxRestartBackoff, grace, resync, rbacManifest);
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
        manifest);
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
