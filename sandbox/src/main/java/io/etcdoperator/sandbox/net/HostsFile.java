package io.etcdoperator.sandbox.net;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Writes hosts files. A pod's is written in place ({@link #write}): the same inode is truncated and
 * rewritten, never replaced, so that a bind mount of it over {@code /etc/hosts} in a pod's mount
 * namespace sees every change. The JVM's is replaced whole ({@link #replace}): the JDK reads it on
 * every lookup, and a lookup between the truncation and the write of an in-place rewrite found no
 * name at all (every member of a healthy cluster "not answering" for one probe).
 */
public final class HostsFile {
  private HostsFile() {}

  /** Renders entries (name to addresses) after a header and the localhost lines. */
  public static String render(String header, Map<String, List<String>> entries) {
    StringBuilder b = new StringBuilder();
    b.append("# ").append(header).append('\n');
    b.append("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    entries.forEach(
        (name, addresses) ->
            addresses.forEach(a -> b.append(a).append('\t').append(name).append('\n')));
    return b.toString();
  }

  /**
   * Replaces the file with one holding {@code content}, atomically (a new file renamed over it): a
   * reader sees the old content or the new, never a part; does nothing when the content is
   * unchanged.
   */
  public static synchronized void replace(Path file, String content) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    if (Files.exists(file) && Arrays.equals(Files.readAllBytes(file), bytes)) {
      return;
    }
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path next = Files.createTempFile(dir, file.getFileName().toString(), ".next");
    try {
      Files.write(next, bytes);
      // readable by every user, as /etc/hosts is: an operator run as a container's non-root user
      // reads the sandbox's names from it (ImageE2EIT)
      Files.setPosixFilePermissions(next, PosixFilePermissions.fromString("rw-r--r--"));
      Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(next);
    }
  }

  /**
   * Replaces the content of the file, keeping its inode; does nothing when the content is
   * unchanged. A reader may see it empty or partly written for a moment.
   */
  public static synchronized void write(Path file, String content) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    if (Files.exists(file) && Arrays.equals(Files.readAllBytes(file), bytes)) {
      return;
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(0);
      f.write(bytes);
      f.getFD().sync();
    }
  }
}
