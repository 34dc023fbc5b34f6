package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.StatusRequest;
import io.etcdoperator.testing.LoopbackAddresses;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EtcdChannelsTest {
  /** Each test's event loop and executor for its channels, shut down after it. */
  private final NioEventLoopGroup loop = new NioEventLoopGroup(1);

  private final ExecutorService executor = Executors.newSingleThreadExecutor();

  @AfterEach
  void shutDown() {
    executor.shutdownNow();
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  @Test
  void aCallWithoutItsOwnDeadlineGetsTheDefaultOne() throws Exception {
    Duration deadline = Duration.ofMillis(200);
    String ip = LoopbackAddresses.allocate(2379);
    try (ServerSocket silent = new ServerSocket();
        EtcdChannels channels = new EtcdChannels(loop, executor, deadline, Duration.ofMinutes(1))) {
      silent.bind(new InetSocketAddress(InetAddress.getByName(ip), 2379), 10);
      var channel = channels.get("ns/a", "http://" + ip + ":2379");

      long start = System.nanoTime();
      // CallOptions.DEFAULT has no deadline: without the interceptor this would never return.
      assertThatThrownBy(
              () ->
                  ClientCalls.blockingUnaryCall(
                      channel,
                      MaintenanceGrpc.getStatusMethod(),
                      CallOptions.DEFAULT,
                      StatusRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }
  }

  /**
   * A member's pod recreated elsewhere answers on a new address under the same name: the next call
   * must reach it there, even after a moment in which the name resolved to nothing (gRPC's own DNS
   * resolution kept calling the old address after that, for as long as the sandbox test ran).
   */
  @Test
  void aChannelFollowsItsNameToANewAddress() throws Exception {
    Map<String, String> names = new ConcurrentHashMap<>();
    EtcdChannels.Resolver resolver =
        host -> {
          String ip = names.get(host);
          if (ip == null) {
            throw new UnknownHostException(host);
          }
          return InetAddress.getByName(ip);
        };
    String url = "http://m-0.c-headless.ns.svc:2379";
    // Every lookup resolves: see connectedChannelsAreResolvedAgainOnlyNowAndThen for the interval.
    try (EtcdChannels channels =
        new EtcdChannels(
            loop,
            executor,
            Duration.ofSeconds(2),
            Duration.ofMinutes(1),
            resolver,
            Duration.ZERO)) {
      FakeEtcdServer first = new FakeEtcdServer();
      names.put("m-0.c-headless.ns.svc", first.host());
      var before = channels.get("ns/c", url);
      assertThat(status(before).getVersion()).isEqualTo("fake");
      first.close();

      names.remove("m-0.c-headless.ns.svc");
      assertThatThrownBy(() -> channels.get("ns/c", url))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));

      try (FakeEtcdServer second = new FakeEtcdServer()) {
        names.put("m-0.c-headless.ns.svc", second.host());
        var after = channels.get("ns/c", url);
        assertThat(status(after).getVersion()).isEqualTo("fake");
        assertThat(((ManagedChannel) before).isShutdown()).isTrue();
        assertThat(channels.get("ns/c", url)).isSameAs(after);
        assertThat(channels.openChannels()).isEqualTo(1);
      }
    }
  }

  /**
   * A connected channel is used without a lookup until {@code resolveInterval} has passed; one
   * whose connection broke (its member is gone) resolves its name at the next lookup, and so
   * follows a pod that came back on another address.
   */
  @Test
  void connectedChannelsAreResolvedAgainOnlyNowAndThen() throws Exception {
    Map<String, String> names = new ConcurrentHashMap<>();
    AtomicInteger lookups = new AtomicInteger();
    EtcdChannels.Resolver resolver = counting(names, lookups);
    String url = "http://m-0.c-headless.ns.svc:2379";
    Duration interval = Duration.ofMillis(500);
    try (EtcdChannels channels =
        new EtcdChannels(
            loop, executor, Duration.ofSeconds(2), Duration.ofMinutes(1), resolver, interval)) {
      FakeEtcdServer first = new FakeEtcdServer();
      names.put("m-0.c-headless.ns.svc", first.host());
      var channel = channels.get("ns/c", url);
      status(channel);
      int before = lookups.get();
      long since = System.nanoTime();
      for (int i = 0; i < 20; i++) {
        assertThat(channels.get("ns/c", url)).isSameAs(channel);
      }
      if (Duration.ofNanos(System.nanoTime() - since).compareTo(interval) < 0) {
        assertThat(lookups.get()).isEqualTo(before);
      }
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () -> {
                channels.get("ns/c", url);
                return lookups.get() > before;
              });

      // The member's pod is gone and back elsewhere: the broken connection makes the next lookup
      // resolve the name, however recent the last resolution.
      first.close();
      try (FakeEtcdServer second = new FakeEtcdServer()) {
        names.put("m-0.c-headless.ns.svc", second.host());
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(5))
            .until(
                () ->
                    ((ManagedChannel) channel).getState(false) != io.grpc.ConnectivityState.READY);
        var moved = channels.get("ns/c", url);
        assertThat(moved).isNotSameAs(channel);
        assertThat(status(moved).getVersion()).isEqualTo("fake");
      }
    }
  }

  /**
   * A name that moved while its old address still answers (the old IP went to another cluster's
   * member) is not followed by a connected channel until a caller, who saw the wrong member answer,
   * says so: then the next lookup, and only it, resolves the name.
   */
  @Test
  void aCallerThatSawAnotherMemberAnswerMakesTheNextLookupResolve() throws Exception {
    Map<String, String> names = new ConcurrentHashMap<>();
    AtomicInteger lookups = new AtomicInteger();
    EtcdChannels.Resolver resolver = counting(names, lookups);
    String url = "http://m-0.c-headless.ns.svc:2379";
    try (EtcdChannels channels =
            new EtcdChannels(
                loop,
                executor,
                Duration.ofSeconds(2),
                Duration.ofMinutes(1),
                resolver,
                Duration.ofHours(1));
        FakeEtcdServer old = new FakeEtcdServer();
        FakeEtcdServer moved = new FakeEtcdServer()) {
      names.put("m-0.c-headless.ns.svc", old.host());
      var channel = channels.get("ns/c", url);
      status(channel);
      names.put("m-0.c-headless.ns.svc", moved.host());
      old.status = new FakeEtcdServer.Fail(Status.FAILED_PRECONDITION);
      assertThat(channels.get("ns/c", url)).isSameAs(channel);
      assertThat(lookups.get()).isEqualTo(1);

      channels.resolveAgain("ns/c", "http://m-1.c-headless.ns.svc:2379");
      channels.resolveAgain("ns/other", url);
      assertThat(channels.get("ns/c", url)).isSameAs(channel);
      assertThat(lookups.get()).isEqualTo(1);

      channels.resolveAgain("ns/c", url);
      var followed = channels.get("ns/c", url);
      assertThat(followed).isNotSameAs(channel);
      assertThat(((ManagedChannel) channel).isShutdown()).isTrue();
      assertThat(status(followed).getVersion()).isEqualTo("fake");
      assertThat(channels.get("ns/c", url)).isSameAs(followed);
      assertThat(lookups.get()).isEqualTo(2);
    }
  }

  /** Resolves by {@code names}, counting its lookups in {@code lookups}. */
  private static EtcdChannels.Resolver counting(Map<String, String> names, AtomicInteger lookups) {
    return host -> {
      lookups.incrementAndGet();
      return InetAddress.getByName(names.get(host));
    };
  }

  /** Deleting a cluster closes its channels and only its own. */
  @Test
  void closingAClusterClosesOnlyItsChannels() throws Exception {
    // Never connected to: a channel connects on its first call.
    EtcdChannels.Resolver resolver = host -> InetAddress.getByName("127.0.0.1");
    try (EtcdChannels channels =
        new EtcdChannels(loop, executor, Duration.ofSeconds(2), Duration.ofMinutes(1), resolver)) {
      var a0 = channels.get("ns/a", "http://a-0.a-headless.ns.svc:2379");
      channels.get("ns/a", "http://a-1.a-headless.ns.svc:2379");
      var b0 = channels.get("ns/b", "http://b-0.b-headless.ns.svc:2379");
      assertThat(channels.openChannels()).isEqualTo(3);

      channels.closeCluster("ns/a");

      assertThat(channels.openChannels()).isEqualTo(1);
      assertThat(((ManagedChannel) a0).isShutdown()).isTrue();
      assertThat(((ManagedChannel) b0).isShutdown()).isFalse();
    }
  }

  /**
   * A DNS outage for one cluster's names: its lookup gives up within the call deadline, and another
   * cluster's lookups, made meanwhile, are not held behind it (they once waited on one lock).
   */
  @Test
  void aHangingLookupCostsItsOwnCallOneDeadlineAndNobodyElseAnything() throws Exception {
    var release = new java.util.concurrent.CountDownLatch(1);
    EtcdChannels.Resolver resolver =
        host -> {
          if (host.startsWith("a-")) {
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            throw new UnknownHostException(host);
          }
          return InetAddress.getByName("127.0.0.1");
        };
    Duration deadline = Duration.ofMillis(300);
    var caller = Executors.newSingleThreadExecutor();
    try (EtcdChannels channels =
        new EtcdChannels(loop, executor, deadline, Duration.ofMinutes(1), resolver)) {
      long start = System.nanoTime();
      var hanging = caller.submit(() -> channels.get("ns/a", "http://a-0.a-headless.ns.svc:2379"));
      // While a-0's lookup hangs, b-0's goes through at once.
      channels.get("ns/b", "http://b-0.b-headless.ns.svc:2379");
      assertThat(hanging.isDone()).isFalse();
      assertThatThrownBy(() -> hanging.get(5, TimeUnit.SECONDS))
          .hasCauseInstanceOf(StatusRuntimeException.class)
          .cause()
          .satisfies(
              e -> {
                Status status = ((StatusRuntimeException) e).getStatus();
                assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(status.getDescription())
                    .isEqualTo("No answer resolving host a-0.a-headless.ns.svc within 300 ms");
              });
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
      assertThat(channels.openChannels()).isEqualTo(1);
    } finally {
      release.countDown();
      caller.shutdownNow();
    }
  }

  /**
   * A cluster deleted while nobody called {@code closeCluster} (the operator missed the event) is
   * never looked up again: its idle channels close when another cluster's are looked up.
   */
  @Test
  void idleChannelsOfOtherClustersAreSwept() throws Exception {
    EtcdChannels.Resolver resolver = host -> InetAddress.getByName("127.0.0.1");
    try (EtcdChannels channels =
        new EtcdChannels(loop, executor, Duration.ofSeconds(2), Duration.ofMillis(20), resolver)) {
      var gone = channels.get("ns/gone", "http://g-0.g-headless.ns.svc:2379");
      var kept = channels.get("ns/kept", "http://k-0.k-headless.ns.svc:2379");
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(40).toNanos());
      assertThat(channels.get("ns/kept", "http://k-0.k-headless.ns.svc:2379")).isSameAs(kept);
      assertThat(((ManagedChannel) gone).isShutdown()).isTrue();
      assertThat(channels.openChannels()).isEqualTo(1);
    }
  }

  private static io.etcd.jetcd.api.StatusResponse status(io.grpc.Channel channel) {
    return ClientCalls.blockingUnaryCall(
        channel,
        MaintenanceGrpc.getStatusMethod(),
        CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.SECONDS),
        StatusRequest.getDefaultInstance());
  }

  @Test
  void clientUrlsMustBeHttpOrHttpsWithHostAndPort() {
    assertThat(EtcdChannels.parse("http://pod-0.c-headless.ns.svc:2379").getHost())
        .isEqualTo("pod-0.c-headless.ns.svc");
    assertThat(EtcdChannels.parse("http://[::1]:2379").getPort()).isEqualTo(2379);
    assertThat(EtcdChannels.parse("https://a:2379").getScheme()).isEqualTo("https");
    assertThatThrownBy(() -> EtcdChannels.parse("ftp://a:2379"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
