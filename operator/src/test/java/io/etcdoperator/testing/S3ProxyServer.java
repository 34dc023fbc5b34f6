package io.etcdoperator.testing;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * A real S3-compatible server for tests: s3proxy with its filesystem backend (objects are files
 * under {@code dir}), on 127.0.0.1, checking AWS V2/V4 signatures against one access key. It can be
 * stopped and started again on the same port (the object store going down, and coming back).
 */
public final class S3ProxyServer implements AutoCloseable {
  public static final String ACCESS_KEY = "test-access-key";
  public static final String SECRET_KEY = "test-secret-key";

  private final Path dir;
  private final BlobStoreContext context;
  private int port;
  private S3Proxy proxy;

  private S3ProxyServer(Path dir) {
    this.dir = dir;
    Properties p = new Properties();
    p.setProperty("jclouds.filesystem.basedir", dir.toString());
    this.context =
        ContextBuilder.newBuilder("filesystem").overrides(p).build(BlobStoreContext.class);
  }

  /** Starts on a free port, with the given buckets. */
  public static S3ProxyServer start(Path dir, String... buckets) throws Exception {
    Files.createDirectories(dir);
    S3ProxyServer s = new S3ProxyServer(dir);
    s.startOn(0);
    for (String b : buckets) {
      s.context.getBlobStore().createContainerInLocation(null, b);
    }
    return s;
  }

  private void startOn(int wanted) throws Exception {
    proxy =
        S3Proxy.builder()
            .blobStore(context.getBlobStore())
            .endpoint(URI.create("http://127.0.0.1:" + wanted))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .ignoreUnknownHeaders(true)
            .build();
    proxy.start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!"STARTED".equals(proxy.getState()) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    if (!"STARTED".equals(proxy.getState())) {
      throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
    }
    port = proxy.getPort();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Where the objects of {@code bucket} are, as files. */
  public Path bucketDir(String bucket) {
    return dir.resolve(bucket);
  }

  /** The object store goes down: connections are refused until {@link #resume()}. */
  public void pause() throws Exception {
    proxy.stop();
  }

  /** Serves again, on the same port. */
  public void resume() throws Exception {
    startOn(port);
  }

  @Override
  public void close() throws Exception {
    try {
      proxy.stop();
    } finally {
      context.close();
    }
  }
}
