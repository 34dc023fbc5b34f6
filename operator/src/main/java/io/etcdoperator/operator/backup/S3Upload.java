package io.etcdoperator.operator.backup;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * An upload of {@link S3Store}: an S3 multipart upload of {@link S3Store#PART_SIZE} parts (see
 * {@link S3Store}'s Javadoc). Parts are filled here and sent by one background thread; three part
 * buffers exist at most.
 */
final class S3Upload extends SnapshotStore.Upload {
  private static final int BUFFERS = 3;

  /** A part sent: its number, the ETag the store gave it, its length. */
  private record Part(int number, String etag, long length) {}

  private final S3Store store;
  private final S3Http s3;
  private final String endpoint;
  private final Duration socketTimeout;

  private final String key;
  private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(BUFFERS);
  private final ExecutorService sender;
  private final List<Future<Part>> parts = new ArrayList<>();
  private byte[] current;
  private int filled;
  private String uploadId;
  private int allocated;

  S3Upload(S3Store store, S3Http s3, String key, String endpoint, Duration socketTimeout) {
    this.store = store;
    this.s3 = s3;
    this.key = key;
    this.endpoint = endpoint;
    this.socketTimeout = socketTimeout;
    this.sender =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "s3-part-upload");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      if (current == null) {
        current = takeBuffer();
      }
      int n = Math.min(len, S3Store.PART_SIZE - filled);
      System.arraycopy(b, off, current, filled, n);
      filled += n;
      off += n;
      len -= n;
      if (filled == S3Store.PART_SIZE) {
        sendCurrent();
      }
    }
  }

  private byte[] takeBuffer() throws IOException {
    if (free.isEmpty() && allocated < BUFFERS) {
      allocated++;
      return new byte[S3Store.PART_SIZE];
    }
    try {
      // a buffer comes back when its part has been sent; a failed send is seen at commit
      byte[] b = free.poll(5, TimeUnit.MINUTES);
      if (b == null) {
        throw new StoreException(
            StoreException.Kind.UNREACHABLE,
            "no part of " + store.uri(key) + " was sent for 5 minutes",
            null);
      }
      return b;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private void sendCurrent() throws IOException {
    if (uploadId == null) {
      String created =
          store.call(
              key, () -> s3.send("POST", key, Map.of("uploads", ""), new byte[0], 0, 0).text());
      uploadId = S3Http.first(created, "UploadId");
      if (uploadId == null) {
        throw new StoreException(
            StoreException.Kind.FAILED,
            store.uri(key)
                + " at "
                + endpoint
                + ": the store started no multipart upload: "
                + created,
            null);
      }
    }
    byte[] buffer = current;
    int length = filled;
    int partNumber = parts.size() + 1;
    current = null;
    filled = 0;
    parts.add(
        sender.submit(
            () -> {
              try {
                S3Http.Response r =
                    s3.send(
                        "PUT",
                        key,
                        Map.of("partNumber", Integer.toString(partNumber), "uploadId", uploadId),
                        buffer,
                        0,
                        length);
                String etag = r.header("ETag");
                if (etag == null) {
                  throw new IOException(
                      "the store gave part " + partNumber + " of the upload no ETag");
                }
                return new Part(partNumber, etag, length);
              } finally {
                free.offer(buffer);
              }
            }));
    failFast();
  }

  /** A part that failed ends the upload now, not at the end of a long stream. */
  private void failFast() throws IOException {
    for (Future<Part> f : parts) {
      if (f.isDone()) {
        await(f);
      }
    }
  }

  private Part await(Future<Part> f) throws IOException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw store.translate(key, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  @Override
  protected void doCommit() throws IOException {
    try {
      if (uploadId == null) {
        byte[] body = current == null ? new byte[0] : current;
        int length = filled;
        store.call(key, () -> s3.send("PUT", key, Map.of(), body, 0, length));
        return;
      }
      if (filled > 0) {
        sendCurrent();
      }
      StringBuilder xml = new StringBuilder("<CompleteMultipartUpload>");
      long total = 0;
      for (Future<Part> f : parts) {
        Part p = await(f);
        total += p.length();
        xml.append("<Part><PartNumber>")
            .append(p.number())
            .append("</PartNumber><ETag>")
            .append(S3Http.escape(p.etag()))
            .append("</ETag></Part>");
      }
      byte[] body = xml.append("</CompleteMultipartUpload>").toString().getBytes(UTF_8);
      try {
        store.call(
            key, () -> s3.send("POST", key, Map.of("uploadId", uploadId), body, 0, body.length));
      } catch (StoreException e) {
        // a retry of a completion whose answer was lost: the upload is gone because it is done
        // (NoSuchUpload from S3, NoSuchKey from s3proxy)
        if (!(e.getCause() instanceof S3Http.Failure f
                && ("NoSuchUpload".equals(f.code()) || "NoSuchKey".equals(f.code())))
            || !store.size(key).equals(Optional.of(total))) {
          throw e;
        }
      }
    } finally {
      sender.shutdownNow();
    }
  }

  @Override
  protected void doAbort() {
    sender.shutdownNow();
    try {
      // a part on its way is not stopped by the interrupt: it could land after the abort
      sender.awaitTermination(socketTimeout.toMillis() + 10_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (uploadId != null) {
      try {
        s3.send("DELETE", key, Map.of("uploadId", uploadId), null, 0, 0);
      } catch (IOException ignored) {
        // the store is down: the incomplete upload stays invisible
      }
    }
  }
}
