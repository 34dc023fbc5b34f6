package io.etcdoperator.operator.etcd;

import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.AlarmType;
import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.MemberListRequest;
import io.etcd.jetcd.api.MemberListResponse;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Unary gRPC calls to one member, as futures, each with the caller's absolute deadline, on the
 * channel {@link EtcdChannels} holds for it; and {@link #await}, which turns a call's end into a
 * value or an {@link EtcdException}. A host that does not resolve fails the call (UNAVAILABLE)
 * instead of throwing, so that a probe round treats it like any other member that does not answer.
 *
 * <p>As a safety net against a call gRPC never completes, waiting is bounded by the deadline plus
 * {@link #SAFETY_MARGIN}; an answer not in by then is DEADLINE_EXCEEDED.
 */
final class EtcdCalls {
  static final Duration SAFETY_MARGIN = Duration.ofMillis(250);

  private final EtcdChannels channels;

  EtcdCalls(EtcdChannels channels) {
    this.channels = channels;
  }

  CompletableFuture<StatusResponse> status(String cluster, String url, Deadline d) {
    return call(
        cluster, url, MaintenanceGrpc.getStatusMethod(), StatusRequest.getDefaultInstance(), d);
  }

  CompletableFuture<MemberListResponse> memberList(String cluster, String url, Deadline d) {
    return call(
        cluster, url, ClusterGrpc.getMemberListMethod(), MemberListRequest.getDefaultInstance(), d);
  }

  CompletableFuture<AlarmResponse> alarms(String cluster, String url, Deadline d) {
    AlarmRequest request =
        AlarmRequest.newBuilder()
            .setAction(AlarmRequest.AlarmAction.GET)
            .setAlarm(AlarmType.NONE)
            .build();
    return call(cluster, url, MaintenanceGrpc.getAlarmMethod(), request, d);
  }

  <Q, R> CompletableFuture<R> call(
      String clusterKey, String url, MethodDescriptor<Q, R> method, Q request, Deadline deadline) {
    CompletableFuture<R> result = new CompletableFuture<>();
    Channel channel;
    try {
      channel = channels.get(clusterKey, url);
    } catch (StatusRuntimeException e) {
      result.completeExceptionally(e);
      return result;
    }
    ClientCall<Q, R> call = channel.newCall(method, CallOptions.DEFAULT.withDeadline(deadline));
    ClientCalls.asyncUnaryCall(
        call,
        request,
        new StreamObserver<>() {
          @Override
          public void onNext(R value) {
            result.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            result.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        });
    return result;
  }

  /**
   * Asks the member at {@code url} for its Status and refuses, as etcd's CLUSTER_ID_MISMATCH, when
   * it belongs to another cluster than {@code expectedClusterId}: every call that changes a cluster
   * (membership, maintenance) makes sure first that it lands in the cluster the caller means.
   */
  StatusResponse requireCluster(
      String clusterKey, String url, long expectedClusterId, Duration deadline) {
    if (expectedClusterId == 0) {
      throw new IllegalArgumentException("a call that changes a cluster needs its expected ID");
    }
    Deadline d = Deadline.after(deadline.toNanos(), TimeUnit.NANOSECONDS);
    StatusResponse r = await(status(clusterKey, url, d), url, d);
    if (r.getHeader().getClusterId() != expectedClusterId) {
      throw new EtcdException(
          EtcdFailure.CLUSTER_ID_MISMATCH,
          url,
          "expected cluster "
              + Long.toHexString(expectedClusterId)
              + " but member "
              + Long.toHexString(r.getHeader().getMemberId())
              + " belongs to cluster "
              + Long.toHexString(r.getHeader().getClusterId()),
          null);
    }
    return r;
  }

  /** Waits for a call; expected failures become {@link EtcdException}, others propagate. */
  static <R> R await(CompletableFuture<R> call, String url, Deadline deadline) {
    long waitNanos = deadline.timeRemaining(TimeUnit.NANOSECONDS) + SAFETY_MARGIN.toNanos();
    try {
      return call.get(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw GrpcErrors.classify(e.getCause(), url);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new EtcdException(
          EtcdFailure.DEADLINE_EXCEEDED, url, "no answer, even past the deadline", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel(true);
      throw new EtcdUnexpectedException("interrupted while waiting for " + url, e);
    }
  }
}
