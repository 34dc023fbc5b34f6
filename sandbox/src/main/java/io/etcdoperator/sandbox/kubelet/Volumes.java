package io.etcdoperator.sandbox.kubelet;

import io.etcdoperator.sandbox.process.ProcessLauncher;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A pod's volumes as directories: a persistentVolumeClaim is the claim's directory (see {@link
 * io.etcdoperator.sandbox.controller.VolumeController}), which outlives the pod; emptyDir,
 * configMap and secret volumes live in the pod's own directory and are deleted with the pod;
 * hostPath is the path itself; downwardAPI and projected volumes (secret, configMap, downwardAPI
 * and serviceAccountToken sources) are written into the pod's directory like configMap volumes, the
 * token again when it is due for renewal (see {@link Kubelet#serviceAccountToken}). A pod's fsGroup
 * is applied to every volume but hostPath ({@link #applyFsGroup}).
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

  private final Pod pod;
  private final Long fsGroup;

  /** The token each serviceAccountToken volume holds, by volume name. */
  private final Map<String, Kubelet.PodToken> tokens;

  private Volumes(
      Path podDir,
      Map<String, Path> byName,
      Map<String, Path> claims,
      Map<String, Volume> projected,
      Pod pod,
      Long fsGroup,
      Map<String, Kubelet.PodToken> tokens) {
    this.podDir = podDir;
    this.byName = byName;
    this.claims = claims;
    this.projected = projected;
    this.pod = pod;
    this.fsGroup = fsGroup;
    this.tokens = tokens;
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
      Map<String, AtomicFiles.Entry> files = files(kubelet, e.getValue());
      if (files != null && AtomicFiles.write(dir, files, fsGroup)) {
        changed.add(e.getKey());
      }
    }
    return changed;
  }

  /**
   * The files a configMap, secret, projected or downwardAPI volume holds now; null when an object
   * it needs and does not mark optional does not exist.
   */
  private Map<String, AtomicFiles.Entry> files(Kubelet kubelet, Volume v) {
    return files(kubelet, pod, v, tokens);
  }

  private static Map<String, AtomicFiles.Entry> files(
      Kubelet kubelet, Pod pod, Volume v, Map<String, Kubelet.PodToken> tokens) {
    String ns = pod.getMetadata().getNamespace();
    Map<String, AtomicFiles.Entry> files = new TreeMap<>();
    if (v.getSecret() != null) {
      Map<String, byte[]> data = secretData(kubelet, ns, v.getSecret().getSecretName());
      if (data == null) {
        return Boolean.TRUE.equals(v.getSecret().getOptional()) ? files : null;
      }
      select(data, v.getSecret().getItems(), mode(v.getSecret().getDefaultMode()), files);
    } else if (v.getConfigMap() != null) {
      Map<String, byte[]> data = configMapData(kubelet, ns, v.getConfigMap().getName());
      if (data == null) {
        return Boolean.TRUE.equals(v.getConfigMap().getOptional()) ? files : null;
      }
      select(data, v.getConfigMap().getItems(), mode(v.getConfigMap().getDefaultMode()), files);
    } else if (v.getDownwardAPI() != null) {
      downward(
          pod, v.getDownwardAPI().getItems(), mode(v.getDownwardAPI().getDefaultMode()), files);
    } else if (v.getProjected() != null) {
      int mode = mode(v.getProjected().getDefaultMode());
      for (VolumeProjection source : v.getProjected().getSources()) {
        if (source.getSecret() != null) {
          Map<String, byte[]> data = secretData(kubelet, ns, source.getSecret().getName());
          if (data == null && !Boolean.TRUE.equals(source.getSecret().getOptional())) {
            return null;
          }
          select(data == null ? Map.of() : data, source.getSecret().getItems(), mode, files);
        } else if (source.getConfigMap() != null) {
          Map<String, byte[]> data = configMapData(kubelet, ns, source.getConfigMap().getName());
          if (data == null && !Boolean.TRUE.equals(source.getConfigMap().getOptional())) {
            return null;
          }
          select(data == null ? Map.of() : data, source.getConfigMap().getItems(), mode, files);
        } else if (source.getDownwardAPI() != null) {
          downward(pod, source.getDownwardAPI().getItems(), mode, files);
        } else if (source.getServiceAccountToken() != null) {
          // one token per pod and volume, made when the volume is first written and made again
          // by the refresh that finds it due for renewal
          Long seconds = source.getServiceAccountToken().getExpirationSeconds();
          Kubelet.PodToken token =
              tokens.compute(
                  v.getName(),
                  (k, held) ->
                      held != null && Instant.now().isBefore(held.renewAt())
                          ? held
                          : kubelet.serviceAccountToken(
                              ns, pod.getSpec().getServiceAccountName(), seconds));
          files.put(
              source.getServiceAccountToken().getPath(),
              new AtomicFiles.Entry(token.value().getBytes(StandardCharsets.UTF_8), mode));
        }
      }
    } else {
      return null;
    }
    return files;
  }

  private static int mode(Integer defaultMode) {
    return defaultMode == null ? 0644 : defaultMode;
  }

  private static Map<String, byte[]> secretData(Kubelet kubelet, String ns, String name) {
    Secret s = kubelet.objects().secret(ns, name);
    if (s == null) {
      return null;
    }
    Map<String, byte[]> data = new HashMap<>();
    if (s.getData() != null) {
      s.getData().forEach((k, val) -> data.put(k, Base64.getDecoder().decode(val)));
    }
    if (s.getStringData() != null) {
      s.getStringData().forEach((k, val) -> data.put(k, val.getBytes(StandardCharsets.UTF_8)));
    }
    return data;
  }

  private static Map<String, byte[]> configMapData(Kubelet kubelet, String ns, String name) {
    ConfigMap cm = kubelet.objects().configMap(ns, name);
    if (cm == null) {
      return null;
    }
    Map<String, byte[]> data = new HashMap<>();
    if (cm.getData() != null) {
      cm.getData().forEach((k, val) -> data.put(k, val.getBytes(StandardCharsets.UTF_8)));
    }
    if (cm.getBinaryData() != null) {
      cm.getBinaryData().forEach((k, val) -> data.put(k, Base64.getDecoder().decode(val)));
    }
    return data;
  }

  /** Every key as a file, or only the items' keys at the items' paths. */
  private static void select(
      Map<String, byte[]> data,
      List<KeyToPath> items,
      int mode,
      Map<String, AtomicFiles.Entry> files) {
    if (items == null || items.isEmpty()) {
      data.forEach((k, b) -> files.put(k, new AtomicFiles.Entry(b, mode)));
      return;
    }
    for (KeyToPath item : items) {
      byte[] b = data.get(item.getKey());
      if (b != null) {
        files.put(
            item.getPath(),
            new AtomicFiles.Entry(b, item.getMode() == null ? mode : item.getMode()));
      }
    }
  }

  /**
   * Downward API files: the pod's name, namespace, uid, labels and annotations (one {@code
   * key="value"} line each, sorted), as {@code fieldRef}s name them; resourceFieldRef items are
   * left out.
   */
  private static void downward(
      Pod pod, List<DownwardAPIVolumeFile> items, int mode, Map<String, AtomicFiles.Entry> files) {
    for (DownwardAPIVolumeFile item : items == null ? List.<DownwardAPIVolumeFile>of() : items) {
      if (item.getFieldRef() == null) {
        continue;
      }
      var meta = pod.getMetadata();
      String value =
          switch (item.getFieldRef().getFieldPath()) {
            case "metadata.name" -> meta.getName();
            case "metadata.namespace" -> meta.getNamespace();
            case "metadata.uid" -> meta.getUid();
            case "metadata.labels" -> lines(meta.getLabels());
            case "metadata.annotations" -> lines(meta.getAnnotations());
            default -> null;
          };
      if (value != null) {
        files.put(
            item.getPath(),
            new AtomicFiles.Entry(
                value.getBytes(StandardCharsets.UTF_8),
                item.getMode() == null ? mode : item.getMode()));
      }
    }
  }

  private static String lines(Map<String, String> map) {
    StringBuilder b = new StringBuilder();
    new TreeMap<>(map == null ? Map.<String, String>of() : map)
        .forEach((k, v) -> b.append(k).append("=\"").append(v).append("\"\n"));
    return b.toString();
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
    Map<String, Kubelet.PodToken> tokens = new ConcurrentHashMap<>();
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
        Optional<String> attachError = kubelet.attach(claim, pod);
        if (attachError.isPresent()) {
          throw new NotReady(attachError.get());
        }
        dir = kubelet.config().claimDir(claim);
        Files.createDirectories(dir);
        claims.put(claimName, dir);
      } else if (v.getHostPath() != null) {
        dir = Path.of(v.getHostPath().getPath());
        if (!Files.exists(dir)) {
          Files.createDirectories(dir);
        }
      } else if (v.getConfigMap() != null
          || v.getSecret() != null
          || v.getProjected() != null
          || v.getDownwardAPI() != null) {
        Map<String, AtomicFiles.Entry> files = files(kubelet, pod, v, tokens);
        if (files == null) {
          throw new NotReady(missing(v));
        }
        AtomicFiles.write(dir, files, fsGroup);
        projected.put(v.getName(), v);
      } else {
        Files.createDirectories(dir);
      }
      if (fsGroup != null && v.getHostPath() == null && !projected.containsKey(v.getName())) {
        applyFsGroup(
            dir,
            fsGroup,
            fsGroupChangePolicy,
            v.getPersistentVolumeClaim() == null && v.getEmptyDir() == null);
      }
      byName.put(v.getName(), dir);
    }
    return new Volumes(podDir, byName, claims, projected, pod, fsGroup, tokens);
  }

  /** What a volume waits for: the first object it needs that does not exist. */
  private static String missing(Volume v) {
    if (v.getSecret() != null) {
      return "secret \"" + v.getSecret().getSecretName() + "\" not found";
    }
    if (v.getConfigMap() != null) {
      return "configmap \"" + v.getConfigMap().getName() + "\" not found";
    }
    List<String> names = new ArrayList<>();
    if (v.getProjected() != null) {
      for (VolumeProjection p : v.getProjected().getSources()) {
        if (p.getSecret() != null) {
          names.add("secret \"" + p.getSecret().getName() + "\"");
        } else if (p.getConfigMap() != null) {
          names.add("configmap \"" + p.getConfigMap().getName() + "\"");
        }
      }
    }
    return "volume " + v.getName() + ": one of " + names + " not found";
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
