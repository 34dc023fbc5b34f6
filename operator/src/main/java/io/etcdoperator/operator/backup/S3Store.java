package io.etcdoperator.operator.backup;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Snapshots in an S3-compatible bucket, through the AWS SDK for Java 2 on its URL-connection HTTP
 * client.
 *
 * <h2>Uploads with flat memory</h2>
 *
 * An upload is an S3 multipart upload of {@link #PART_SIZE} parts. Three part buffers exist per
 * upload: the writer fills one while a single background thread sends another, and a third waits in
 * between, so reading from etcd and sending to the store overlap and memory stays at three parts
 * whatever the database size. An upload smaller than one part is one PutObject. The object appears
 * only when the multipart upload is completed; an upload that fails is aborted.
 *
 * <p>The SDK's default request checksums (CRC32 trailers, new in 2.30) are asked for only where the
 * API requires them: S3-compatible servers (s3proxy, MinIO, Ceph) do not all accept them.
 */
public final class S3Store implements SnapshotStore {
  /** 8 MiB: above S3's 5 MiB minimum, 10 000 parts reach 80 GB. */
  static final int PART_SIZE = 8 * 1024 * 1024;

  private static final int BUFFERS = 3;

  private final S3Client s3;
  private final String bucket;
  private final String endpoint;

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
    this.s3 =
        S3Client.builder()
            .endpointOverride(URI.create(endpoint))
            .region(Region.of(region == null || region.isBlank() ? "us-east-1" : region))
            .forcePathStyle(forcePathStyle)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(accessKeyId, secretAccessKey)))
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .httpClient(
                UrlConnectionHttpClient.builder()
                    .connectionTimeout(Duration.ofSeconds(10))
                    .socketTimeout(socketTimeout)
                    .build())
            .build();
  }

  @Override
  public void check() throws IOException {
    try {
      s3.headBucket(r -> r.bucket(bucket));
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        throw new StoreException(
            StoreException.Kind.NOT_FOUND,
            "bucket " + bucket + " does not exist at " + endpoint,
            e);
      }
      throw translate("", e);
    } catch (SdkException e) {
      throw translate("", e);
    }
  }

  @Override
  public Upload upload(String key) {
    return new MultipartUpload(key);
  }

  @Override
  public void put(String key, byte[] content) throws IOException {
    call(key, () -> s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromBytes(content)));
  }

  @Override
  public InputStream open(String key) throws IOException {
    return call(key, () -> s3.getObject(r -> r.bucket(bucket).key(key)));
  }

  @Override
  public Optional<Long> size(String key) throws IOException {
    try {
      return Optional.of(
          call(key, () -> s3.headObject(r -> r.bucket(bucket).key(key)).contentLength()));
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
    call(
        dir,
        () -> {
          s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(dir))
              .contents()
              .forEach(o -> keys.add(o.key()));
          return null;
        });
    keys.sort(null);
    return keys;
  }

  @Override
  public void delete(String key) throws IOException {
    call(key, () -> s3.deleteObject(r -> r.bucket(bucket).key(key)));
  }

  @Override
  public String uri(String key) {
    return "s3://" + bucket + "/" + key;
  }

  @Override
  public void close() {
    s3.close();
  }

  private interface S3Call<T> {
    T run();
  }

  /** Runs one call; its failure becomes a {@link StoreException} that says what to do. */
  private <T> T call(String key, S3Call<T> call) throws StoreException {
    try {
      return call.run();
    } catch (SdkException e) {
      throw translate(key, e);
    }
  }

  StoreException translate(String key, Throwable e) {
    return S3Errors.translate(uri(key) + " at " + endpoint, endpoint, bucket, e);
  }

  /** See the class Javadoc: parts filled here, sent by one background thread. */
  private final class MultipartUpload extends Upload {
    private final String key;
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(BUFFERS);
    private final ExecutorService sender;
    private final List<Future<CompletedPart>> parts = new ArrayList<>();
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
        uploadId =
            call(key, () -> s3.createMultipartUpload(r -> r.bucket(bucket).key(key)).uploadId());
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
                  String etag =
                      s3.uploadPart(
                              r ->
                                  r.bucket(bucket)
                                      .key(key)
                                      .uploadId(uploadId)
                                      .partNumber(partNumber)
                                      .contentLength((long) length),
                              RequestBody.fromByteBuffer(ByteBuffer.wrap(buffer, 0, length)))
                          .eTag();
                  return CompletedPart.builder().partNumber(partNumber).eTag(etag).build();
                } finally {
                  free.offer(buffer);
                }
              }));
      failFast();
    }

    /** A part that failed ends the upload now, not at the end of a long stream. */
    private void failFast() throws IOException {
      for (Future<CompletedPart> f : parts) {
        if (f.isDone()) {
          await(f);
        }
      }
    }

    private CompletedPart await(Future<CompletedPart> f) throws IOException {
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
          call(
              key,
              () ->
                  s3.putObject(
                      r -> r.bucket(bucket).key(key).contentLength((long) length),
                      RequestBody.fromByteBuffer(ByteBuffer.wrap(body, 0, length))));
          return;
        }
        if (filled > 0) {
          sendCurrent();
        }
        List<CompletedPart> done = new ArrayList<>();
        for (Future<CompletedPart> f : parts) {
          done.add(await(f));
        }
        call(
            key,
            () ->
                s3.completeMultipartUpload(
                    r ->
                        r.bucket(bucket)
                            .key(key)
                            .uploadId(uploadId)
                            .multipartUpload(m -> m.parts(done))));
      } finally {
        sender.shutdownNow();
      }
    }

    @Override
    protected void doAbort() {
      sender.shutdownNow();
      if (uploadId != null) {
        try {
          s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
        } catch (SdkException ignored) {
          // the store is down: the incomplete upload stays invisible
        }
      }
    }
  }
}
