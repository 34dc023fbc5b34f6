package io.etcdoperator.sandbox.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out loopback addresses for pods from 127.20.0.0/14 (127.20.0.1 - 127.23.255.254), a fresh
 * one every time, as a cluster gives a recreated pod a new IP.
 *
 * <p>Each pool starts at a random point of the range and walks forward. An address is taken only
 * when (1) no other pool, in this JVM or another, holds it: a lock file per address under a
 * machine-wide directory is held with an OS file lock for as long as the address is in use, and the
 * OS drops the lock when a JVM dies; and (2) nothing listens on it: the ports given are bound and
 * released once as a check. The walk is bounded; exhausting it is an error.
 */
public final class AddressPool implements AutoCloseable {
  private static final int BASE = (127 << 24) | (20 << 16);
  private static final int SIZE = 1 << 18;
  private static final int MAX_TRIES = 4096;

  private final Path lockDir;
  private final List<Integer> portsToCheck;
  private final Map<String, Held> held = new HashMap<>();
  private int next;

  private record Held(FileChannel channel, FileLock lock) {}

  /**
   * @param lockDir machine-wide directory of per-address lock files
   * @param portsToCheck ports that must be free on an address before it is handed out
   */
  public AddressPool(Path lockDir, List<Integer> portsToCheck) {
    this(lockDir, portsToCheck, ThreadLocalRandom.current().nextInt(SIZE));
  }

  AddressPool(Path lockDir, List<Integer> portsToCheck, int start) {
    this.lockDir = lockDir;
    this.portsToCheck = List.copyOf(portsToCheck);
    this.next = start;
  }

  /** The default lock directory shared by every sandbox on the machine. */
  public static Path defaultLockDir() {
    return Path.of(System.getProperty("java.io.tmpdir"), "etcd-operator-sandbox-addresses");
  }

  /** Takes a fresh address; release it with {@link #release(String)}. */
  public synchronized String acquire() throws IOException {
    Files.createDirectories(lockDir);
    for (int i = 0; i < MAX_TRIES; i++) {
      int offset = next;
      next = (next + 1) % SIZE;
      int host = offset & 0xff;
      if (host == 0 || host == 255) {
        continue;
      }
      String address = toString(BASE + offset);
      if (held.containsKey(address)) {
        continue;
      }
      Held lock = tryLock(address);
      if (lock == null) {
        continue;
      }
      if (portsFree(address)) {
        held.put(address, lock);
        return address;
      }
      unlock(lock);
    }
    throw new IOException(
        "no free loopback address in 127.20.0.0/14 after " + MAX_TRIES + " tries");
  }

  /**
   * Returns an address to the pool (it is not handed out again by this pool soon: the walk moves
   * on).
   */
  public synchronized void release(String address) {
    Held h = held.remove(address);
    if (h != null) {
      unlock(h);
    }
  }

  /** Whether an address belongs to the sandbox range. */
  public static boolean inRange(String address) {
    return address.startsWith("127.20.")
        || address.startsWith("127.21.")
        || address.startsWith("127.22.")
        || address.startsWith("127.23.");
  }

  @Override
  public synchronized void close() {
    held.values().forEach(AddressPool::unlock);
    held.clear();
  }

  private Held tryLock(String address) throws IOException {
    FileChannel ch =
        FileChannel.open(
            lockDir.resolve(address), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      FileLock lock = ch.tryLock();
      if (lock != null) {
        return new Held(ch, lock);
      }
    } catch (OverlappingFileLockException e) {
      // held by another pool of this JVM
    }
    ch.close();
    return null;
  }

  private boolean portsFree(String address) {
    for (int port : portsToCheck) {
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getByName(address), port));
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  private static void unlock(Held h) {
    try {
      h.lock.release();
      h.channel.close();
    } catch (IOException e) {
      // the lock goes with the channel
    }
  }

  private static String toString(int a) {
    return ((a >>> 24) & 0xff)
        + "."
        + ((a >>> 16) & 0xff)
        + "."
        + ((a >>> 8) & 0xff)
        + "."
        + (a & 0xff);
  }
}
