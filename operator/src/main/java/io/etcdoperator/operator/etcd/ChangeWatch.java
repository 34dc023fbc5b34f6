package io.etcdoperator.operator.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.api.TxnResponse;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Every change of a cluster, from a revision on: one Watch stream over the whole key space ({@code
 * key = range_end = "\0"}) with progress notifications, handed to a listener response by response
 * (a response holds whole revisions, in order). A compacted start revision, a cancel or a broken
 * stream ends it with {@link Listener#ended}. Also the other way: {@link #apply} writes one
 * revision's changes back as one transaction, so that a replay gives each change the revision it
 * had.
 */
final class ChangeWatch implements AutoCloseable {
  private static final ByteString ALL = ByteString.copyFrom(new byte[] {0});

  /** What a watch reports. */
  interface Listener {
    /** Changes, whole revisions in order; {@code revision}: the cluster's revision now. */
    void changes(List<ChangeEvent> events, long revision);

    /** The watch ended: compacted past its start, canceled, or the member went away. */
    void ended(String why);
  }

  private final ClientCall<WatchRequest, WatchResponse> call;

  private ChangeWatch(ClientCall<WatchRequest, WatchResponse> call) {
    this.call = call;
  }

  static ChangeWatch start(
      Channel channel,
      long fromRevision,
      BiConsumer<List<ChangeEvent>, Long> onChanges,
      Consumer<String> onEnd) {
    return start(
        channel,
        fromRevision,
        new Listener() {
          @Override
          public void changes(List<ChangeEvent> events, long revision) {
            onChanges.accept(events, revision);
          }

          @Override
          public void ended(String why) {
            onEnd.accept(why);
          }
        });
  }

  static ChangeWatch start(Channel channel, long fromRevision, Listener listener) {
    // a watch lives as long as the archiver: a deadline far away, or the channel's default applies
    ClientCall<WatchRequest, WatchResponse> call =
        channel.newCall(
            WatchGrpc.getWatchMethod(),
            CallOptions.DEFAULT.withDeadline(Deadline.after(3650, TimeUnit.DAYS)));
    StreamObserver<WatchRequest> requests =
        ClientCalls.asyncBidiStreamingCall(
            call,
            new StreamObserver<>() {
              @Override
              public void onNext(WatchResponse r) {
                if (r.getCompactRevision() > 0) {
                  listener.ended(
                      "revision "
                          + fromRevision
                          + " was compacted (now "
                          + r.getCompactRevision()
                          + ")");
                  return;
                }
                if (r.getCanceled()) {
                  listener.ended("the watch was canceled: " + r.getCancelReason());
                  return;
                }
                List<ChangeEvent> events = new ArrayList<>();
                for (Event e : r.getEventsList()) {
                  events.add(
                      new ChangeEvent(
                          e.getKv().getModRevision(),
                          e.getType() == Event.EventType.DELETE,
                          e.getKv().getKey().toByteArray(),
                          e.getKv().getValue().toByteArray(),
                          e.getKv().getLease()));
                }
                listener.changes(events, r.getHeader().getRevision());
              }

              @Override
              public void onError(Throwable t) {
                listener.ended(String.valueOf(t.getMessage()));
              }

              @Override
              public void onCompleted() {
                listener.ended("the member ended the watch");
              }
            });
    requests.onNext(
        WatchRequest.newBuilder()
            .setCreateRequest(
                WatchCreateRequest.newBuilder()
                    .setKey(ALL)
                    .setRangeEnd(ALL)
                    .setStartRevision(fromRevision)
                    .setProgressNotify(true))
            .build());
    return new ChangeWatch(call);
  }

  /** One revision's changes as one transaction (puts without their lease: see the caller). */
  static TxnRequest transaction(List<ChangeEvent> oneRevision) {
    TxnRequest.Builder txn = TxnRequest.newBuilder();
    for (ChangeEvent e : oneRevision) {
      RequestOp.Builder op = RequestOp.newBuilder();
      if (e.delete()) {
        op.setRequestDeleteRange(
            DeleteRangeRequest.newBuilder().setKey(ByteString.copyFrom(e.key())));
      } else {
        op.setRequestPut(
            PutRequest.newBuilder()
                .setKey(ByteString.copyFrom(e.key()))
                .setValue(ByteString.copyFrom(e.value())));
      }
      txn.addSuccess(op);
    }
    return txn.build();
  }

  static MethodDescriptor<TxnRequest, TxnResponse> txnMethod() {
    return KVGrpc.getTxnMethod();
  }

  @Override
  public void close() {
    call.cancel("closed", null);
  }
}
