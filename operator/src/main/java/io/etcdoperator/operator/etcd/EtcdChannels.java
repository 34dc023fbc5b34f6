package io.etcdoperator.operator.etcd;

import io.grpc.Channel;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The connections of an {@link EtcdService}: one gRPC channel per (cluster, endpoint), created on
 * first use and reused by every later call, all sharing one event loop and one callback executor,
 * so the number of threads does not grow with the number of clusters or members.
 *
 * <p>A channel nobody used for {@code idleTimeout} is closed on the next lookup for its cluster:
 * members get new addresses when their pods move, and the old ones must not pile up.
 *
 * <p>A member whose pod moved answers under the same name at a new address. A connected channel
 * notices nothing until its connection breaks, and then gRPC's resolver keeps the old address for
 * {@code networkaddress.cache.ttl} (a system property gRPC reads itself; 30 s when unset) while it
 * tries it again and again. So a lookup of a channel that is not connected resolves the name again,
 * and when the addresses changed it replaces the channel: a moved member is probed at its new
 * address at once, not half a minute later.
 */
final class EtcdChannels implements AutoCloseable {
  // Calls are bounded by their deadlines; keepalive only recycles a connection whose peer went
  // silent (a frozen process, a vanished node, an IP that moved), so the next call reconnects
  // and resolves the name again.
  private static final Duration KEEPALIVE_TIME = Duration.ofSeconds(10);
  private static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(5);
  private final EventLoopGroup eventLoop;
  private final Executor callbackExecutor;
  private final Duration deadline;
  private final long idleTimeoutNanos;
  // One lock for all: lookups are a few per member per reconcile, and a plain lock makes it
  // obvious that closeCluster() and a concurrent lookup cannot leave a channel behind.
  private final Map<String, Map<String, Entry>> byCluster = new HashMap<>();
  private final Resolver resolver;
  private boolean closed;

  /** Resolves a host name to its addresses; an empty list when it does not resolve. */
  @FunctionalInterface
  interface Resolver {
    List<String> addresses(String host);
  }

  private static final class Entry {
    final ManagedChannel channel;
    final List<String> addresses;
    long lastUsedNanos = System.nanoTime();

    Entry(ManagedChannel channel, List<String> addresses) {
      this.channel = channel;
      this.addresses = addresses;
    }
  }

  EtcdChannels(
      EventLoopGroup eventLoop,
      Executor callbackExecutor,
      Duration deadline,
      Duration idleTimeout) {
    this(eventLoop, callbackExecutor, deadline, idleTimeout, EtcdChannels::resolve);
  }

  EtcdChannels(
      EventLoopGroup eventLoop,
      Executor callbackExecutor,
      Duration deadline,
      Duration idleTimeout,
      Resolver resolver) {
    this.resolver = resolver;
    this.eventLoop = eventLoop;
    this.callbackExecutor = callbackExecutor;
    this.deadline = deadline;
    this.idleTimeoutNanos = idleTimeout.toNanos();
  }

  /** The channel to {@code clientUrl} for {@code clusterKey}, created when missing. */
  synchronized Channel get(String clusterKey, String clientUrl) {
    if (closed) {
      throw new IllegalStateException("the etcd service is closed");
    }
    Map<String, Entry> endpoints = byCluster.computeIfAbsent(clusterKey, k -> new HashMap<>());
    long now = System.nanoTime();
    closeIdle(endpoints, clientUrl, now);
    Entry known = endpoints.get(clientUrl);
    if (known != null && known.channel.getState(false) != ConnectivityState.READY) {
      List<String> addresses = resolver.addresses(parse(clientUrl).getHost());
      if (!addresses.isEmpty() && !addresses.equals(known.addresses)) {
        // Calls still waiting on it end at their deadlines; new ones go to the new channel.
        known.channel.shutdown();
        endpoints.remove(clientUrl);
      }
    }
    Entry entry =
        endpoints.computeIfAbsent(
            clientUrl, url -> new Entry(build(url), resolver.addresses(parse(url).getHost())));
    entry.lastUsedNanos = now;
    // After failed connects gRPC waits (up to 2 minutes) before trying again; a member that came
    // back must be seen by this probe, not by one two minutes later.
    if (entry.channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      entry.channel.resetConnectBackoff();
    }
    return entry.channel;
  }

  synchronized void closeCluster(String clusterKey) {
    Map<String, Entry> endpoints = byCluster.remove(clusterKey);
    if (endpoints != null) {
      endpoints.values().forEach(e -> e.channel.shutdownNow());
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

  /** The addresses a host name resolves to, sorted; empty when it does not resolve. */
  static List<String> resolve(String host) {
    try {
      return Arrays.stream(InetAddress.getAllByName(host))
          .map(InetAddress::getHostAddress)
          .sorted()
          .toList();
    } catch (UnknownHostException e) {
      return List.of();
    }
  }

  private ManagedChannel build(String clientUrl) {
    URI uri = parse(clientUrl);
    return NettyChannelBuilder.forTarget("dns:///" + uri.getHost() + ":" + uri.getPort())
        .eventLoopGroup(eventLoop)
        .channelType(NioSocketChannel.class)
        .executor(callbackExecutor)
        .usePlaintext()
        .disableRetry()
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) deadline.toMillis())
        .keepAliveTime(KEEPALIVE_TIME.toMillis(), TimeUnit.MILLISECONDS)
        .keepAliveTimeout(KEEPALIVE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .intercept(new DeadlineInterceptor(deadline))
        .build();
  }

  /**
   * Only plain {@code http://host:port} client URLs: the clusters this operator runs use no TLS.
   */
  static URI parse(String clientUrl) {
    URI uri;
    try {
      uri = URI.create(clientUrl);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a client URL: " + clientUrl, e);
    }
    if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
      throw new IllegalArgumentException("not an http://host:port client URL: " + clientUrl);
    }
    return uri;
  }
}
