package io.etcdoperator.sandbox.net;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network between the members of a cluster, as links the sandbox controls: faults can cut a
 * link (a partition) or slow it (latency), for traffic between members only, not for the operator
 * or clients. The sandbox's pods share this machine's network, where every connection comes from
 * 127.0.0.1 and a packet filter cannot tell one pod's traffic from another's; so each pod reaches
 * each other member through a link of its own instead.
 *
 * <h2>How</h2>
 *
 * For a pod {@code S} and a member {@code P} of the same headless Service, the link {@code (S, P)}
 * is a TCP relay listening on a loopback address of its own, on the client and peer ports (and
 * 2382, where peers listen during a move to TLS). Pod {@code S}'s hosts file maps {@code P}'s names
 * ({@code <hostname>.<svc>.<ns>.svc[.cluster.local]}) to that address (the cluster DNS then leaves
 * pod names to the hosts files, so that no lookup goes around a link); each connection the relay
 * accepts goes to {@code P}'s address of the moment (a recreated pod has a new one). The link's
 * address lasts as long as the sandbox.
 *
 * <h2>Faults</h2>
 *
 * <ul>
 *   <li><b>cut</b>: a link forwards nothing, in either direction, on connections old and new; the
 *       bytes wait in the relay and the peers' TCP buffers, as they wait in a partitioned network's
 *       retransmissions, and flow again when the link is healed (a connection that a peer gave up
 *       on meanwhile is closed by it). A partition between {@code S} and {@code P} cuts both {@code
 *       (S, P)} and {@code (P, S)};
 *   <li><b>delay</b>: every chunk a link forwards waits that long first;
 *   <li><b>heal</b>: every link of a namespace back to normal.
 * </ul>
 */
public final class PeerLinks implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PeerLinks.class);

  /** Client, peer, and the second peer port of a move to TLS (2382). */
  static final List<Integer> PORTS = List.of(2379, 2380, 2382);

  private static final int BIND_ATTEMPTS = 8;

  private final AddressPool addresses;
  private final Function<String, String> resolve;
  private final Map<String, Link> links = new TreeMap<>();
  private volatile boolean closed;

  /**
   * @param addresses where link addresses come from
   * @param resolve a pod's fully qualified name to its address now (null: it has none)
   */
  public PeerLinks(AddressPool addresses, Function<String, String> resolve) {
    this.addresses = addresses;
    this.resolve = resolve;
  }

  private static String key(String namespace, String from, String to) {
    return namespace + "/" + from + "->" + to;
  }

  /** The address through which pod {@code from} reaches pod {@code to} (named {@code toName}). */
  public synchronized String address(String namespace, String from, String to, String toName) {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    return links.computeIfAbsent(key(namespace, from, to), k -> newLink(k, toName)).address;
  }

  /**
   * A link on a fresh address. The pool checked that the address's ports were free a moment ago,
   * but something may listen there since (another sandbox's pod on this machine); a link that
   * cannot bind moves on to another address instead of failing the pod whose hosts file needs it.
   */
  private Link newLink(String key, String toName) {
    IOException last = null;
    for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
      String address;
      try {
        address = addresses.acquire();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      try {
        return new Link(key, address, toName);
      } catch (IOException e) {
        LOG.info(
            "link {} cannot listen on {}: {}; trying another address", key, address, e.toString());
        last = e;
      }
    }
    throw new UncheckedIOException(
        "link " + key + ": no address to listen on after " + BIND_ATTEMPTS + " tries", last);
  }

  /** Cuts (or restores) both links between {@code a} and {@code b}. */
  public synchronized void cut(String namespace, String a, String b, boolean on) {
    for (Link l : List.of(link(namespace, a, b), link(namespace, b, a))) {
      l.setCut(on);
    }
  }

  /** Delays what both links between {@code a} and {@code b} forward (zero: no delay). */
  public synchronized void delay(String namespace, String a, String b, Duration delay) {
    for (Link l : List.of(link(namespace, a, b), link(namespace, b, a))) {
      l.delayNanos = delay.toNanos();
    }
  }

  /** Every link of the namespace back to normal. */
  public synchronized void heal(String namespace) {
    for (Link l : links.values()) {
      if (l.key.startsWith(namespace + "/")) {
        l.setCut(false);
        l.delayNanos = 0;
      }
    }
  }

  /** The pods of a namespace that have links, to or from them. */
  public synchronized Set<String> pods(String namespace) {
    Set<String> pods = new TreeSet<>();
    for (String k : links.keySet()) {
      if (k.startsWith(namespace + "/")) {
        String[] ends = k.substring(namespace.length() + 1).split("->");
        pods.add(ends[0]);
        pods.add(ends[1]);
      }
    }
    return pods;
  }

  /** The links now, as {@code ns/from->to} to their state ({@code ok}, {@code cut}, a delay). */
  public synchronized Map<String, String> state() {
    Map<String, String> out = new TreeMap<>();
    links.forEach((k, l) -> out.put(k, l.describe()));
    return out;
  }

  private Link link(String namespace, String from, String to) {
    Link l = links.get(key(namespace, from, to));
    if (l == null) {
      throw new IllegalArgumentException(
          "no link from "
              + namespace
              + "/"
              + from
              + " to "
              + to
              + " (are both members' pods live?)");
    }
    return l;
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (Link l : links.values()) {
      l.close();
      addresses.release(l.address);
    }
    links.clear();
  }

  /** One direction of reachability: a relay from {@code from}'s side to {@code to}. */
  private final class Link {
    final String key;
    final String address;
    final String target;
    final List<ServerSocket> servers = new ArrayList<>();
    final List<Socket> sockets = new CopyOnWriteArrayList<>();
    volatile boolean cut;
    volatile long delayNanos;
    volatile boolean linkClosed;

    Link(String key, String address, String target) throws IOException {
      this.key = key;
      this.address = address;
      this.target = target;
      try {
        for (int port : PORTS) {
          ServerSocket s = new ServerSocket();
          s.setReuseAddress(true);
          s.bind(new InetSocketAddress(InetAddress.getByName(address), port), 64);
          servers.add(s);
          daemon("link " + key + ":" + port, () -> accept(s, port));
        }
      } catch (IOException e) {
        close();
        // not released: whatever holds it may hold it a while; the pool moves on
        throw e;
      }
    }

    String describe() {
      return cut
          ? "cut"
          : delayNanos > 0 ? "delay " + Duration.ofNanos(delayNanos).toMillis() + " ms" : "ok";
    }

    synchronized void setCut(boolean on) {
      cut = on;
      notifyAll();
    }

    /** Waits while the link is cut; false once it is closed. */
    boolean pass() {
      synchronized (this) {
        while (cut && !linkClosed && !closed) {
          try {
            wait(200);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        }
      }
      long d = delayNanos;
      if (d > 0) {
        try {
          Thread.sleep(d / 1_000_000, (int) (d % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return !linkClosed && !closed;
    }

    private void accept(ServerSocket server, int port) {
      while (!linkClosed && !closed) {
        Socket in;
        try {
          in = server.accept();
        } catch (IOException e) {
          return;
        }
        sockets.add(in);
        daemon("link " + key + " conn", () -> connect(in, port));
      }
    }

    private void connect(Socket in, int port) {
      if (!pass()) {
        closeQuietly(in);
        return;
      }
      String ip = resolve.apply(target);
      if (ip == null) {
        closeQuietly(in);
        return;
      }
      Socket out = new Socket();
      try {
        out.connect(new InetSocketAddress(InetAddress.getByName(ip), port), 1000);
        out.setTcpNoDelay(true);
        in.setTcpNoDelay(true);
      } catch (IOException e) {
        closeQuietly(in);
        closeQuietly(out);
        return;
      }
      sockets.add(out);
      daemon("link " + key + " up", () -> pump(in, out));
      pump(out, in);
    }

    private void pump(Socket from, Socket to) {
      byte[] buffer = new byte[16 * 1024];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (!pass()) {
            break;
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // a side closed: close the other
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        sockets.remove(from);
        sockets.remove(to);
      }
    }

    void close() {
      linkClosed = true;
      synchronized (this) {
        notifyAll();
      }
      servers.forEach(PeerLinks::closeQuietly);
      sockets.forEach(PeerLinks::closeQuietly);
      sockets.clear();
    }
  }

  private static void daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      LOG.trace("closing {}", c, e);
    }
  }
}
