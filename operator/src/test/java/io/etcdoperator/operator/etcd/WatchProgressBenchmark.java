package io.etcdoperator.operator.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchProgressRequest;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the member watch's question costs the operator's process, per member and check: a Status
 * call (what {@link io.etcdoperator.operator.observe.MemberWatch} asks every 2 s) against a
 * progress request on a watch stream left open per member (etcd answers it with a header that
 * carries the member ID and raft term, so a frozen member is still seen as silent, and a new leader
 * as a new term). Prints the process CPU time per check of each, and the ratio, measured in the
 * same run against one real etcd member: {@code members} streams or concurrent calls at a time, as
 * one check of that many members would make.
 *
 * <p>Run from the repository root (it starts one etcd on 127.10.0.0/16 and stops it):
 *
 * <pre>
 * mvn -B -q -pl operator -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test \
 *     -Dspotless.check.skip=true
 * java -cp operator/target/test-classes:operator/target/classes:$(cat \
 *     operator/target/test-classpath.txt) io.etcdoperator.operator.etcd.WatchProgressBenchmark \
 *     [members] [rounds] [etcd minor]
 * </pre>
 */
public final class WatchProgressBenchmark {
  private WatchProgressBenchmark() {}

  public static void main(String[] args) throws Exception {
    int members = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    String version = args.length > 2 ? args[2] : "3.5";
    try (LocalEtcdCluster cluster =
        LocalEtcdCluster.builder().version(version).members(1).start()) {
      cluster.awaitHealthy(Duration.ofSeconds(30));
      URI url = URI.create(cluster.member(0).clientUrl());
      ManagedChannel channel =
          NettyChannelBuilder.forAddress(url.getHost(), url.getPort()).usePlaintext().build();
      try {
        MaintenanceGrpc.MaintenanceStub maintenance = MaintenanceGrpc.newStub(channel);
        List<Stream> streams = new ArrayList<>();
        for (int i = 0; i < members; i++) {
          streams.add(new Stream(WatchGrpc.newStub(channel), i));
        }
        for (Stream s : streams) {
          s.created.await(10, TimeUnit.SECONDS);
        }
        // warm up both
        statusRounds(maintenance, members, rounds / 2);
        progressRounds(streams, rounds / 2);
        double statusCpu = Double.NaN;
        double progressCpu = Double.NaN;
        for (int repeat = 0; repeat < 3; repeat++) {
          statusCpu = min(statusCpu, statusRounds(maintenance, members, rounds));
          progressCpu = min(progressCpu, progressRounds(streams, rounds));
        }
        System.out.printf(
            "etcd %s, %d members a check, %d checks, %d cores%n",
            version, members, rounds, Runtime.getRuntime().availableProcessors());
        System.out.printf(
            "Status call:               %.1f us of process CPU per member and check%n", statusCpu);
        System.out.printf(
            "progress request (stream): %.1f us of process CPU per member and check (%.2fx)%n",
            progressCpu, progressCpu / statusCpu);
        streams.forEach(Stream::close);
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static double min(double a, double b) {
    return Double.isNaN(a) ? b : Math.min(a, b);
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Microseconds of process CPU per call: {@code members} Status calls at once, per round. */
  private static double statusRounds(MaintenanceGrpc.MaintenanceStub stub, int members, int rounds)
      throws InterruptedException {
    long start = cpuNanos();
    for (int r = 0; r < rounds; r++) {
      CountDownLatch done = new CountDownLatch(members);
      for (int i = 0; i < members; i++) {
        stub.withDeadlineAfter(2, TimeUnit.SECONDS)
            .status(
                StatusRequest.getDefaultInstance(),
                new StreamObserver<>() {
                  @Override
                  public void onNext(StatusResponse value) {}

                  @Override
                  public void onError(Throwable t) {
                    done.countDown();
                  }

                  @Override
                  public void onCompleted() {
                    done.countDown();
                  }
                });
      }
      if (!done.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("Status calls did not end");
      }
    }
    return (cpuNanos() - start) / 1000.0 / ((double) rounds * members);
  }

  /** Microseconds of process CPU per request: one progress request on every stream, per round. */
  private static double progressRounds(List<Stream> streams, int rounds)
      throws InterruptedException {
    long start = cpuNanos();
    for (int r = 0; r < rounds; r++) {
      CountDownLatch done = new CountDownLatch(streams.size());
      for (Stream s : streams) {
        s.ask(done);
      }
      if (!done.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("progress requests were not answered");
      }
    }
    return (cpuNanos() - start) / 1000.0 / ((double) rounds * streams.size());
  }

  /** One watch stream, on a key nobody writes, that answers progress requests. */
  private static final class Stream implements StreamObserver<WatchResponse> {
    final CountDownLatch created = new CountDownLatch(1);
    final AtomicReference<CountDownLatch> waiting = new AtomicReference<>();
    final StreamObserver<WatchRequest> requests;

    Stream(WatchGrpc.WatchStub stub, int i) {
      requests = stub.watch(this);
      requests.onNext(
          WatchRequest.newBuilder()
              .setCreateRequest(
                  WatchCreateRequest.newBuilder()
                      .setKey(ByteString.copyFromUtf8("/benchmark/nobody-writes-" + i)))
              .build());
    }

    void ask(CountDownLatch done) {
      waiting.set(done);
      requests.onNext(
          WatchRequest.newBuilder()
              .setProgressRequest(WatchProgressRequest.getDefaultInstance())
              .build());
    }

    @Override
    public void onNext(WatchResponse value) {
      if (value.getCreated()) {
        created.countDown();
        return;
      }
      CountDownLatch done = waiting.getAndSet(null);
      if (done != null) {
        done.countDown();
      }
    }

    @Override
    public void onError(Throwable t) {
      System.err.println("watch stream failed: " + t);
    }

    @Override
    public void onCompleted() {}

    void close() {
      requests.onCompleted();
    }
  }
}
