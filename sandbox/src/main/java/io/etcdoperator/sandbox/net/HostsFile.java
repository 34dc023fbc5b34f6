package io.etcdoperator.sandbox.net;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes a hosts file in place: the same inode is truncated and rewritten, never replaced, so that
 * a bind mount of it over {@code /etc/hosts} in a pod's mount namespace sees every change.
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
   * Replaces the content of the file, keeping its inode; does nothing when the content is
   * unchanged.
   */
  public static synchronized void write(Path file, String content) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    if (Files.exists(file) && java.util.Arrays.equals(Files.readAllBytes(file), bytes)) {
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
