package io.etcdoperator.operator.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;

/**
 * Snapshots as files in a directory (a claim mounted in the agent's pod). An upload writes {@code
 * <key>.part}, then on commit forces it to disk, renames it to {@code <key>} and forces the
 * directory: a file under its own name is always whole.
 */
public final class FileStore implements SnapshotStore {
  private final Path root;
  private final String claim;

  /**
   * @param root the directory (the claim's mount path, with its subPath)
   * @param uriPrefix how URIs start: {@code pvc://<claim>/<subPath>}
   */
  public FileStore(Path root, String uriPrefix) {
    this.root = root;
    this.claim = uriPrefix;
  }

  private Path path(String key) {
    Path p = root.resolve(key).normalize();
    if (!p.startsWith(root.normalize())) {
      throw new IllegalArgumentException("key escapes the store: " + key);
    }
    return p;
  }

  @Override
  public void check() throws IOException {
    Files.createDirectories(root);
    if (!Files.isWritable(root)) {
      throw new StoreException(
          StoreException.Kind.ACCESS_DENIED, claim + " is not writable by the agent", null);
    }
  }

  @Override
  public Upload upload(String key) throws IOException {
    Path target = path(key);
    Files.createDirectories(target.getParent());
    Path part = target.resolveSibling(target.getFileName() + ".part");
    FileChannel channel =
        FileChannel.open(
            part,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
    OutputStream out = Channels.newOutputStream(channel);
    return new Upload() {
      @Override
      public void write(int b) throws IOException {
        try {
          out.write(b);
        } catch (IOException e) {
          throw full(key, e);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        try {
          out.write(b, off, len);
        } catch (IOException e) {
          throw full(key, e);
        }
      }

      @Override
      protected void doCommit() throws IOException {
        try {
          channel.force(true);
        } catch (IOException e) {
          throw full(key, e);
        }
        channel.close();
        rename(part, target);
      }

      @Override
      protected void doAbort() {
        try {
          channel.close();
          Files.deleteIfExists(part);
        } catch (IOException ignored) {
          // nothing under the key either way
        }
      }
    };
  }

  /**
   * A write the file system refused for want of space (ENOSPC) as a failure that names the claim
   * and says what to do; any other failure as it is.
   */
  private IOException full(String key, IOException e) {
    String said = String.valueOf(e.getMessage());
    if (!said.contains("No space left on device") && !said.contains("Disk quota exceeded")) {
      return e;
    }
    return new StoreException(
        StoreException.Kind.FAILED,
        "the claim is full: writing "
            + uri(key)
            + " failed ("
            + said
            + "); delete old backups from the claim or give it more room, then take the backup"
            + " again",
        e);
  }

  @Override
  public void put(String key, byte[] content) throws IOException {
    try (Upload u = upload(key)) {
      u.write(content);
      u.commit();
    }
  }

  private static void rename(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
    try (FileChannel dir = FileChannel.open(to.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException ignored) {
      // not every file system lets a directory be forced
    }
  }

  @Override
  public InputStream open(String key) throws IOException {
    try {
      return Files.newInputStream(path(key));
    } catch (NoSuchFileException e) {
      throw new StoreException(
          StoreException.Kind.NOT_FOUND, uri(key) + " does not exist in the claim", e);
    }
  }

  @Override
  public Optional<Long> size(String key) throws IOException {
    Path p = path(key);
    return Files.isRegularFile(p) ? Optional.of(Files.size(p)) : Optional.empty();
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    Path dir = path(prefix);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (var files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .map(p -> root.normalize().relativize(p).toString())
          .filter(k -> !k.endsWith(".part"))
          .sorted()
          .toList();
    }
  }

  @Override
  public void delete(String key) throws IOException {
    Files.deleteIfExists(path(key));
  }

  @Override
  public String uri(String key) {
    return claim + "/" + key;
  }

  @Override
  public void close() {}
}
