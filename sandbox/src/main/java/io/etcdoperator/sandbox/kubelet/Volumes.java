package io.etcdoperator.sandbox.kubelet;

import io.etcdoperator.sandbox.process.ProcessLauncher;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A pod's volumes as directories: a persistentVolumeClaim is the claim's directory (see {@link
 * io.etcdoperator.sandbox.controller.VolumeController}), which outlives the pod; emptyDir,
 * configMap and secret volumes live in the pod's own directory and are deleted with the pod;
 * hostPath is the path itself. downwardAPI and projected volumes are empty directories (not filled
 * in). A pod's fsGroup is applied to every volume but hostPath ({@link #applyFsGroup}).
 */
final class Volumes {
  /** A volume cannot be provided yet (its claim is missing, say); the pod waits. */
  static final class NotReady extends Exception {
    NotReady(String message) {
      super(message);
    }
  }

  private final Path podDir;
  private final Map<String, Path> byName;
  private final Map<String, Path> claims;

  private Volumes(Path podDir, Map<String, Path> byName, Map<String, Path> claims) {
    this.podDir = podDir;
    this.byName = byName;
    this.claims = claims;
  }

  /** The container's termination message file, emptied: bind-mounted at its message path. */
  Path terminationFile(String container) throws IOException {
    Path f = podDir.resolve("termination").resolve(container);
    Files.createDirectories(f.getParent());
    Files.write(f, new byte[0]);
    return f;
  }

  /** What the container wrote there (at most 4096 bytes, as the kubelet keeps), or "". */
  String readTermination(String container) {
    Path f = podDir.resolve("termination").resolve(container);
    try {
      byte[] b = Files.exists(f) ? Files.readAllBytes(f) : new byte[0];
      String s =
          new String(b, 0, Math.min(b.length, 4096), java.nio.charset.StandardCharsets.UTF_8);
      return s.trim();
    } catch (IOException e) {
      return "";
    }
  }

  /** Claim name to directory, for every persistentVolumeClaim volume of the pod. */
  Map<String, Path> claims() {
    return claims;
  }

  static Volumes prepare(Kubelet kubelet, Pod pod) throws NotReady, IOException {
    String ns = pod.getMetadata().getNamespace();
    Path podDir =
        kubelet
            .config()
            .podsDir()
            .resolve(ns + "_" + pod.getMetadata().getName() + "_" + pod.getMetadata().getUid());
    Map<String, Path> byName = new HashMap<>();
    Map<String, Path> claims = new HashMap<>();
    List<Volume> volumes =
        pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
    var psc = pod.getSpec().getSecurityContext();
    Long fsGroup = psc == null ? null : psc.getFsGroup();
    String fsGroupChangePolicy = psc == null ? null : psc.getFsGroupChangePolicy();
    for (Volume v : volumes) {
      Path dir = podDir.resolve("volumes").resolve(v.getName());
      if (v.getPersistentVolumeClaim() != null) {
        String claimName = v.getPersistentVolumeClaim().getClaimName();
        PersistentVolumeClaim claim = kubelet.objects().claim(ns, claimName);
        if (claim == null) {
          throw new NotReady("persistentvolumeclaim \"" + claimName + "\" not found");
        }
        if (claim.getMetadata().getDeletionTimestamp() != null) {
          throw new NotReady("persistentvolumeclaim \"" + claimName + "\" is being deleted");
        }
        if (claim.getStatus() == null || !"Bound".equals(claim.getStatus().getPhase())) {
          throw new NotReady("persistentvolumeclaim \"" + claimName + "\" is not bound yet");
        }
        dir = kubelet.config().claimDir(claim);
        Files.createDirectories(dir);
        claims.put(claimName, dir);
      } else if (v.getHostPath() != null) {
        dir = Path.of(v.getHostPath().getPath());
        if (!Files.exists(dir)) {
          Files.createDirectories(dir);
        }
      } else if (v.getConfigMap() != null) {
        ConfigMap cm = kubelet.objects().configMap(ns, v.getConfigMap().getName());
        if (cm == null && !Boolean.TRUE.equals(v.getConfigMap().getOptional())) {
          throw new NotReady("configmap \"" + v.getConfigMap().getName() + "\" not found");
        }
        Files.createDirectories(dir);
        if (cm != null && cm.getData() != null) {
          writeFiles(dir, cm.getData(), v.getConfigMap().getItems());
        }
      } else if (v.getSecret() != null) {
        Secret s = kubelet.objects().secret(ns, v.getSecret().getSecretName());
        if (s == null && !Boolean.TRUE.equals(v.getSecret().getOptional())) {
          throw new NotReady("secret \"" + v.getSecret().getSecretName() + "\" not found");
        }
        Files.createDirectories(dir);
        if (s != null && s.getData() != null) {
          Map<String, String> decoded = new HashMap<>();
          s.getData()
              .forEach(
                  (k, val) ->
                      decoded.put(
                          k, new String(Base64.getDecoder().decode(val), StandardCharsets.UTF_8)));
          writeFiles(dir, decoded, v.getSecret().getItems());
        }
      } else {
        Files.createDirectories(dir);
      }
      if (fsGroup != null && v.getHostPath() == null) {
        applyFsGroup(
            dir,
            fsGroup,
            fsGroupChangePolicy,
            v.getPersistentVolumeClaim() == null && v.getEmptyDir() == null);
      }
      byName.put(v.getName(), dir);
    }
    return new Volumes(podDir, byName, claims);
  }

  /**
   * fsGroup, as a kubelet applies it to a volume: everything in it gets the group, group read and
   * write (and execute where the owner has it), directories the setgid bit so that new files get
   * the group too. With {@code OnRootMismatch}, nothing is done when the volume's root already has
   * them. Volumes the kubelet writes itself (configMap, secret) get the group and read only.
   */
  static void applyFsGroup(Path dir, long gid, String policy, boolean readOnly) throws IOException {
    if ("OnRootMismatch".equals(policy)) {
      Object g = Files.getAttribute(dir, "unix:gid");
      int mode = (Integer) Files.getAttribute(dir, "unix:mode");
      if (g instanceof Integer i && i == gid && (mode & 02070) == 02070) {
        return;
      }
    }
    String script =
        readOnly
            ? "chgrp -R \"$1\" \"$2\" && chmod -R g+rX \"$2\""
            : "chgrp -R \"$1\" \"$2\" && chmod -R g+rwX \"$2\" && find \"$2\" -type d -exec chmod g+s {} +";
    Process p =
        new ProcessBuilder("/bin/sh", "-c", script, "fsgroup", String.valueOf(gid), dir.toString())
            .redirectErrorStream(true)
            .start();
    try {
      if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException(
            "could not apply fsGroup "
                + gid
                + " to "
                + dir
                + ": "
                + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
  }

  ProcessLauncher.Mount mount(VolumeMount m) throws IOException {
    Path source = byName.get(m.getName());
    if (source == null) {
      throw new IOException("volumeMount " + m.getName() + " names no volume of the pod");
    }
    if (m.getSubPath() != null && !m.getSubPath().isEmpty()) {
      source = source.resolve(m.getSubPath());
      if (!Files.exists(source)) {
        Files.createDirectories(source);
      }
    }
    return new ProcessLauncher.Mount(
        source, m.getMountPath(), Boolean.TRUE.equals(m.getReadOnly()));
  }

  /** The directory backing a volume of the pod. */
  Path path(String volume) {
    return byName.get(volume);
  }

  /** Deletes the pod's own directory: emptyDir, configMap and secret volumes. */
  void deletePodDirectory() {
    deleteTree(podDir);
  }

  /** Deletes what is inside a directory, keeping the directory (bind mounts of it stay valid). */
  static void emptyDirectory(Path dir) throws IOException {
    try (Stream<Path> children = Files.list(dir)) {
      for (Path c : children.toList()) {
        deleteTree(c);
      }
    }
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }

  private static void writeFiles(Path dir, Map<String, String> data, List<KeyToPath> items)
      throws IOException {
    if (items == null || items.isEmpty()) {
      for (Map.Entry<String, String> e : data.entrySet()) {
        Files.writeString(dir.resolve(e.getKey()), e.getValue());
      }
      return;
    }
    for (KeyToPath item : items) {
      String value = data.get(item.getKey());
      if (value != null) {
        Path target = dir.resolve(item.getPath());
        Files.createDirectories(target.getParent());
        Files.writeString(target, value);
      }
    }
  }
}
