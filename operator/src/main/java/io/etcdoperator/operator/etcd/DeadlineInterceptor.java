package io.etcdoperator.operator.etcd;

import io.etcd.jetcd.api.WatchGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Gives every call on a channel a deadline when its caller gave none. Without a deadline a call to
 * a frozen member waits forever: the TCP connection is accepted by the kernel, so no connect
 * timeout fires, and nothing else bounds it.
 *
 * <p>Watch streams are the exception: {@link ProgressStreams} keeps one open per member for as long
 * as it asks, and bounds each question on it by itself.
 */
final class DeadlineInterceptor implements ClientInterceptor {
  private final long deadlineNanos;

  DeadlineInterceptor(Duration deadline) {
    this.deadlineNanos = deadline.toNanos();
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions callOptions, Channel next) {
    CallOptions bounded =
        callOptions.getDeadline() == null && !method.equals(WatchGrpc.getWatchMethod())
            ? callOptions.withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS)
            : callOptions;
    return next.newCall(method, bounded);
  }
}
