package io.etcdoperator.operator.backup;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
    return new S3Upload(this, s3, key, endpoint, socketTimeout);
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

  interface S3Call<T> {
    T run() throws IOException;
  }

  /** Runs one call; its failure becomes a {@link StoreException} that says what to do. */
  <T> T call(String key, S3Call<T> call) throws StoreException {
    try {
      return call.run();
    } catch (IOException e) {
      throw translate(key, e);
    }
  }

  StoreException translate(String key, Throwable e) {
    return S3Errors.translate(uri(key) + " at " + endpoint, endpoint, bucket, e);
  }
}
