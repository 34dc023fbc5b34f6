package io.etcdoperator.sandbox;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * The sandbox's S3-compatible object store ({@code sandbox --object-store}): s3proxy with its
 * filesystem backend (objects are files under {@code <dir>/s3/<bucket>/}), on 127.0.0.1, with one
 * access key, a bucket {@value #BUCKET}, and the Secret {@value #SECRET} in namespace default that
 * EtcdBackups name in {@code credentialsSecretRef}.
 */
public final class ObjectStore implements AutoCloseable {
  public static final String BUCKET = "backups";
  public static final String SECRET = "s3-credentials";
  public static final String ACCESS_KEY = "sandbox";
  public static final String SECRET_KEY = "sandbox-secret";

  private final S3Proxy proxy;
  private final BlobStoreContext context;
  private final Path dir;

  private ObjectStore(S3Proxy proxy, BlobStoreContext context, Path dir) {
    this.proxy = proxy;
    this.context = context;
    this.dir = dir;
  }

  /** Starts on a free port of 127.0.0.1 (or {@code port}), with the bucket. */
  public static ObjectStore start(Path dir, int port) throws Exception {
    Files.createDirectories(dir);
    Properties p = new Properties();
    p.setProperty("jclouds.filesystem.basedir", dir.toString());
    BlobStoreContext context =
        ContextBuilder.newBuilder("filesystem").overrides(p).build(BlobStoreContext.class);
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(context.getBlobStore())
            .endpoint(URI.create("http://127.0.0.1:" + port))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .ignoreUnknownHeaders(true)
            .build();
    proxy.start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!"STARTED".equals(proxy.getState()) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    if (!"STARTED".equals(proxy.getState())) {
      throw new SandboxException("the object store did not start: " + proxy.getState());
    }
    context.getBlobStore().createContainerInLocation(null, BUCKET);
    return new ObjectStore(proxy, context, dir);
  }

  public String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  public Path dir() {
    return dir;
  }

  /** The credentials Secret, in {@code namespace}. */
  public void createSecret(KubernetesClient client, String namespace) {
    client
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(SECRET)
                .withNamespace(namespace)
                .endMetadata()
                .withStringData(
                    Map.of("AWS_ACCESS_KEY_ID", ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", SECRET_KEY))
                .build())
        .createOr(r -> r.update());
  }

  /** An EtcdBackup of {@code cluster} to this store, ready to apply. */
  public String sampleBackup(String cluster) {
    return """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdBackup
        metadata:
          name: %s-backup-1
          namespace: default
        spec:
          clusterRef:
            name: %s
          destination:
            s3:
              endpoint: %s
              bucket: %s
              key: %s
              forcePathStyle: true
              credentialsSecretRef:
                name: %s
        """
        .formatted(cluster, cluster, endpoint(), BUCKET, cluster, SECRET);
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
