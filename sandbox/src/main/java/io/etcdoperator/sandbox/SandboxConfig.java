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
 * @param etcdBinary the etcd binary that etcd containers run, whatever their image
 * @param restartBackoff the first non-zero restart delay of a crashing container
 * @param maxRestartBackoff the cap of the restart delay
 * @param maxGracePeriod the longest a stopping container gets between SIGTERM and SIGKILL
 * @param resync how often controllers re-examine everything even without events
 */
public record SandboxConfig(
    Path stateDir,
    String etcdBinary,
    Duration restartBackoff,
    Duration maxRestartBackoff,
    Duration maxGracePeriod,
    Duration resync) {

  /** A real cluster's timings, the local etcd binary, and the given state directory. */
  public static SandboxConfig defaults(Path stateDir) {
    return new SandboxConfig(
        stateDir.toAbsolutePath().normalize(),
        defaultEtcdBinary(),
        Duration.ofSeconds(10),
        Duration.ofMinutes(5),
        Duration.ofSeconds(30),
        Duration.ofSeconds(1));
  }

  /**
   * Debian's {@code /usr/bin/etcd}, or, when it is not installed, the 3.4 binary
   * scripts/ensure-etcd unpacks under {@code .cache/etcd} (found from the working directory up).
   */
  static String defaultEtcdBinary() {
    String debian = "/usr/bin/etcd";
    if (java.nio.file.Files.isExecutable(Path.of(debian))) {
      return debian;
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path cache = d.resolve(".cache/etcd");
      if (java.nio.file.Files.isDirectory(cache)) {
        try (var versions = java.nio.file.Files.list(cache)) {
          var bin =
              versions
                  .filter(v -> v.getFileName().toString().startsWith("3.4."))
                  .map(v -> v.resolve("bin/etcd"))
                  .filter(java.nio.file.Files::isExecutable)
                  .findFirst();
          if (bin.isPresent()) {
            return bin.get().toString();
          }
        } catch (java.io.IOException e) {
          // look further up
        }
      }
    }
    return debian;
  }

  public SandboxConfig withRestartBackoff(Duration base, Duration max) {
    return new SandboxConfig(stateDir, etcdBinary, base, max, maxGracePeriod, resync);
  }

  public SandboxConfig withMaxGracePeriod(Duration grace) {
    return new SandboxConfig(
        stateDir, etcdBinary, restartBackoff, maxRestartBackoff, grace, resync);
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
