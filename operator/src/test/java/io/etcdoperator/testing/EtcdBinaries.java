package io.etcdoperator.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The etcd versions tests run: unpacked side by side by {@code scripts/ensure-etcd} as {@code
 * <repo>/.cache/etcd/<major.minor.patch>/bin/{etcd,etcdctl}}. The directory is the system property
 * {@code etcd.binaries} (the build sets it), else the first {@code .cache/etcd} from the working
 * directory upwards.
 */
public final class EtcdBinaries {
  /** The version tests run by default: the one the operator's default image names. */
  public static final String DEFAULT = "3.5";

  /** Every version the operator supports, oldest first: tests of etcd's own behaviour run each. */
  public static final List<String> SUPPORTED = List.of("3.4", "3.5");

  private EtcdBinaries() {}

  public static Path directory() {
    String configured = System.getProperty("etcd.binaries");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve(".cache/etcd"))) {
        return p.resolve(".cache/etcd");
      }
    }
    throw new IllegalStateException("no .cache/etcd above " + Path.of("").toAbsolutePath());
  }

  /** The {@code bin} directory of the newest patch of {@code majorMinor} ("3.5"). */
  public static Path bin(String majorMinor) {
    Path dir = directory();
    try (Stream<Path> versions = Files.list(dir)) {
      Optional<Path> newest =
          versions
              .filter(d -> d.getFileName().toString().startsWith(majorMinor + "."))
              .filter(d -> Files.isExecutable(d.resolve("bin/etcd")))
              .max(Comparator.comparing(EtcdBinaries::patchOf));
      return newest
          .map(d -> d.resolve("bin"))
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no etcd " + majorMinor + ".x in " + dir + ": run scripts/ensure-etcd"));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + dir + ": run scripts/ensure-etcd", e);
    }
  }

  /** The etcd binary of {@code majorMinor}. */
  public static String etcd(String majorMinor) {
    return bin(majorMinor).resolve("etcd").toString();
  }

  /** The full version of the newest patch of {@code majorMinor}, e.g. 3.5.30. */
  public static String fullVersion(String majorMinor) {
    return bin(majorMinor).getParent().getFileName().toString();
  }

  private static int patchOf(Path versionDir) {
    String[] parts = versionDir.getFileName().toString().split("\\.");
    try {
      return parts.length > 2 ? Integer.parseInt(parts[2]) : 0;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
