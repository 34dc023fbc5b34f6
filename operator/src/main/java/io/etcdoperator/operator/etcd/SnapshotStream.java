package io.etcdoperator.operator.etcd;

import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.SnapshotRequest;
import io.etcd.jetcd.api.SnapshotResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One {@code Maintenance.Snapshot} call, streamed to an {@link OutputStream} with constant memory,
 * and etcd's own hash checked at the end.
 *
 * <h2>The stream</h2>
 *
 * etcd sends the database (a point-in-time bbolt read transaction) in messages of 32 KiB, each
 * saying how many bytes remain, and then one last message whose blob is the 32-byte SHA-256 of
 * every byte before it; then it ends the stream. That is also the format of {@code etcdctl snapshot
 * save}'s file and what {@code etcdutl snapshot restore} checks, so every byte, the hash included,
 * is written out as it comes.
 *
 * <h2>The algorithm</h2>
 *
 * Memory: the blocking stub asks gRPC for one message at a time, so at most one message (and the
 * transport's flow-control window) is held, whatever the database size. Hash: the last 32 bytes
 * seen are held back from the digest in a small window, since only at the end is it known which
 * bytes are the trailer; at the end the digest of everything before the window must equal the
 * window, and the number of bytes before it must be the size the first message announced. Time: the
 * call has an overall deadline, and a watchdog cancels it when no message arrived for the idle
 * timeout (a frozen member accepts the connection and then sends nothing).
 *
 * <p>Anything else (the stream ends early, the member goes away, the output fails) is an {@link
 * EtcdException} or an {@link IOException}: the caller must then treat whatever it wrote as
 * garbage.
 */
final class SnapshotStream {
  private static final int SHA_SIZE = 32;

  private SnapshotStream() {}

  static SnapshotResult copy(
      Channel channel, String url, OutputStream out, Duration maxDuration, Duration idleTimeout)
      throws IOException {
    long started = System.nanoTime();
    AtomicLong lastMessage = new AtomicLong(started);
    // Time spent handing data to the output (a store's part upload may hold it for minutes) is
    // the output's, not a stall of the member: the watchdog looks away while it lasts.
    AtomicBoolean writing = new AtomicBoolean();
    Context.CancellableContext context = Context.current().withCancellation();
    ScheduledExecutorService watchdog =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "snapshot-watchdog");
              t.setDaemon(true);
              return t;
            });
    long idleNanos = idleTimeout.toNanos();
    watchdog.scheduleWithFixedDelay(
        () -> {
          if (!writing.get() && System.nanoTime() - lastMessage.get() > idleNanos) {
            context.cancel(
                new TimeoutException("no snapshot data for " + idleTimeout.toSeconds() + " s"));
          }
        },
        Math.max(1, idleTimeout.toMillis() / 4),
        Math.max(1, idleTimeout.toMillis() / 4),
        TimeUnit.MILLISECONDS);
    Context previous = context.attach();
    try {
      Iterator<SnapshotResponse> messages =
          ClientCalls.blockingServerStreamingCall(
              channel,
              MaintenanceGrpc.getSnapshotMethod(),
              CallOptions.DEFAULT.withDeadlineAfter(maxDuration.toNanos(), TimeUnit.NANOSECONDS),
              SnapshotRequest.getDefaultInstance());
      Trailer trailer = new Trailer();
      long announced = -1;
      long written = 0;
      while (messages.hasNext()) {
        SnapshotResponse m = messages.next();
        lastMessage.set(System.nanoTime());
        byte[] blob = m.getBlob().toByteArray();
        if (announced < 0) {
          announced = m.getRemainingBytes() + blob.length;
        }
        writing.set(true);
        try {
          out.write(blob);
        } finally {
          lastMessage.set(System.nanoTime());
          writing.set(false);
        }
        trailer.feed(blob);
        written += blob.length;
      }
      return trailer.finish(url, announced, written, Duration.ofNanos(System.nanoTime() - started));
    } catch (StatusRuntimeException e) {
      Throwable cause = context.cancellationCause();
      if (cause instanceof TimeoutException t) {
        throw new EtcdException(EtcdFailure.DEADLINE_EXCEEDED, url, t.getMessage(), e);
      }
      throw GrpcErrors.classify(e, url);
    } finally {
      context.detach(previous);
      context.cancel(null);
      watchdog.shutdownNow();
    }
  }

  /** The digest of everything but the last 32 bytes seen, and those 32 bytes. */
  static final class Trailer {
    private final MessageDigest digest;
    private final byte[] window = new byte[SHA_SIZE];
    private int held;

    Trailer() {
      try {
        digest = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    void feed(byte[] b) {
      if (b.length >= SHA_SIZE) {
        digest.update(window, 0, held);
        digest.update(b, 0, b.length - SHA_SIZE);
        System.arraycopy(b, b.length - SHA_SIZE, window, 0, SHA_SIZE);
        held = SHA_SIZE;
        return;
      }
      int overflow = held + b.length - SHA_SIZE;
      if (overflow > 0) {
        digest.update(window, 0, overflow);
        System.arraycopy(window, overflow, window, 0, held - overflow);
        held -= overflow;
      }
      System.arraycopy(b, 0, window, held, b.length);
      held += b.length;
    }

    SnapshotResult finish(String url, long announced, long written, Duration took) {
      if (held < SHA_SIZE) {
        throw new EtcdException(
            EtcdFailure.BAD_SNAPSHOT,
            url,
            "the snapshot stream ended after " + written + " bytes, without etcd's sha256",
            null);
      }
      long dbSize = written - SHA_SIZE;
      if (announced >= 0 && dbSize != announced) {
        throw new EtcdException(
            EtcdFailure.BAD_SNAPSHOT,
            url,
            "etcd announced a " + announced + "-byte database but sent " + dbSize + " bytes",
            null);
      }
      // the file's own hash (database and trailer) from the same pass: go on from a copy
      MessageDigest whole;
      try {
        whole = (MessageDigest) digest.clone();
      } catch (CloneNotSupportedException e) {
        throw new IllegalStateException(e);
      }
      whole.update(window, 0, SHA_SIZE);
      byte[] computed = digest.digest();
      if (!MessageDigest.isEqual(computed, window)) {
        throw new EtcdException(
            EtcdFailure.BAD_SNAPSHOT,
            url,
            "sha256 mismatch: etcd sent "
                + HexFormat.of().formatHex(window)
                + ", the data received hashes to "
                + HexFormat.of().formatHex(computed),
            null);
      }
      return new SnapshotResult(
          written,
          HexFormat.of().formatHex(window),
          HexFormat.of().formatHex(whole.digest()),
          took);
    }
  }
}
