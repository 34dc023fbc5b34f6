package io.etcdoperator.operator.cli;

import io.etcdoperator.operator.backup.BackupAgent;
import io.etcdoperator.operator.backup.FileStore;
import io.etcdoperator.operator.backup.MemberFailedException;
import io.etcdoperator.operator.backup.S3Store;
import io.etcdoperator.operator.backup.SnapshotStore;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdServiceConfig;
import io.etcdoperator.operator.etcd.EtcdUnexpectedException;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.model.BackupPods;
import io.etcdoperator.operator.model.Manifest;
import io.etcdoperator.operator.tls.ClientTls;
import io.etcdoperator.operator.tls.Pem;
import io.etcdoperator.operator.tls.TlsException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code etcd-operator agent ...}: what the operator's own pods run (a backup, the deletion of a
 * backup's data, a restore). Each prints its result on its last line and writes it to the
 * termination message file, where the operator reads it; it exits 1 with the reason otherwise.
 */
@Command(
    name = "agent",
    description = "Run the work of a backup or restore (in the pods the operator starts).",
    subcommands = {
      AgentCommand.Backup.class,
      AgentCommand.Delete.class,
      RestoreAgentCommand.class,
      ArchiveCommand.class
    })
public final class AgentCommand {
  /** Where the kubelet reads a container's termination message. */
  static final String TERMINATION_LOG = "/dev/termination-log";

  /**
   * Where the snapshot goes, or comes from: a bucket (credentials from the environment) or a
   * directory.
   */
  static final class StoreOptions {
    @Option(names = "--s3-endpoint", description = "The object store's URL.")
    String endpoint;

    @Option(names = "--s3-bucket")
    String bucket;

    @Option(names = "--s3-region")
    String region;

    @Option(names = "--s3-force-path-style", arity = "1", defaultValue = "false")
    boolean forcePathStyle;

    @Option(names = "--dir", description = "A directory (a claim's mount) instead of a bucket.")
    Path dir;

    @Option(names = "--uri-prefix", description = "How URIs of the directory start (pvc://claim).")
    String uriPrefix;

    SnapshotStore open() {
      if (dir != null) {
        return new FileStore(dir, uriPrefix == null ? "file://" + dir : uriPrefix);
      }
      if (endpoint == null || bucket == null) {
        throw new IllegalArgumentException("give --dir, or --s3-endpoint and --s3-bucket");
      }
      String id = System.getenv("AWS_ACCESS_KEY_ID");
      String secret = System.getenv("AWS_SECRET_ACCESS_KEY");
      if (id == null || secret == null) {
        throw new IllegalArgumentException(
            "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set (from credentialsSecretRef)");
      }
      return new S3Store(endpoint, region, forcePathStyle, bucket, id, secret);
    }
  }

  @Option(names = "--termination-log", description = "Default: " + TERMINATION_LOG)
  static Path terminationLog = Path.of(TERMINATION_LOG);

  /** Prints the result and leaves it where the kubelet reads it. */
  static int finish(String line, boolean ok) {
    (ok ? System.out : System.err).println(line);
    try {
      Path log = terminationLog;
      if (log.getParent() != null && Files.isWritable(log.getParent()) || Files.isWritable(log)) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        // the kubelet keeps at most 4096 bytes
        Files.write(log, b.length > 4000 ? Arrays.copyOf(b, 4000) : b);
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("could not write the termination message: " + e);
    }
    return ok ? 0 : 1;
  }

  /** {@code agent backup}: one snapshot, its upload and its manifest. */
  @Command(name = "backup", mixinStandardHelpOptions = true, description = "Take one backup.")
  static final class Backup implements Callable<Integer> {
    @Option(names = "--cluster", required = true, description = "namespace/name")
    String cluster;

    @Option(names = "--member", required = true)
    String member;

    @Option(names = "--endpoint", required = true, description = "The member's client URL.")
    String endpoint;

    @Option(names = "--key", required = true, description = "The snapshot's key in the store.")
    String key;

    @Mixin StoreOptions store = new StoreOptions();

    @Mixin TlsOptions tls = new TlsOptions();

    @Override
    public Integer call() {
      Main.shortAddressCache();
      try (SnapshotStore s = store.open();
          JetcdEtcdService etcd =
              new JetcdEtcdService(
                  EtcdServiceConfig.defaults().withDeadline(Duration.ofSeconds(5)))) {
        etcd.useTls(cluster, tls.read());
        Manifest m =
            new BackupAgent(etcd, Clock.systemUTC(), System.err::println)
                .run(new BackupAgent.Request(cluster, member, endpoint, key), s);
        return finish(m.toJsonLine(), true);
      } catch (MemberFailedException e) {
        finish("backup failed: " + e.getMessage(), false);
        return BackupPods.EXIT_MEMBER_FAILED;
      } catch (IOException
          | EtcdException
          | EtcdUnexpectedException
          | IllegalArgumentException
          | TlsException e) {
        return finish("backup failed: " + e.getMessage(), false);
      }
    }
  }

  /** {@code agent delete}: a backup's manifest, then its snapshot. */
  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = "Delete a backup's data.")
  static final class Delete implements Callable<Integer> {
    @Option(names = "--key", required = true)
    String key;

    @Mixin StoreOptions store = new StoreOptions();

    @Override
    public Integer call() {
      try (SnapshotStore s = store.open()) {
        BackupAgent.delete(s, key);
        return finish("deleted " + s.uri(key), true);
      } catch (IOException | IllegalArgumentException e) {
        return finish("delete failed: " + e.getMessage(), false);
      }
    }
  }

  /** How the agent reaches members that serve clients over TLS. */
  static final class TlsOptions {
    @Option(
        names = "--tls-ca",
        description = "PEM file of the CA that signs the members' server certificates.")
    Path ca;

    @Option(names = "--tls-cert", description = "PEM file of the client certificate to present.")
    Path cert;

    @Option(names = "--tls-key", description = "PEM file of the client certificate's key.")
    Path key;

    /** The TLS to call members with; empty: plain http. */
    Optional<ClientTls> read() throws IOException, TlsException {
      if (ca == null) {
        return Optional.empty();
      }
      var trust = Pem.certificates(Files.readAllBytes(ca));
      if (cert == null || key == null) {
        return Optional.of(ClientTls.of(trust, Optional.empty(), List.of()));
      }
      return Optional.of(
          ClientTls.of(
              trust,
              Optional.of(Pem.privateKey(Files.readAllBytes(key))),
              Pem.certificates(Files.readAllBytes(cert))));
    }
  }
}
