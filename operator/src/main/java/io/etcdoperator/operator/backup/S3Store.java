package io.etcdoperator.operator.backup;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * Snapshots in an S3-compatible bucket, through {@link S3Http}: nine calls of S3's REST API
 * (HeadBucket, PutObject, GetObject, HeadObject, ListObjectsV2, DeleteObject and the multipart
 * upload's create, part, complete and abort), signed with Signature Version 4 and static keys.
 *
 * <h2>Uploads with flat memory</h2>
 *
 * An upload is an S3 multipart upload of {@link #PART_SIZE} parts. Three part buffers exist per
 * upload: the writer fills one while a single background thread sends another, and a third waits in
 * between, so reading from etcd and sending to the store overlap and memory stays at three parts
 * whatever the database size. An upload smaller than one part is one PutObject. The object appears
 * only when the multipart upload is completed; an upload that fails is aborted.
 *
 * <p>Each request's body is signed by its SHA-256 ({@code x-amz-content-sha256}): the store refuses
 * a body that arrives changed. No other checksum is sent: S3-compatible servers (s3proxy, MinIO,
 * Ceph) do not all accept the newer ones.
 */
public final class S3Store implements SnapshotStore {
  /** 8 MiB: above S3's 5 MiB minimum, 10 000 parts reach 80 GB. */
  static final int PART_SIZE = 8 * 1024 * 1024;

  private static final int BUFFERS = 3;

  /** Keys per listing page asked for (S3's own limit is 1,000); tests ask for fewer. */
  int pageSize = 1000;

  private final S3Http s3;
  private final String bucket;
  private final String endpoint;
  private final Duration socketTimeout;

  /**
   * @param endpoint http(s) URL of the store
   * @param region the region (us-east-1 when null or blank)
   * @param forcePathStyle bucket in the path rather than the host name
   */
  public S3Store(
      String endpoint,
      String region,
      boolean forcePathStyle,
      String bucket,
      String accessKeyId,
      String secretAccessKey) {
    this(
        endpoint,
        region,
        forcePathStyle,
        bucket,
        accessKeyId,
        secretAccessKey,
        Duration.ofSeconds(60));
  }

  /**
   * The same, with {@code socketTimeout}: how long a read may wait for the next byte before the
   * call fails (a store that stalls mid-download fails the restore after it, not never).
   */
  S3Store(
      String endpoint,
      String region,
      boolean forcePathStyle,
      String bucket,
      String accessKeyId,
      String secretAccessKey,
      Duration socketTimeout) {
    this.bucket = bucket;
    this.endpoint = endpoint;
    this.socketTimeout = socketTimeout;
    this.s3 =
        new S3Http(
            URI.create(endpoint),
            region == null || region.isBlank() ? "us-east-1" : region,
            forcePathStyle,
            bucket,
            accessKeyId,
            secretAccessKey,
            Duration.ofSeconds(10),
            socketTimeout);
  }

  @Override
  public void check() throws IOException {
    try {
      s3.send("HEAD", null, Map.of(), null, 0, 0);
    } catch (S3Http.Failure e) {
      if (e.status() == 404) {
        throw new StoreException(
            StoreException.Kind.NOT_FOUND,
            "bucket " + bucket + " does not exist at " + endpoint,
            e);
      }
      throw translate("", e);
    } catch (IOException e) {
      throw translate("", e);
    }
  }

  @Override
  public Upload upload(String key) {
    return new MultipartUpload(key);
  }

  @Override
  public void put(String key, byte[] content) throws IOException {
    call(key, () -> s3.send("PUT", key, Map.of(), content, 0, content.length));
  }

  @Override
  public InputStream open(String key) throws IOException {
    return call(key, () -> s3.download(key));
  }

  @Override
  public Optional<Long> size(String key) throws IOException {
    try {
      String length =
          call(key, () -> s3.send("HEAD", key, Map.of(), null, 0, 0).header("Content-Length"));
      return Optional.of(length == null ? 0L : Long.parseLong(length.trim()));
    } catch (StoreException e) {
      if (e.kind() == StoreException.Kind.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    String dir =
        prefix.isEmpty() || prefix.equals(".") ? "" : prefix.endsWith("/") ? prefix : prefix + "/";
    List<String> keys = new ArrayList<>();
    String token = null;
    do {
      Map<String, String> query = new LinkedHashMap<>();
      query.put("list-type", "2");
      query.put("prefix", dir);
      query.put("max-keys", Integer.toString(pageSize));
      if (token != null) {
        query.put("continuation-token", token);
      }
      String page = call(dir, () -> s3.send("GET", null, query, null, 0, 0).text());
      keys.addAll(S3Http.all(page, "Key"));
      String next =
          "true".equals(S3Http.first(page, "IsTruncated"))
              ? S3Http.first(page, "NextContinuationToken")
              : null;
      if ("true".equals(S3Http.first(page, "IsTruncated"))
          && (next == null || next.equals(token))) {
        throw new StoreException(
            StoreException.Kind.FAILED,
            uri(dir)
                + " at "
                + endpoint
                + ": the store's listing says there is more but gives no new continuation token",
            null);
      }
      token = next;
    } while (token != null);
    keys.sort(null);
    return keys;
  }

  @Override
  public void delete(String key) throws IOException {
    call(key, () -> s3.send("DELETE", key, Map.of(), null, 0, 0));
  }

  @Override
  public String uri(String key) {
    return "s3://" + bucket + "/" + key;
  }

  @Override
  public void close() {
    // connections are the JDK's to keep alive or close
  }

  private interface S3Call<T> {
    T run() throws IOException;
  }

  /** Runs one call; its failure becomes a {@link StoreException} that says what to do. */
  private <T> T call(String key, S3Call<T> call) throws StoreException {
    try {
      return call.run();
    } catch (IOException e) {
      throw translate(key, e);
    }
  }

  StoreException translate(String key, Throwable e) {
    return S3Errors.translate(uri(key) + " at " + endpoint, endpoint, bucket, e);
  }

  /** A part sent: its number and the ETag the store gave it. */
  private record Part(int number, String etag, long length) {}

  /** See the class Javadoc: parts filled here, sent by one background thread. */
  private final class MultipartUpload extends Upload {
    private final String key;
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(BUFFERS);
    private final ExecutorService sender;
    private final List<Future<Part>> parts = new ArrayList<>();
    private byte[] current;
    private int filled;
    private String uploadId;
    private int allocated;

    MultipartUpload(String key) {
      this.key = key;
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
        int n = Math.min(len, PART_SIZE - filled);
        System.arraycopy(b, off, current, filled, n);
        filled += n;
        off += n;
        len -= n;
        if (filled == PART_SIZE) {
          sendCurrent();
        }
      }
    }

    private byte[] takeBuffer() throws IOException {
      if (free.isEmpty() && allocated < BUFFERS) {
        allocated++;
        return new byte[PART_SIZE];
      }
      try {
        // a buffer comes back when its part has been sent; a failed send is seen at commit
        byte[] b = free.poll(5, TimeUnit.MINUTES);
        if (b == null) {
          throw new StoreException(
              StoreException.Kind.UNREACHABLE,
              "no part of " + uri(key) + " was sent for 5 minutes",
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
            call(key, () -> s3.send("POST", key, Map.of("uploads", ""), new byte[0], 0, 0).text());
        uploadId = S3Http.first(created, "UploadId");
        if (uploadId == null) {
          throw new StoreException(
              StoreException.Kind.FAILED,
              uri(key) + " at " + endpoint + ": the store started no multipart upload: " + created,
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
        throw translate(key, e.getCause());
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
          call(key, () -> s3.send("PUT", key, Map.of(), body, 0, length));
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
          call(key, () -> s3.send("POST", key, Map.of("uploadId", uploadId), body, 0, body.length));
        } catch (StoreException e) {
          // a retry of a completion whose answer was lost: the upload is gone because it is done
          // (NoSuchUpload from S3, NoSuchKey from s3proxy)
          if (!(e.getCause() instanceof S3Http.Failure f
                  && ("NoSuchUpload".equals(f.code()) || "NoSuchKey".equals(f.code())))
              || !size(key).equals(Optional.of(total))) {
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
}
