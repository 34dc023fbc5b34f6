package io.etcdoperator.sandbox.kubelet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A configMap or secret volume's files, laid out and updated as a kubelet's atomic writer does, so
 * that a reader never sees half of an update: the files live in a hidden directory {@code
 * ..<stamp>}, the symlink {@code ..data} names the current one, and each visible top-level name is
 * a symlink into {@code ..data}. An update writes a new hidden directory, points a fresh symlink at
 * it and renames that over {@code ..data} (one {@code rename(2)}), then drops the visible names
 * that are gone and the old directory. A process that opens {@code tls.crt} and then {@code
 * tls.key} may see the old pair or the new one, never one of each, once it resolves both through
 * the same {@code ..data}; etcd reads its files on each handshake, which is what makes rotation
 * without restarts work on a cluster.
 *
 * <p>Modes: each file gets its own mode (an item's {@code mode}, else the volume's {@code
 * defaultMode}, else 0644); with a pod fsGroup the files belong to that group and are
 * group-readable, as the kubelet's ownership step makes them.
 */
final class AtomicFiles {
  static final String DATA = "..data";

  private AtomicFiles() {}

  /** A file of the volume: its content and its mode bits. */
  record Entry(byte[] content, int mode) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e && e.mode == mode && Arrays.equals(e.content, content);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(content) * 31 + mode;
    }
  }

  /**
   * Makes {@code dir} hold exactly {@code files} (relative path to entry); false when it already
   * did (nothing is written then).
   */
  static boolean write(Path dir, Map<String, Entry> files, Long fsGroup) throws IOException {
    Files.createDirectories(dir);
    Map<String, Entry> wanted = new TreeMap<>();
    files.forEach(
        (k, e) -> wanted.put(k, fsGroup == null ? e : new Entry(e.content(), e.mode() | 0040)));
    if (wanted.equals(current(dir))) {
      return false;
    }
    Path stamp = Files.createTempDirectory(dir, "..");
    for (Map.Entry<String, Entry> e : wanted.entrySet()) {
      Path target = stamp.resolve(e.getKey()).normalize();
      if (!target.startsWith(stamp)) {
        throw new IOException("volume path " + e.getKey() + " leaves the volume");
      }
      Files.createDirectories(target.getParent());
      Files.write(target, e.getValue().content());
      if (fsGroup != null) {
        Files.setAttribute(target, "unix:gid", fsGroup.intValue());
      }
      Files.setPosixFilePermissions(target, permissions(e.getValue().mode()));
    }
    if (fsGroup != null) {
      try (Stream<Path> dirs = Files.walk(stamp)) {
        for (Path d : dirs.filter(Files::isDirectory).toList()) {
          Files.setAttribute(d, "unix:gid", fsGroup.intValue());
          Files.setPosixFilePermissions(d, permissions(0750));
        }
      }
    } else {
      Files.setPosixFilePermissions(stamp, permissions(0755));
    }
    Path previous =
        Files.isSymbolicLink(dir.resolve(DATA)) ? Files.readSymbolicLink(dir.resolve(DATA)) : null;
    Path tmp = dir.resolve("..data_tmp");
    Files.deleteIfExists(tmp);
    Files.createSymbolicLink(tmp, stamp.getFileName());
    Files.move(tmp, dir.resolve(DATA), StandardCopyOption.ATOMIC_MOVE);

    Set<String> visible = new TreeSet<>();
    wanted.keySet().forEach(k -> visible.add(Path.of(k).getName(0).toString()));
    for (String name : visible) {
      Path link = dir.resolve(name);
      if (!Files.isSymbolicLink(link)) {
        Files.createSymbolicLink(link, Path.of(DATA, name));
      }
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        if (!name.startsWith("..") && !visible.contains(name)) {
          Files.delete(p);
        }
      }
    }
    if (previous != null) {
      deleteTree(dir.resolve(previous));
    }
    return true;
  }

  /** What {@code dir} holds now through {@code ..data}; empty if nothing was written yet. */
  static Map<String, Entry> current(Path dir) throws IOException {
    Map<String, Entry> out = new TreeMap<>();
    Path data = dir.resolve(DATA);
    if (!Files.isSymbolicLink(data)) {
      return out;
    }
    Path root = dir.resolve(Files.readSymbolicLink(data));
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).toList()) {
        int mode = (Integer) Files.getAttribute(p, "unix:mode") & 0777;
        out.put(root.relativize(p).toString(), new Entry(Files.readAllBytes(p), mode));
      }
    }
    return out;
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      all.sorted((a, b) -> b.getNameCount() - a.getNameCount())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }

  /** The low nine mode bits as permissions. */
  static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] bits = {
      PosixFilePermission.OTHERS_EXECUTE,
      PosixFilePermission.OTHERS_WRITE,
      PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE,
      PosixFilePermission.OWNER_WRITE,
      PosixFilePermission.OWNER_READ
    };
    for (int i = 0; i < bits.length; i++) {
      if ((mode & (1 << i)) != 0) {
        s.add(bits[i]);
      }
    }
    return s;
  }
}
