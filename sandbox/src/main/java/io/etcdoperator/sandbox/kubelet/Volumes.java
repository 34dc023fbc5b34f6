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
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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

  /** The configMap and secret volumes, by name, which {@link #refresh} keeps up to date. */
  private final Map<String, Volume> projected;

  private final String namespace;
  private final Long fsGroup;

  private Volumes(
      Path podDir,
      Map<String, Path> byName,
      Map<String, Path> claims,
      Map<String, Volume> projected,
      String namespace,
      Long fsGroup) {
    this.podDir = podDir;
    this.byName = byName;
    this.claims = claims;
    this.projected = projected;
    this.namespace = namespace;
    this.fsGroup = fsGroup;
  }

  /**
   * Writes each configMap and secret volume again from the object as it is now, where it changed
   * (as a kubelet's periodic sync does; see {@link AtomicFiles}). An object that is gone leaves the
   * files as they were. Returns the names of the volumes that changed.
   */
  List<String> refresh(Kubelet kubelet) throws IOException {
    List<String> changed = new ArrayList<>();
    for (Map.Entry<String, Volume> e : projected.entrySet()) {
      Path dir = byName.get(e.getKey());
      Map<String, AtomicFiles.Entry> files = files(kubelet, namespace, e.getValue());
      if (files != null && AtomicFiles.write(dir, files, fsGroup)) {
        changed.add(e.getKey());
      }
    }
    return changed;
  }

  /**
   * Writes a configMap or secret volume; false when its object is missing and not optional (an
   * optional one that is missing gives an empty volume).
   */
  private static boolean project(Kubelet kubelet, String ns, Volume v, Path dir, Long fsGroup)
      throws IOException {
    Map<String, AtomicFiles.Entry> files = files(kubelet, ns, v);
    boolean optional =
        v.getSecret() != null
            ? Boolean.TRUE.equals(v.getSecret().getOptional())
            : Boolean.TRUE.equals(v.getConfigMap().getOptional());
    if (files == null && !optional) {
      return false;
    }
    AtomicFiles.write(dir, files == null ? Map.of() : files, fsGroup);
    return true;
  }

  /** The files a configMap or secret volume holds now; null when its object does not exist. */
  private static Map<String, AtomicFiles.Entry> files(Kubelet kubelet, String ns, Volume v) {
    Map<String, byte[]> data = new HashMap<>();
    List<KeyToPath> items;
    Integer defaultMode;
    if (v.getSecret() != null) {
      Secret s = kubelet.objects().secret(ns, v.getSecret().getSecretName());
      if (s == null) {
        return null;
      }
      if (s.getData() != null) {
        s.getData().forEach((k, val) -> data.put(k, Base64.getDecoder().decode(val)));
      }
      if (s.getStringData() != null) {
        s.getStringData().forEach((k, val) -> data.put(k, val.getBytes(StandardCharsets.UTF_8)));
      }
      items = v.getSecret().getItems();
      defaultMode = v.getSecret().getDefaultMode();
    } else {
      ConfigMap cm = kubelet.objects().configMap(ns, v.getConfigMap().getName());
      if (cm == null) {
        return null;
      }
      if (cm.getData() != null) {
        cm.getData().forEach((k, val) -> data.put(k, val.getBytes(StandardCharsets.UTF_8)));
      }
      if (cm.getBinaryData() != null) {
        cm.getBinaryData().forEach((k, val) -> data.put(k, Base64.getDecoder().decode(val)));
      }
      items = v.getConfigMap().getItems();
      defaultMode = v.getConfigMap().getDefaultMode();
    }
    int mode = defaultMode == null ? 0644 : defaultMode;
    Map<String, AtomicFiles.Entry> files = new TreeMap<>();
    if (items == null || items.isEmpty()) {
      data.forEach((k, b) -> files.put(k, new AtomicFiles.Entry(b, mode)));
    } else {
      for (KeyToPath item : items) {
        byte[] b = data.get(item.getKey());
        if (b != null) {
          files.put(
              item.getPath(),
              new AtomicFiles.Entry(b, item.getMode() == null ? mode : item.getMode()));
        }
      }
    }
    return files;
  }

  /**
   * The container's termination message file, emptied: bind-mounted at its message path. Writable
   * by anyone, as a kubelet makes it, so that a container running as a non-root user can leave its
   * last words.
   */
  Path terminationFile(String container) throws IOException {
    Path f = podDir.resolve("termination").resolve(container);
    Files.createDirectories(f.getParent());
    Files.write(f, new byte[0]);
    Files.setPosixFilePermissions(f, AtomicFiles.permissions(0666));
    return f;
  }

  /** What the container wrote there (at most 4096 bytes, as the kubelet keeps), or "". */
  String readTermination(String container) {
    Path f = podDir.resolve("termination").resolve(container);
    try {
      byte[] b = Files.exists(f) ? Files.readAllBytes(f) : new byte[0];
      String s = new String(b, 0, Math.min(b.length, 4096), StandardCharsets.UTF_8);
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
    Map<String, Volume> projected = new HashMap<>();
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
      } else if (v.getConfigMap() != null || v.getSecret() != null) {
        if (!project(kubelet, ns, v, dir, fsGroup)) {
          throw new NotReady(
              (v.getSecret() != null ? "secret \"" : "configmap \"")
                  + (v.getSecret() != null
                      ? v.getSecret().getSecretName()
                      : v.getConfigMap().getName())
                  + "\" not found");
        }
        projected.put(v.getName(), v);
      } else {
        Files.createDirectories(dir);
      }
      if (fsGroup != null
          && v.getHostPath() == null
          && v.getConfigMap() == null
          && v.getSecret() == null) {
        applyFsGroup(
            dir,
            fsGroup,
            fsGroupChangePolicy,
            v.getPersistentVolumeClaim() == null && v.getEmptyDir() == null);
      }
      byName.put(v.getName(), dir);
    }
    return new Volumes(podDir, byName, claims, projected, ns, fsGroup);
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
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
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
}
