package io.etcdoperator.operator.etcd;

import io.etcdoperator.operator.tls.ClientTls;
import io.grpc.Channel;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The connections of an {@link EtcdService}: one gRPC channel per (cluster, endpoint), created on
 * first use and reused by every later call, all sharing one event loop and one callback executor,
 * so the number of threads does not grow with the number of clusters or members.
 *
 * <p>Each channel is bound to one address. The endpoint's host is resolved again on a lookup when
 * the channel is not connected (its connection broke: the member's process or pod is gone, and a
 * recreated pod has a new IP), when a caller saw another member answer there than the one the name
 * stands for ({@link #resolveAgain}: a name that moved while its old address still answers, as when
 * a pod's old IP went to another cluster's member), and, for what no caller can tell, when the last
 * resolution is older than {@link #RESOLVE_INTERVAL}; when it names another address than the
 * channel's, the channel is closed and a new one made. Between those, a connected channel is used
 * as it is: watching many members every few seconds must not cost a DNS query per call (at a
 * thousand members, resolving each every 5 minutes took 5 % of a core in the sandbox, whose names
 * are a hosts file the JDK reads whole per lookup). gRPC's own name resolution is not used: it
 * caches an answer for 30 s, and after a lookup failed in between (no pod for a moment) its
 * pick-first balancer kept calling the old address for as long as the test ran (gRPC 1.70), so a
 * member that came back on a new address stayed "not answering" and the cluster looked as if it had
 * lost quorum. A host that does not resolve fails the call as UNAVAILABLE, as gRPC did.
 *
 * <p>A channel nobody used for {@code idleTimeout} is closed on the next lookup for its cluster:
 * members get new addresses when their pods move, and the old ones must not pile up. The idle
 * channels of other clusters are swept too (at most every half idle timeout), so that a deleted
 * cluster's channels close even when nothing calls {@link #closeCluster}. Names are resolved
 * outside the lock, each lookup within the call deadline.
 */
final class EtcdChannels implements AutoCloseable {
  // Calls are bounded by their deadlines; keepalive only recycles a connection whose peer went
  // silent (a frozen process, a vanished node, an IP that moved), so the next call reconnects
  // and resolves the name again.
  private static final Duration KEEPALIVE_TIME = Duration.ofSeconds(10);
  private static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(5);

  /**
   * How long a connected channel goes without its host being resolved again when nobody asks for it
   * ({@link #resolveAgain}).
   */
  static final Duration RESOLVE_INTERVAL = Duration.ofHours(1);

  private final long resolveIntervalNanos;
  private final EventLoopGroup eventLoop;
  private final Executor callbackExecutor;
  private final Duration deadline;
  private final long idleTimeoutNanos;
  // One lock for all: lookups are a few per member per reconcile, and a plain lock makes it
  // obvious that closeCluster() and a concurrent lookup cannot leave a channel behind.
  private final Map<String, Map<String, Entry>> byCluster = new HashMap<>();

  /** Each cluster's TLS material, by the fingerprint it was built from; absent: plain http. */
  private final Map<String, Tls> tlsByCluster = new HashMap<>();

  /** "clusterKey host" to the address calls go to instead of the host's; see {@link #pin}. */
  private final Map<String, InetAddress> pins = new HashMap<>();

  private boolean closed;
  private long lastSweepNanos = System.nanoTime();

  private final HostLookups lookups;

  /** Resolves a host name (or address literal) to the address to connect to. */
  @FunctionalInterface
  interface Resolver {
    InetAddress resolve(String host) throws UnknownHostException;
  }

  /** A cluster's TLS material and the Netty context built from it once. */
  private record Tls(ClientTls material, SslContext context) {}

  private static final class Entry {
    final ManagedChannel channel;
    final InetAddress address;
    long lastUsedNanos = System.nanoTime();
    long resolvedNanos = lastUsedNanos;
    boolean resolveAgain;

    Entry(ManagedChannel channel, InetAddress address) {
      this.channel = channel;
      this.address = address;
    }
  }

  EtcdChannels(
      EventLoopGroup eventLoop,
      Executor callbackExecutor,
      Duration deadline,
      Duration idleTimeout) {
    this(eventLoop, callbackExecutor, deadline, idleTimeout, InetAddress::getByName);
  }

  EtcdChannels(
      EventLoopGroup eventLoop,
      Executor callbackExecutor,
      Duration deadline,
      Duration idleTimeout,
      Resolver resolver) {
    this(eventLoop, callbackExecutor, deadline, idleTimeout, resolver, RESOLVE_INTERVAL);
  }

  /**
   * @param resolveInterval how long a connected channel goes without its host resolved again
   */
  EtcdChannels(
      EventLoopGroup eventLoop,
      Executor callbackExecutor,
      Duration deadline,
      Duration idleTimeout,
      Resolver resolver,
      Duration resolveInterval) {
    this.resolveIntervalNanos = resolveInterval.toNanos();
    this.eventLoop = eventLoop;
    this.callbackExecutor = callbackExecutor;
    this.deadline = deadline;
    this.idleTimeoutNanos = idleTimeout.toNanos();
    this.lookups = new HostLookups(resolver, deadline);
  }

  /**
   * The channel to {@code clientUrl} for {@code clusterKey}, at the address its host resolves to
   * now; created when missing or when the address changed.
   *
   * @throws StatusRuntimeException UNAVAILABLE when the host does not resolve
   */
  Channel get(String clusterKey, String clientUrl) {
    URI uri = parse(clientUrl);
    InetAddress pinned;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the etcd service is closed");
      }
      pinned = pins.get(clusterKey + " " + uri.getHost());
      if (pinned == null) {
        Channel connected = connectedAndRecent(clusterKey, clientUrl);
        if (connected != null) {
          return connected;
        }
      }
    }
    return get(
        clusterKey, clientUrl, uri, pinned != null ? pinned : lookups.resolve(uri.getHost()));
  }

  /** The channel, when it is connected and its host was resolved recently; else null. */
  private Channel connectedAndRecent(String clusterKey, String clientUrl) {
    Map<String, Entry> endpoints = byCluster.get(clusterKey);
    Entry entry = endpoints == null ? null : endpoints.get(clientUrl);
    long now = System.nanoTime();
    if (entry == null
        || entry.resolveAgain
        || now - entry.resolvedNanos >= resolveIntervalNanos
        || entry.channel.getState(false) != ConnectivityState.READY) {
      return null;
    }
    entry.lastUsedNanos = now;
    return entry.channel;
  }

  /**
   * Calls of {@code clusterKey} to {@code host} go to {@code address} (null: as DNS says), the
   * certificate still verified against {@code host}: for a pod no Service names, such as the
   * rebuild pod, whose certificate names the member it rebuilds.
   */
  synchronized void pin(String clusterKey, String host, InetAddress address) {
    if (address == null) {
      pins.remove(clusterKey + " " + host);
    } else {
      pins.put(clusterKey + " " + host, address);
    }
  }

  /**
   * The next lookup of {@code clientUrl} for {@code clusterKey} resolves its host again, connected
   * or not: a caller saw another member than the name's answer at the channel's address.
   */
  synchronized void resolveAgain(String clusterKey, String clientUrl) {
    Map<String, Entry> endpoints = byCluster.get(clusterKey);
    Entry entry = endpoints == null ? null : endpoints.get(clientUrl);
    if (entry != null) {
      entry.resolveAgain = true;
    }
  }

  private synchronized Channel get(
      String clusterKey, String clientUrl, URI uri, InetAddress address) {
    if (closed) {
      throw new IllegalStateException("the etcd service is closed");
    }
    Map<String, Entry> endpoints = byCluster.computeIfAbsent(clusterKey, k -> new HashMap<>());
    long now = System.nanoTime();
    closeIdle(endpoints, clientUrl, now);
    sweepOtherClusters(clusterKey, now);
    Entry entry = endpoints.get(clientUrl);
    if (entry != null && !entry.address.equals(address)) {
      entry.channel.shutdownNow();
      entry = null;
    }
    if (entry == null) {
      entry = new Entry(build(uri, address, tlsFor(clusterKey, uri)), address);
      endpoints.put(clientUrl, entry);
    }
    entry.lastUsedNanos = now;
    entry.resolvedNanos = now;
    entry.resolveAgain = false;
    // After failed connects gRPC waits (up to 2 minutes) before trying again; a member that came
    // back must be seen by this probe, not by one two minutes later.
    if (entry.channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      entry.channel.resetConnectBackoff();
    }
    return entry.channel;
  }

  /**
   * The TLS material for {@code clusterKey}'s https URLs from now on (null: none). Material that
   * differs from what the cluster's channels were made with closes them: the next call connects
   * with the new certificates.
   */
  synchronized void useTls(String clusterKey, ClientTls tls) {
    Tls current = tlsByCluster.get(clusterKey);
    if (current == null ? tls == null : current.material().equals(tls)) {
      return;
    }
    closeChannels(clusterKey);
    if (tls == null) {
      tlsByCluster.remove(clusterKey);
    } else {
      tlsByCluster.put(clusterKey, new Tls(tls, sslContext(tls)));
    }
  }

  private static SslContext sslContext(ClientTls tls) {
    try {
      var builder =
          GrpcSslContexts.forClient().trustManager(tls.trust().toArray(new X509Certificate[0]));
      if (tls.key().isPresent()) {
        builder.keyManager(tls.key().get(), tls.chain().toArray(new X509Certificate[0]));
      }
      return builder.build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot build a TLS context: " + e.getMessage(), e);
    }
  }

  synchronized void closeCluster(String clusterKey) {
    tlsByCluster.remove(clusterKey);
    pins.keySet().removeIf(k -> k.startsWith(clusterKey + " "));
    closeChannels(clusterKey);
  }

  private void closeChannels(String clusterKey) {
    Map<String, Entry> endpoints = byCluster.remove(clusterKey);
    if (endpoints != null) {
      endpoints
          .values()
          .forEach(
              e -> {
                try {
                  e.channel.shutdownNow();
                } catch (RejectedExecutionException ignored) {
                  // the callback executor is already gone: nothing is left to run
                }
              });
    }
  }

  /** How many channels are open (for tests and metrics). */
  synchronized int openChannels() {
    return byCluster.values().stream().mapToInt(Map::size).sum();
  }

  @Override
  public synchronized void close() {
    closed = true;
    List.copyOf(byCluster.keySet()).forEach(this::closeCluster);
    tlsByCluster.clear();
    lookups.close();
  }

  /**
   * Closes the idle channels of every other cluster, at most once per half idle timeout: a cluster
   * deleted while the operator was away (or whose deletion event it missed) is never looked up
   * again, and its channels must not stay open forever.
   */
  private void sweepOtherClusters(String current, long now) {
    if (now - lastSweepNanos < idleTimeoutNanos / 2) {
      return;
    }
    lastSweepNanos = now;
    byCluster.forEach(
        (key, endpoints) -> {
          if (!key.equals(current)) {
            closeIdle(endpoints, null, now);
          }
        });
    byCluster.entrySet().removeIf(e -> !e.getKey().equals(current) && e.getValue().isEmpty());
  }

  private void closeIdle(Map<String, Entry> endpoints, String keep, long now) {
    endpoints
        .entrySet()
        .removeIf(
            e -> {
              boolean idle =
                  !e.getKey().equals(keep) && now - e.getValue().lastUsedNanos > idleTimeoutNanos;
              if (idle) {
                e.getValue().channel.shutdownNow();
              }
              return idle;
            });
  }

  /** The TLS context for an https URL of the cluster; null for http. */
  private SslContext tlsFor(String clusterKey, URI uri) {
    if (!"https".equals(uri.getScheme())) {
      return null;
    }
    Tls tls = tlsByCluster.get(clusterKey);
    if (tls == null) {
      throw Status.UNAVAILABLE
          .withDescription("no TLS material for " + uri + " (the cluster's Secrets are not read)")
          .asRuntimeException();
    }
    return tls.context();
  }

  private ManagedChannel build(URI uri, InetAddress address, SslContext tls) {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress(new InetSocketAddress(address, uri.getPort()))
            // The member's DNS name: the server certificate is verified against it (and SNI).
            .overrideAuthority(uri.getHost() + ":" + uri.getPort());
    if (tls == null) {
      builder.usePlaintext();
    } else {
      builder.sslContext(tls);
    }
    return builder
        .eventLoopGroup(eventLoop)
        .channelType(NioSocketChannel.class)
        .executor(callbackExecutor)
        .disableRetry()
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) deadline.toMillis())
        .keepAliveTime(KEEPALIVE_TIME.toMillis(), TimeUnit.MILLISECONDS)
        .keepAliveTimeout(KEEPALIVE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .intercept(new DeadlineInterceptor(deadline))
        .build();
  }

  /** {@code http://host:port} or {@code https://host:port} client URLs. */
  static URI parse(String clientUrl) {
    URI uri;
    try {
      uri = URI.create(clientUrl);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a client URL: " + clientUrl, e);
    }
    if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
        || uri.getHost() == null
        || uri.getPort() < 0) {
      throw new IllegalArgumentException("not an http(s)://host:port client URL: " + clientUrl);
    }
    return uri;
  }
}
