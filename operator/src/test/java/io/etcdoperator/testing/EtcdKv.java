package io.etcdoperator.testing;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.HashKVRequest;
import io.etcd.jetcd.api.HashKVResponse;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.PutResponse;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A small etcd KV client for tests: put, get, range and hash against one chosen member, every call
 * bounded by a gRPC deadline (a frozen member costs the deadline, never a hang).
 *
 * <p>Like the operator's {@code JetcdEtcdService}, it speaks etcd's gRPC API through jetcd's
 * generated stubs on channels it owns, because jetcd's {@code Client} neither bounds calls to a
 * frozen member nor lets the caller choose the member a call goes to. Calls are never retried: a
 * failure is reported at once as {@link CallFailed}.
 *
 * <p>Puts carry etcd's {@code hasleader} metadata, so a member that knows no leader refuses at once
 * ("etcdserver: no leader") instead of holding the request until the deadline.
 *
 * <p>Thread-safe. One channel per client URL, kept until {@link #close()}.
 */
public final class EtcdKv implements AutoCloseable {
  private static final Duration SAFETY_MARGIN = Duration.ofMillis(250);
  private static final Metadata.Key<String> HAS_LEADER =
      Metadata.Key.of("hasleader", Metadata.ASCII_STRING_MARSHALLER);

  private final Duration deadline;
  private final EventLoopGroup eventLoop;
  private final Map<String, ManagedChannel> channels = new HashMap<>();
  private boolean closed;
  private final io.netty.handler.ssl.SslContext tls;
  private final java.util.function.Function<URI, String> authority;

  /** A call that failed: the gRPC status code and what gRPC or etcd said. */
  public static final class CallFailed extends RuntimeException {
    private final String endpoint;
    private final Status.Code code;

    CallFailed(String endpoint, Status.Code code, String message, Throwable cause) {
      super(endpoint + ": " + code + (message == null ? "" : " " + message), cause);
      this.endpoint = endpoint;
      this.code = code;
    }

    public String endpoint() {
      return endpoint;
    }

    public Status.Code code() {
      return code;
    }
  }

  /**
   * One key as a member holds it.
   *
   * @param key the key
   * @param value the value, as UTF-8
   * @param createRevision the revision that created the key
   * @param modRevision the revision of its last change
   */
  public record Entry(String key, String value, long createRevision, long modRevision) {
    static Entry of(KeyValue kv) {
      return new Entry(
          kv.getKey().toStringUtf8(),
          kv.getValue().toStringUtf8(),
          kv.getCreateRevision(),
          kv.getModRevision());
    }
  }

  /**
   * One page of a range read.
   *
   * @param entries the keys, in key order
   * @param more whether keys beyond the page exist
   * @param revision the store revision the page was read at
   */
  public record Page(List<Entry> entries, boolean more, long revision) {}

  /** Every call carries {@code deadline}. */
  public EtcdKv(Duration deadline) {
    this(deadline, java.util.Optional.empty(), URI::getHost);
  }

  /**
   * A client that calls https URLs with {@code tls} (the CAs it trusts, its certificate), verifying
   * each member's certificate against {@code authority}'s name for the URL (a URL may carry an
   * address the name resolved to).
   */
  public EtcdKv(
      Duration deadline,
      java.util.Optional<io.etcdoperator.operator.tls.ClientTls> tls,
      java.util.function.Function<URI, String> authority) {
    this.deadline = deadline;
    this.eventLoop = new NioEventLoopGroup(1, new DefaultThreadFactory("etcd-kv-test", true));
    this.authority = authority;
    this.tls = tls.map(EtcdKv::sslContext).orElse(null);
  }

  private static io.netty.handler.ssl.SslContext sslContext(
      io.etcdoperator.operator.tls.ClientTls tls) {
    try {
      var builder =
          io.grpc.netty.GrpcSslContexts.forClient()
              .trustManager(tls.trust().toArray(new java.security.cert.X509Certificate[0]));
      if (tls.key().isPresent()) {
        builder.keyManager(
            tls.key().get(), tls.chain().toArray(new java.security.cert.X509Certificate[0]));
      }
      return builder.build();
    } catch (javax.net.ssl.SSLException e) {
      throw new IllegalStateException(e);
    }
  }

  public Duration deadline() {
    return deadline;
  }

  /** Puts {@code key}; returns the revision etcd acknowledged it at. */
  public long put(String endpoint, String key, String value) {
    PutRequest request =
        PutRequest.newBuilder()
            .setKey(ByteString.copyFromUtf8(key))
            .setValue(ByteString.copyFromUtf8(value))
            .build();
    PutResponse response = call(endpoint, KVGrpc.getPutMethod(), request, true);
    return response.getHeader().getRevision();
  }

  /**
   * Reads one key: linearizable (through the leader's read index: needs a quorum) or serializable
   * (this member's own copy, whatever state it is in).
   */
  public Optional<Entry> get(String endpoint, String key, boolean serializable) {
    RangeRequest request =
        RangeRequest.newBuilder()
            .setKey(ByteString.copyFromUtf8(key))
            .setSerializable(serializable)
            .build();
    RangeResponse response = call(endpoint, KVGrpc.getRangeMethod(), request, false);
    return response.getKvsList().stream().findFirst().map(Entry::of);
  }

  /**
   * Reads, linearizably, at most {@code limit} of the keys that start with {@code prefix}, from
   * {@code fromKey} on (inclusive; it must start with the prefix too), in key order.
   */
  public Page range(String endpoint, String prefix, String fromKey, int limit) {
    return range(endpoint, prefix, fromKey, limit, false);
  }

  /**
   * {@link #range(String, String, String, int)}, or serializable: this member's own copy, which it
   * serves even without a quorum.
   */
  public Page range(
      String endpoint, String prefix, String fromKey, int limit, boolean serializable) {
    if (!fromKey.startsWith(prefix)) {
      throw new IllegalArgumentException(fromKey + " does not start with " + prefix);
    }
    RangeRequest request =
        RangeRequest.newBuilder()
            .setKey(ByteString.copyFromUtf8(fromKey))
            .setRangeEnd(prefixEnd(ByteString.copyFromUtf8(prefix)))
            .setLimit(limit)
            .setSortOrder(RangeRequest.SortOrder.ASCEND)
            .setSortTarget(RangeRequest.SortTarget.KEY)
            .setSerializable(serializable)
            .build();
    RangeResponse response = call(endpoint, KVGrpc.getRangeMethod(), request, false);
    return new Page(
        response.getKvsList().stream().map(Entry::of).toList(),
        response.getMore(),
        response.getHeader().getRevision());
  }

  /**
   * The hash of this member's key-value store at its current revision, and that revision (etcd's
   * HashKV). Members that hold the same data at the same revision have the same hash.
   */
  public Hash hashKv(String endpoint) {
    return hashKv(endpoint, 0);
  }

  /** The hash of this member's key-value store up to {@code revision} (0: the current one). */
  public Hash hashKv(String endpoint, long revision) {
    HashKVRequest request = HashKVRequest.newBuilder().setRevision(revision).build();
    HashKVResponse response = call(endpoint, MaintenanceGrpc.getHashKVMethod(), request, false);
    return new Hash(
        response.getHash(), revision == 0 ? response.getHeader().getRevision() : revision);
  }

  /** A member's {@link #hashKv} answer. */
  public record Hash(long hash, long revision) {}

  /** The key right after every key that starts with {@code prefix} (etcd's "prefix end"). */
  static ByteString prefixEnd(ByteString prefix) {
    byte[] bytes = prefix.toByteArray();
    for (int i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] != (byte) 0xff) {
        bytes[i]++;
        return ByteString.copyFrom(bytes, 0, i + 1);
      }
    }
    return ByteString.copyFrom(new byte[] {0});
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      channels.values().forEach(ManagedChannel::shutdownNow);
      channels.clear();
    }
    eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  /**
   * Any unary call of etcd's gRPC API to one member, bounded by the deadline; with {@code
   * requireLeader}, a member that knows no leader refuses at once.
   */
  public <Q, R> R unary(
      String endpoint, MethodDescriptor<Q, R> method, Q request, boolean requireLeader) {
    return call(endpoint, method, request, requireLeader);
  }

  /** The channel to one member (for streams, such as watches, that carry no deadline). */
  public ManagedChannel channelTo(String endpoint) {
    return channel(endpoint);
  }

  private <Q, R> R call(
      String endpoint, MethodDescriptor<Q, R> method, Q request, boolean requireLeader) {
    // The deadline starts before the channel is looked up: building one (the first call of a cold
    // JVM) counts too.
    Deadline callDeadline = Deadline.after(deadline.toNanos(), TimeUnit.NANOSECONDS);
    CompletableFuture<R> result = new CompletableFuture<>();
    ClientCall<Q, R> call =
        channel(endpoint).newCall(method, CallOptions.DEFAULT.withDeadline(callDeadline));
    Metadata headers = new Metadata();
    if (requireLeader) {
      headers.put(HAS_LEADER, "true");
    }
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(R message) {
            result.complete(message);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            if (!status.isOk()) {
              result.completeExceptionally(status.asRuntimeException(trailers));
            } else if (!result.isDone()) {
              result.completeExceptionally(
                  Status.INTERNAL.withDescription("no response").asRuntimeException());
            }
          }
        },
        headers);
    call.request(2);
    call.sendMessage(request);
    call.halfClose();
    try {
      return result.get(
          callDeadline.timeRemaining(TimeUnit.NANOSECONDS) + SAFETY_MARGIN.toNanos(),
          TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Status status = Status.fromThrowable(e.getCause());
      throw new CallFailed(endpoint, status.getCode(), status.getDescription(), e.getCause());
    } catch (TimeoutException e) {
      call.cancel("no answer past the deadline", e);
      throw new CallFailed(
          endpoint, Status.Code.DEADLINE_EXCEEDED, "no answer past the deadline", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel("interrupted", e);
      throw new CallFailed(endpoint, Status.Code.CANCELLED, "interrupted", e);
    }
  }

  private synchronized ManagedChannel channel(String endpoint) {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    ManagedChannel channel = channels.computeIfAbsent(endpoint, this::build);
    // After failed connects gRPC waits (up to 2 minutes) before trying again; a member that came
    // back must be used at once.
    if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      channel.resetConnectBackoff();
    }
    return channel;
  }

  private ManagedChannel build(String endpoint) {
    URI uri = URI.create(endpoint);
    if (uri.getHost() == null || uri.getPort() < 0) {
      throw new IllegalArgumentException("not an http://host:port client URL: " + endpoint);
    }
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(uri.getHost(), uri.getPort());
    if ("https".equals(uri.getScheme())) {
      if (tls == null) {
        throw new IllegalArgumentException("an https URL without TLS material: " + endpoint);
      }
      builder.sslContext(tls).overrideAuthority(authority.apply(uri) + ":" + uri.getPort());
    } else {
      builder.usePlaintext();
    }
    return builder
        .eventLoopGroup(eventLoop)
        .channelType(NioSocketChannel.class)
        .directExecutor()
        .disableRetry()
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) deadline.toMillis())
        .build();
  }
}
