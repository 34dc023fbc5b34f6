package io.etcdoperator.operator.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchProgressRequest;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Asks members whether they are there, and in which raft term, for a fraction of what a Status call
 * costs: a progress request on a watch stream left open per member.
 *
 * <p>Each member gets one stream (a bidirectional {@code Watch} call on its channel from {@link
 * EtcdChannels}) with one watch on a key nobody writes ({@value #KEY}). A progress request on it is
 * answered by etcd (3.4 and 3.5) with a response carrying the member's header: cluster ID, member
 * ID, revision and raft term, without going through raft: a member without quorum answers it too, a
 * frozen one does not. A stream that failed (its member stopped, its connection dropped, its
 * channel replaced for a new address) is opened again at the next request. A stream asked nothing
 * for {@link #IDLE} is closed.
 *
 * <p>A request waits for the next response on its stream; one in flight at a time per member (the
 * caller's checks are one at a time per cluster). A stream carries no deadline of its own ({@link
 * DeadlineInterceptor} leaves Watch calls alone); each request has one instead, and a request not
 * answered by then ends its stream, so that the next opens another: a member frozen, or gone
 * without closing its connection, costs a new stream per request, a member that answers one stream
 * for as long as it is asked. etcd answers a progress request at once on 3.4; 3.5 holds it back
 * while the stream's watchers are not in sync, which a watch on an unwritten key always is, barring
 * a member too busy to sync, whose request then ends at its deadline as not answered.
 */
final class ProgressStreams {
  /** The key each stream watches: nobody writes it. */
  static final String KEY = "/etcd-operator/progress";

  /** A stream asked nothing for this long is closed. */
  static final Duration IDLE = Duration.ofMinutes(2);

  /** How often idle streams are looked for: not at every request, which would cost each a walk. */
  private static final Duration SWEEP = Duration.ofSeconds(30);

  private final EtcdChannels channels;
  private final Map<String, Stream> streams = new ConcurrentHashMap<>();
  private volatile long lastSweepNanos = System.nanoTime();

  ProgressStreams(EtcdChannels channels) {
    this.channels = channels;
  }

  /** Each member's answer, in the order of {@code clientUrls}, within {@code within}. */
  CompletableFuture<List<Progress>> progress(
      String clusterKey, List<String> clientUrls, Duration within) {
    long now = System.nanoTime();
    if (now - lastSweepNanos >= SWEEP.toNanos()) {
      lastSweepNanos = now;
      closeIdle(now);
    }
    List<CompletableFuture<Progress>> answers = new ArrayList<>();
    for (String url : clientUrls) {
      answers.add(ask(clusterKey, url, now, within));
    }
    return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0]))
        .handle(
            (done, failure) ->
                answers.stream()
                    .map(a -> a.isCompletedExceptionally() ? Progress.NONE : a.join())
                    .toList());
  }

  /** Streams open now (tests). */
  int open() {
    return streams.size();
  }

  private CompletableFuture<Progress> ask(
      String clusterKey, String url, long now, Duration within) {
    Channel channel;
    try {
      channel = channels.get(clusterKey, url);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(Progress.NONE);
    }
    String key = clusterKey + " " + url;
    Stream stream =
        streams.compute(
            key, (k, s) -> s == null || s.broken() || s.channel != channel ? open(s, channel) : s);
    stream.lastAskedNanos = now;
    return stream.ask(within);
  }

  private static Stream open(Stream old, Channel channel) {
    if (old != null) {
      old.close();
    }
    return new Stream(channel);
  }

  private void closeIdle(long now) {
    streams
        .entrySet()
        .removeIf(
            e -> {
              boolean idle = now - e.getValue().lastAskedNanos > IDLE.toNanos();
              if (idle) {
                e.getValue().close();
              }
              return idle;
            });
  }

  /** Closes the streams of {@code clusterKey}. */
  void closeCluster(String clusterKey) {
    streams
        .entrySet()
        .removeIf(
            e -> {
              boolean ours = e.getKey().startsWith(clusterKey + " ");
              if (ours) {
                e.getValue().close();
              }
              return ours;
            });
  }

  /** Closes every stream. */
  void close() {
    streams.values().forEach(Stream::close);
    streams.clear();
  }

  /** One member's stream. */
  private static final class Stream implements StreamObserver<WatchResponse> {
    final Channel channel;
    final ClientCall<WatchRequest, WatchResponse> call;
    final StreamObserver<WatchRequest> requests;
    final AtomicReference<CompletableFuture<Progress>> waiting = new AtomicReference<>();
    volatile boolean failed;
    volatile long lastAskedNanos;

    Stream(Channel channel) {
      this.channel = channel;
      this.call = channel.newCall(WatchGrpc.getWatchMethod(), CallOptions.DEFAULT);
      this.requests = ClientCalls.asyncBidiStreamingCall(call, this);
      requests.onNext(
          WatchRequest.newBuilder()
              .setCreateRequest(
                  WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8(KEY)))
              .build());
    }

    /**
     * Failed, closed, or its last request not answered in time: the caller's callbacks on that
     * answer run before this stream's own, which closes it, and a request they make at once must
     * not go to this stream.
     */
    boolean broken() {
      CompletableFuture<Progress> last = waiting.get();
      return failed || (last != null && last.isCompletedExceptionally());
    }

    /** The next answer; none within {@code within} ends the stream (the next ask opens one). */
    CompletableFuture<Progress> ask(Duration within) {
      CompletableFuture<Progress> answer = new CompletableFuture<>();
      answer
          .orTimeout(within.toMillis(), TimeUnit.MILLISECONDS)
          .whenComplete(
              (p, timedOut) -> {
                if (timedOut != null) {
                  close();
                }
              });
      CompletableFuture<Progress> before = waiting.getAndSet(answer);
      if (before != null) {
        before.complete(Progress.NONE);
      }
      try {
        requests.onNext(
            WatchRequest.newBuilder()
                .setProgressRequest(WatchProgressRequest.getDefaultInstance())
                .build());
      } catch (RuntimeException e) {
        failed = true;
        answer.complete(Progress.NONE);
      }
      return answer;
    }

    @Override
    public void onNext(WatchResponse r) {
      if (r.getCreated()) {
        return;
      }
      if (r.getCanceled()) {
        onError(null);
        return;
      }
      CompletableFuture<Progress> answer = waiting.getAndSet(null);
      if (answer != null) {
        answer.complete(
            new Progress(
                true,
                r.getHeader().getClusterId(),
                r.getHeader().getMemberId(),
                r.getHeader().getRaftTerm(),
                r.getHeader().getRevision()));
      }
    }

    @Override
    public void onError(Throwable t) {
      failed = true;
      CompletableFuture<Progress> answer = waiting.getAndSet(null);
      if (answer != null) {
        answer.complete(Progress.NONE);
      }
    }

    @Override
    public void onCompleted() {
      onError(null);
    }

    void close() {
      failed = true;
      call.cancel("closed", null);
    }
  }
}
