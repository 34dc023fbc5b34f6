package io.etcdoperator.operator.etcd;

import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.MemberListRequest;
import io.etcd.jetcd.api.MemberListResponse;
import io.etcd.jetcd.api.MemberRemoveRequest;
import io.etcd.jetcd.api.MemberRemoveResponse;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.etcdoperator.testing.LoopbackAddresses;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC server on a loopback address that speaks just enough of etcd's API to make each failure
 * path of {@link JetcdEtcdService} happen on demand: each call answers with a fixed response, a
 * fixed gRPC status, or never.
 */
final class FakeEtcdServer implements AutoCloseable {
  static final long CLUSTER_ID = 0xc1;
  static final long MEMBER_ID = 0xa;

  /** What one kind of call does. */
  sealed interface Behaviour {}

  record Answer() implements Behaviour {}

  record Fail(Status status) implements Behaviour {}

  record Hang() implements Behaviour {}

  volatile Behaviour status = new Answer();
  volatile Behaviour memberList = new Answer();
  volatile Behaviour alarm = new Answer();
  volatile Behaviour range = new Answer();
  volatile Behaviour promote = new Answer();
  volatile List<io.etcd.jetcd.api.AlarmMember> alarms = List.of();
  final List<Long> promoted = new CopyOnWriteArrayList<>();
  private final Server server;
  private final String host;

  FakeEtcdServer() {
    host = LoopbackAddresses.allocate(2379);
    try {
      server =
          NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getByName(host), 2379))
              .addService(new Maintenance())
              .addService(clusterWithPromote())
              .addService(new Kv())
              .build()
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String host() {
    return host;
  }

  String clientUrl() {
    return "http://" + host + ":2379";
  }

  private static ResponseHeader header() {
    return ResponseHeader.newBuilder().setClusterId(CLUSTER_ID).setMemberId(MEMBER_ID).build();
  }

  private static <R> void reply(Behaviour behaviour, StreamObserver<R> observer, R answer) {
    if (behaviour instanceof Fail fail) {
      observer.onError(fail.status().asRuntimeException());
    } else if (behaviour instanceof Answer) {
      observer.onNext(answer);
      observer.onCompleted();
    }
  }

  private final class Maintenance extends MaintenanceGrpc.MaintenanceImplBase {
    @Override
    public void status(StatusRequest request, StreamObserver<StatusResponse> observer) {
      reply(
          status,
          observer,
          StatusResponse.newBuilder()
              .setHeader(header())
              .setLeader(MEMBER_ID)
              .setRaftTerm(2)
              .setRaftIndex(5)
              .setVersion("fake")
              .build());
    }

    @Override
    public void alarm(AlarmRequest request, StreamObserver<AlarmResponse> observer) {
      reply(
          alarm,
          observer,
          AlarmResponse.newBuilder().setHeader(header()).addAllAlarms(alarms).build());
    }
  }

  private final class Cluster extends ClusterGrpc.ClusterImplBase {
    @Override
    public void memberList(MemberListRequest request, StreamObserver<MemberListResponse> observer) {
      reply(
          memberList,
          observer,
          MemberListResponse.newBuilder()
              .setHeader(header())
              .addMembers(
                  io.etcd.jetcd.api.Member.newBuilder()
                      .setID(MEMBER_ID)
                      .setName("fake")
                      .addClientURLs(clientUrl()))
              .build());
    }
  }

  private final class Kv extends KVGrpc.KVImplBase {
    @Override
    public void range(RangeRequest request, StreamObserver<RangeResponse> observer) {
      reply(range, observer, RangeResponse.newBuilder().setHeader(header()).build());
    }
  }

  /** etcd's Cluster service with the MemberPromote method jetcd 0.8.5 does not know. */
  private ServerServiceDefinition clusterWithPromote() {
    ServerServiceDefinition.Builder service =
        ServerServiceDefinition.builder("etcdserverpb.Cluster");
    new Cluster().bindService().getMethods().forEach(service::addMethod);
    return service
        .addMethod(
            EtcdMessages.MEMBER_PROMOTE,
            ServerCalls.asyncUnaryCall(
                (MemberRemoveRequest request, StreamObserver<MemberRemoveResponse> observer) -> {
                  promoted.add(request.getID());
                  reply(
                      promote,
                      observer,
                      MemberRemoveResponse.newBuilder().setHeader(header()).build());
                }))
        .build();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
