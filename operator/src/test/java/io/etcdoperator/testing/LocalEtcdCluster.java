package io.etcdoperator.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * Real etcd clusters for tests: N processes of the local {@code etcd} binary, each on its own
 * random loopback address in 127.10.0.0/16 (client port 2379, peer port 2380), bootstrapped
 * together with {@code --initial-cluster-state new}.
 *
 * <pre>{@code
 * try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start()) {
 *   cluster.awaitHealthy(Duration.ofSeconds(15));
 *   cluster.member(0).freeze();
 *   LocalEtcdMember extra = cluster.newMember("extra");   // address allocated, not started
 *   // ... add it to the member list (MemberAdd), then:
 *   extra.startExisting(LocalEtcdCluster.initialCluster(List.of(m0, m1, m2, extra)));
 * }
 * }</pre>
 *
 * <p>Files live under {@code <baseDir>/<clusterName>-<random>/}: one {@code <member>.etcd} data
 * directory and one {@code <member>.log} per member. {@link #close()} kills every process this
 * cluster started (frozen ones included) and deletes the data directories; logs are kept. A JVM
 * shutdown hook kills whatever a test forgot to close. The base directory is {@code
 * target/local-etcd} when the working directory has a {@code target/} (Maven), else the temporary
 * directory; the system property {@code local.etcd.dir} overrides it. Members run etcd {@link
 * EtcdBinaries#DEFAULT} unless {@link Builder#version} says otherwise; {@code local.etcd.binary}
 * overrides the binary.
 */
public final class LocalEtcdCluster implements AutoCloseable {
  private final String name;
  private final String token;
  private final Path dir;
  private final Settings settings;
  private final List<LocalEtcdMember> members = new ArrayList<>();

  /** How members are started; shared by every member of a cluster. */
  public record Settings(
      String etcdBinary, Duration heartbeat, Duration electionTimeout, List<String> extraArgs) {
    public Settings {
      Objects.requireNonNull(etcdBinary, "etcdBinary");
      extraArgs = List.copyOf(extraArgs);
    }
  }

  private LocalEtcdCluster(String name, String token, Path dir, Settings settings) {
    this.name = name;
    this.token = token;
    this.dir = dir;
    this.settings = settings;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The cluster's name (also the prefix of member names, {@code <name>-<i>}). */
  public String name() {
    return name;
  }

  public String token() {
    return token;
  }

  /** This cluster's directory (data directories and logs). */
  public Path dir() {
    return dir;
  }

  /** Every member created by this cluster, in creation order (bootstrap members first). */
  public synchronized List<LocalEtcdMember> members() {
    return List.copyOf(members);
  }

  public synchronized LocalEtcdMember member(int index) {
    return members.get(index);
  }

  public synchronized LocalEtcdMember member(String memberName) {
    return members.stream()
        .filter(m -> m.name().equals(memberName))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no member " + memberName));
  }

  public synchronized List<String> clientUrls() {
    return members.stream().map(LocalEtcdMember::clientUrl).toList();
  }

  /** The {@code --initial-cluster} value naming the given members. */
  public static String initialCluster(Collection<LocalEtcdMember> members) {
    return members.stream()
        .map(LocalEtcdMember::initialClusterEntry)
        .collect(Collectors.joining(","));
  }

  /**
   * A new member of this cluster, on a fresh address, not started: add it to the member list, then
   * {@link LocalEtcdMember#startExisting}. It is killed when the cluster closes.
   */
  public synchronized LocalEtcdMember newMember(String memberName) {
    if (members.stream().anyMatch(m -> m.name().equals(memberName))) {
      throw new IllegalArgumentException("member " + memberName + " exists already");
    }
    String host =
        LoopbackAddresses.allocate(LocalEtcdMember.CLIENT_PORT, LocalEtcdMember.PEER_PORT);
    LocalEtcdMember member = new LocalEtcdMember(memberName, host, dir, token, settings);
    members.add(member);
    return member;
  }

  /** Waits until every running member says it is healthy (has a leader, no alarm). */
  public void awaitHealthy(Duration timeout) {
    await("cluster " + name + " healthy")
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                members().stream()
                    .filter(LocalEtcdMember::isRunning)
                    .allMatch(m -> m.isHealthy(Duration.ofMillis(500))));
  }

  /** Kills every process of this cluster and deletes the data directories (logs stay). */
  @Override
  public void close() {
    RuntimeException first = null;
    for (LocalEtcdMember member : members()) {
      try {
        member.kill();
        LocalEtcdMember.deleteRecursively(member.dataDir());
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return "LocalEtcdCluster " + name + " " + members();
  }

  /** Builds and starts a {@link LocalEtcdCluster}. */
  public static final class Builder {
    private String name =
        "etcd" + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 20));
    private String token;
    private List<String> memberNames;
    private int size = 3;
    private Path baseDir;
    private Duration heartbeat = Duration.ofMillis(100);
    private Duration electionTimeout = Duration.ofMillis(1000);
    private final List<String> extraArgs = new ArrayList<>();
    private String binary = System.getProperty("local.etcd.binary");

    private Builder() {}

    /** The etcd version to run ("3.4", "3.5"; default {@link EtcdBinaries#DEFAULT}). */
    public Builder version(String majorMinor) {
      this.binary = EtcdBinaries.etcd(majorMinor);
      return this;
    }

    /** The cluster's name; members are named {@code <name>-0 .. <name>-(n-1)} by default. */
    public Builder name(String clusterName) {
      this.name = clusterName;
      return this;
    }

    /** {@code --initial-cluster-token}; defaults to the cluster's name. */
    public Builder token(String clusterToken) {
      this.token = clusterToken;
      return this;
    }

    /** How many members to bootstrap (3 by default). */
    public Builder members(int count) {
      this.size = count;
      this.memberNames = null;
      return this;
    }

    /** The members to bootstrap, by name. */
    public Builder memberNames(String... names) {
      this.memberNames = List.of(names);
      return this;
    }

    public Builder baseDir(Path dir) {
      this.baseDir = dir;
      return this;
    }

    /** etcd's {@code --heartbeat-interval} and {@code --election-timeout} (100 ms, 1000 ms). */
    public Builder timing(Duration heartbeatInterval, Duration election) {
      this.heartbeat = heartbeatInterval;
      this.electionTimeout = election;
      return this;
    }

    /** More etcd flags, e.g. {@code --quota-backend-bytes=...}, for every member. */
    public Builder extraArg(String arg) {
      this.extraArgs.add(arg);
      return this;
    }

    /** Starts every member (without waiting for them: see {@link #awaitHealthy}). */
    public LocalEtcdCluster start() {
      List<String> names = memberNames;
      if (names == null) {
        names = new ArrayList<>();
        for (int i = 0; i < size; i++) {
          names.add(name + "-" + i);
        }
      }
      Settings settings =
          new Settings(
              binary != null ? binary : EtcdBinaries.etcd(EtcdBinaries.DEFAULT),
              heartbeat,
              electionTimeout,
              extraArgs);
      LocalEtcdCluster cluster =
          new LocalEtcdCluster(name, token == null ? name : token, createDir(name), settings);
      try {
        List<LocalEtcdMember> bootstrap = new ArrayList<>();
        for (String memberName : names) {
          bootstrap.add(cluster.newMember(memberName));
        }
        String initialCluster = initialCluster(bootstrap);
        bootstrap.forEach(m -> m.startNew(initialCluster));
        return cluster;
      } catch (RuntimeException e) {
        cluster.close();
        throw e;
      }
    }

    private Path createDir(String clusterName) {
      Path base = baseDir;
      if (base == null) {
        String configured = System.getProperty("local.etcd.dir");
        if (configured != null) {
          base = Path.of(configured);
        } else if (Files.isDirectory(Path.of("target"))) {
          base = Path.of("target", "local-etcd");
        } else {
          base = Path.of(System.getProperty("java.io.tmpdir"), "local-etcd");
        }
      }
      try {
        Files.createDirectories(base);
        return Files.createTempDirectory(base.toAbsolutePath(), clusterName + "-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a directory under " + base, e);
      }
    }
  }
}
