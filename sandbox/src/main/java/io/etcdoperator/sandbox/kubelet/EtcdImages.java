package io.etcdoperator.sandbox.kubelet;

import io.etcdoperator.operator.model.EtcdVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The etcd versions this machine has, and which one an etcd image runs: the sandbox's stand-in for
 * pulling an image. Versions are unpacked side by side ({@code scripts/ensure-etcd}) as {@code
 * <dir>/<major.minor.patch>/bin/{etcd,etcdctl,etcdutl}}.
 *
 * <p>An image runs the local version of the same major.minor as its tag, the newest patch of it
 * when several are there ({@code quay.io/coreos/etcd:v3.5.17} and {@code
 * registry.k8s.io/etcd:3.5.21-0} both run 3.5.30 here; the kubelet logs the difference). An image
 * without a version in its tag ({@code latest}, a digest) runs the newest version. A major.minor
 * the machine does not have cannot be "pulled": the container waits in {@code ErrImagePull}, then
 * {@code ImagePullBackOff}, with the reason, as on a cluster whose registry lacks the tag.
 */
public final class EtcdImages {
  /** The property (and, upper-cased with underscores, the environment variable) naming the dir. */
  public static final String PROPERTY = "etcd.binaries";

  private final Path dir;
  private final TreeMap<EtcdVersion, Path> versions;

  /** An image the machine has no etcd for. */
  public static final class ImageUnavailable extends ContainerConfig.ConfigError {
    public ImageUnavailable(String message) {
      super(message);
    }
  }

  /**
   * What an image runs here.
   *
   * @param requested the version the tag names, if any
   * @param version the local version that runs
   * @param bin its {@code bin} directory
   */
  public record Resolution(Optional<EtcdVersion> requested, EtcdVersion version, Path bin) {
    public String etcd() {
      return bin.resolve("etcd").toString();
    }

    /** {@code etcd}, {@code etcdctl} or {@code etcdutl} of this version. */
    public String tool(String name) {
      return bin.resolve(name).toString();
    }

    /** Whether the local patch differs from the one the tag names. */
    public boolean patchDiffers() {
      return requested.map(r -> !r.equals(version)).orElse(false);
    }
  }

  private EtcdImages(Path dir, TreeMap<EtcdVersion, Path> versions) {
    this.dir = dir;
    this.versions = versions;
  }

  /** The versions unpacked in {@code dir} (none when it does not exist). */
  public static EtcdImages scan(Path dir) {
    TreeMap<EtcdVersion, Path> versions = new TreeMap<>();
    if (Files.isDirectory(dir)) {
      try (Stream<Path> entries = Files.list(dir)) {
        entries.forEach(
            d ->
                EtcdVersion.parse(d.getFileName().toString())
                    .filter(v -> d.getFileName().toString().equals(v.toString()))
                    .filter(v -> Files.isExecutable(d.resolve("bin/etcd")))
                    .ifPresent(v -> versions.put(v, d.resolve("bin"))));
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + dir, e);
      }
    }
    return new EtcdImages(dir.toAbsolutePath(), versions);
  }

  /**
   * Where the versions are: the system property {@value #PROPERTY}, else the environment variable
   * {@code ETCD_BINARIES}, else the first {@code .cache/etcd} found from the working directory
   * upwards (a checkout where {@code scripts/ensure-etcd} ran).
   */
  public static Path defaultDirectory() {
    String configured = System.getProperty(PROPERTY, System.getenv("ETCD_BINARIES"));
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve(".cache/etcd"))) {
        return p.resolve(".cache/etcd");
      }
    }
    return Path.of(".cache", "etcd").toAbsolutePath();
  }

  public Path directory() {
    return dir;
  }

  public List<EtcdVersion> versions() {
    return List.copyOf(versions.keySet());
  }

  /** The newest local version of a major.minor, if the machine has it. */
  public Optional<Resolution> version(String majorMinor) {
    return versions.descendingMap().entrySet().stream()
        .filter(e -> e.getKey().minorVersion().equals(majorMinor))
        .findFirst()
        .map(e -> new Resolution(Optional.empty(), e.getKey(), e.getValue()));
  }

  /** What {@code image} runs here. */
  public Resolution resolve(String image) throws ImageUnavailable {
    if (versions.isEmpty()) {
      throw new ImageUnavailable(
          "Failed to pull image \""
              + image
              + "\": the sandbox has no etcd binaries in "
              + dir
              + "; run scripts/ensure-etcd");
    }
    String repository = image == null ? "" : image.replaceAll("[:@].*$", "");
    if (!repository.substring(repository.lastIndexOf('/') + 1).contains("etcd")) {
      throw new ImageUnavailable(
          "Failed to pull image \""
              + image
              + "\": the sandbox runs etcd images only; give a container of another image a"
              + " command to run");
    }
    Optional<EtcdVersion> requested = EtcdVersion.ofImage(image);
    if (requested.isEmpty()) {
      var newest = versions.lastEntry();
      return new Resolution(Optional.empty(), newest.getKey(), newest.getValue());
    }
    return versions.descendingMap().entrySet().stream()
        .filter(e -> e.getKey().sameMinor(requested.get()))
        .findFirst()
        .map(e -> new Resolution(requested, e.getKey(), e.getValue()))
        .orElseThrow(
            () ->
                new ImageUnavailable(
                    "Failed to pull image \""
                        + image
                        + "\": the sandbox has no etcd "
                        + requested.get().minorVersion()
                        + " (it has "
                        + String.join(
                            ", ", versions.keySet().stream().map(String::valueOf).toList())
                        + ")"));
  }
}
