package io.etcdoperator.operator.etcd;

import io.grpc.Status;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Name lookups for {@link EtcdChannels}, outside the lock every cluster shares and within the call
 * deadline: a lookup that hangs (a DNS outage) costs its own call one deadline, and no other
 * cluster's call anything. The threads are daemons, unbounded in number (idle ones go after a
 * minute): a lookup that hangs in the resolver cannot be interrupted, and a fixed pool would queue
 * every other cluster's lookups, even cached ones, behind the hung ones. Their number is bounded by
 * the number of calls in flight.
 */
final class HostLookups implements AutoCloseable {
  private final EtcdChannels.Resolver resolver;
  private final Duration deadline;
  private final ExecutorService lookups =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "etcd-dns");
            t.setDaemon(true);
            return t;
          });

  HostLookups(EtcdChannels.Resolver resolver, Duration deadline) {
    this.resolver = resolver;
    this.deadline = deadline;
  }

  /** The host's address now; gRPC's UNAVAILABLE when it cannot be had within the deadline. */
  InetAddress resolve(String host) {
    Future<InetAddress> lookup;
    try {
      lookup = lookups.submit(() -> resolver.resolve(host));
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException("the etcd service is closed", e);
    }
    try {
      return lookup.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw Status.UNAVAILABLE
          .withDescription("Unable to resolve host " + host)
          .withCause(e.getCause())
          .asRuntimeException();
    } catch (TimeoutException e) {
      lookup.cancel(true);
      throw Status.UNAVAILABLE
          .withDescription(
              "No answer resolving host " + host + " within " + deadline.toMillis() + " ms")
          .asRuntimeException();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.UNAVAILABLE
          .withDescription("interrupted resolving " + host)
          .asRuntimeException();
    }
  }

  @Override
  public void close() {
    lookups.shutdownNow();
  }
}
