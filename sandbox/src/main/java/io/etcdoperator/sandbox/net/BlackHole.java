package io.etcdoperator.sandbox.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An address where connections are accepted and then never answered: what a client sees of a peer
 * behind a NetworkPolicy that drops its packets once it has connected (or of a proxy that does), so
 * that every call times out at its deadline instead of failing at once. Listens on the given ports
 * of one loopback address; accepted connections are held open, unread, until {@link #close()}.
 */
public final class BlackHole implements AutoCloseable {
  private final String address;
  private final List<ServerSocket> servers = new ArrayList<>();
  private final List<Socket> held = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  public BlackHole(String address, List<Integer> ports) throws IOException {
    this.address = address;
    try {
      for (int port : ports) {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getByName(address), port), 128);
        servers.add(s);
        Thread t = new Thread(() -> accept(s), "black-hole-" + address + ":" + port);
        t.setDaemon(true);
        t.start();
      }
    } catch (IOException e) {
      close();
      throw e;
    }
  }

  /** The address that swallows connections. */
  public String address() {
    return address;
  }

  private void accept(ServerSocket s) {
    while (!closed) {
      try {
        held.add(s.accept());
      } catch (IOException e) {
        return;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    for (ServerSocket s : servers) {
      try {
        s.close();
      } catch (IOException e) {
        // closing
      }
    }
    for (Socket s : held) {
      try {
        s.close();
      } catch (IOException e) {
        // closing
      }
    }
    held.clear();
  }
}
