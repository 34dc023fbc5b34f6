package io.etcdoperator.operator.etcd;

import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.MemberListRequest;
import io.etcd.jetcd.api.MemberListResponse;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A throw-away gRPC server on 127.0.0.1 (ephemeral port) that answers the calls a probe makes with
 * empty messages. {@link JetcdEtcdService} calls it once when it starts so that the first real
 * probe of a cold JVM is not spent loading and initialising classes (Netty, HTTP/2, gRPC, the
 * protobuf descriptors): measured here, that first probe took 0.9–1.3 s, past the 1 s deadline, and
 * reported every member as unreachable.
 */
final class WarmUpServer implements AutoCloseable {
  private final Server server;

  WarmUpServer(EventLoopGroup eventLoop) throws IOException {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .bossEventLoopGroup(eventLoop)
            .workerEventLoopGroup(eventLoop)
            .channelType(NioServerSocketChannel.class)
            .directExecutor()
            .addService(new Maintenance())
            .addService(new Cluster())
            .addService(new Kv())
            .build()
            .start();
  }

  String clientUrl() {
    return "http://127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() {
    server.shutdownNow();
  }

  private static <R> void answer(StreamObserver<R> observer, R response) {
    observer.onNext(response);
    observer.onCompleted();
  }

  private static final class Maintenance extends MaintenanceGrpc.MaintenanceImplBase {
    @Override
    public void status(StatusRequest request, StreamObserver<StatusResponse> observer) {
      answer(observer, StatusResponse.getDefaultInstance());
    }

    @Override
    public void alarm(AlarmRequest request, StreamObserver<AlarmResponse> observer) {
      answer(observer, AlarmResponse.getDefaultInstance());
    }
  }

  private static final class Cluster extends ClusterGrpc.ClusterImplBase {
    @Override
    public void memberList(MemberListRequest request, StreamObserver<MemberListResponse> observer) {
      answer(observer, MemberListResponse.getDefaultInstance());
    }
  }

  private static final class Kv extends KVGrpc.KVImplBase {
    @Override
    public void range(RangeRequest request, StreamObserver<RangeResponse> observer) {
      answer(observer, RangeResponse.getDefaultInstance());
    }
  }
}
