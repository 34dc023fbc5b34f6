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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EtcdChannelsTest {

  @Test
  void aCallWithoutItsOwnDeadlineGetsTheDefaultOne() throws Exception {
    Duration deadline = Duration.ofMillis(200);
    NioEventLoopGroup loop = new NioEventLoopGroup(1);
    var executor = Executors.newSingleThreadExecutor();
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
    } finally {
      executor.shutdownNow();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  /**
   * A member whose pod moved answers under the same name at another address. A channel that is not
   * connected is replaced when its name resolves to other addresses than it was built for, so the
   * next probe goes to the new address (gRPC's own resolver would keep the old one for 30 s); while
   * the name resolves as before, the channel is kept.
   */
  @Test
  void aChannelIsReplacedWhenItsNameResolvesElsewhere() throws Exception {
    NioEventLoopGroup loop = new NioEventLoopGroup(1);
    var executor = Executors.newSingleThreadExecutor();
    List<String> resolvesTo = new ArrayList<>(List.of(LoopbackAddresses.allocate(2379)));
    try (EtcdChannels channels =
        new EtcdChannels(
            loop,
            executor,
            Duration.ofMillis(500),
            Duration.ofMinutes(1),
            host -> List.copyOf(resolvesTo))) {
      String url = "http://member-0.example:2379";
      var first = channels.get("ns/a", url);
      assertThat(channels.get("ns/a", url)).isSameAs(first);

      resolvesTo.set(0, LoopbackAddresses.allocate(2379));
      var second = channels.get("ns/a", url);
      assertThat(second).isNotSameAs(first);
      assertThat(((ManagedChannel) first).isShutdown()).isTrue();
      assertThat(channels.get("ns/a", url)).isSameAs(second);
      assertThat(channels.openChannels()).isEqualTo(1);
    } finally {
      executor.shutdownNow();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void clientUrlsMustBePlainHttpWithHostAndPort() {
    assertThat(EtcdChannels.parse("http://pod-0.c-headless.ns.svc:2379").getHost())
        .isEqualTo("pod-0.c-headless.ns.svc");
    assertThat(EtcdChannels.parse("http://[::1]:2379").getPort()).isEqualTo(2379);
    assertThatThrownBy(() -> EtcdChannels.parse("https://a:2379"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
