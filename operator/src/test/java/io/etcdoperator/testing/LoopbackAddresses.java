package io.etcdoperator.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out loopback addresses from 127.10.0.0/16, picked at random so that tests of several
 * engineers and several JVMs can run at once; each address is checked to have the given ports free
 * and is never handed out twice by this JVM.
 */
public final class LoopbackAddresses {
  private static final int MAX_ATTEMPTS = 200;
  private static final Set<String> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private LoopbackAddresses() {}

  /** A fresh 127.10.x.y on which every one of {@code ports} can be bound right now. */
  public static String allocate(int... ports) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      String ip = "127.10." + random.nextInt(0, 256) + "." + random.nextInt(1, 255);
      if (allFree(ip, ports) && HANDED_OUT.add(ip)) {
        return ip;
      }
    }
    throw new IllegalStateException("no free loopback address in 127.10.0.0/16 after many tries");
  }

  /** Whether {@code port} can be bound on {@code ip}. */
  public static boolean isFree(String ip, int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(InetAddress.getByName(ip), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean allFree(String ip, int... ports) {
    for (int port : ports) {
      if (!isFree(ip, port)) {
        return false;
      }
    }
    return true;
  }
}
