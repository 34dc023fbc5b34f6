package io.etcdoperator.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One real etcd process on its own loopback address (client port 2379, peer port 2380), with its
 * own data directory and log file. Created by {@link LocalEtcdCluster}; the cluster kills it at
 * close.
 *
 * <p>Lifecycle: {@link #startNew}, {@link #startExisting} or {@link #startForceNewCluster} start
 * the process; {@link #kill()} (SIGKILL), {@link #stop()} (SIGTERM), {@link #freeze()} (SIGSTOP)
 * and {@link #thaw()} (SIGCONT) act on it; {@link #restart()} starts it again on the same data
 * directory; {@link #wipeData()} deletes the data directory of a member that is not running. Each
 * start appends to {@link #logFile()}, after a line naming the command.
 */
public final class LocalEtcdMember {
  public static final int CLIENT_PORT = 2379;
  public static final int PEER_PORT = 2380;
  public static final int METRICS_PORT = 2381;
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  private final String name;
  private final String host;
  private final Path dataDir;
  private final Path logFile;
  private final String clusterToken;
  private final LocalEtcdCluster.Settings settings;
  private List<String> lastCommand;
  private Process process;

  LocalEtcdMember(
      String name, String host, Path dir, String clusterToken, LocalEtcdCluster.Settings settings) {
    this.name = name;
    this.host = host;
    this.dataDir = dir.resolve(name + ".etcd");
    this.logFile = dir.resolve(name + ".log");
    this.clusterToken = clusterToken;
    this.settings = settings;
  }

  public String name() {
    return name;
  }

  /** The member's loopback IP, e.g. {@code 127.10.4.17}. */
  public String host() {
    return host;
  }

  public String clientUrl() {
    return "http://" + host + ":" + CLIENT_PORT;
  }

  public String peerUrl() {
    return "http://" + host + ":" + PEER_PORT;
  }

  /**
   * Where the member serves {@code /metrics} and {@code /health}, even when its client port is
   * silent.
   */
  public String metricsUrl() {
    return "http://" + host + ":" + METRICS_PORT;
  }

  /** This member's entry of {@code --initial-cluster}: {@code name=peerUrl}. */
  public String initialClusterEntry() {
    return name + "=" + peerUrl();
  }

  public Path dataDir() {
    return dataDir;
  }

  public Path logFile() {
    return logFile;
  }

  /**
   * Starts the member of a cluster bootstrapped from scratch ({@code --initial-cluster-state new}).
   */
  public synchronized void startNew(String initialCluster) {
    start(bootstrapCommand(initialCluster, "new"));
  }

  /**
   * Starts a member that joins a running cluster ({@code --initial-cluster-state existing}). It
   * must have been added to the member list first; {@code initialCluster} must name every member of
   * that list, this one included (see {@link LocalEtcdCluster#initialCluster}).
   */
  public synchronized void startExisting(String initialCluster) {
    start(bootstrapCommand(initialCluster, "existing"));
  }

  /**
   * Starts the member on its existing data with {@code --force-new-cluster}: it becomes the only
   * member of its cluster (same cluster ID, same data). Later {@link #restart()}s drop the flag.
   */
  public synchronized void startForceNewCluster() {
    List<String> command = bootstrapCommand(initialClusterEntry(), "new");
    start(command, "--force-new-cluster");
  }

  /** Starts the member again with its last command, on the same data directory (stops it first). */
  public synchronized void restart() {
    if (lastCommand == null) {
      throw new IllegalStateException(name + " was never started");
    }
    if (isRunning()) {
      stop();
    }
    start(lastCommand);
  }

  /** SIGKILL, and waits until the process is gone. */
  public synchronized void kill() {
    if (process != null) {
      process.destroyForcibly();
      waitFor(STOP_GRACE);
    }
  }

  /** SIGTERM, waits for a clean exit, and kills the process if it does not exit in 10 s. */
  public synchronized void stop() {
    if (process != null && process.isAlive()) {
      thaw();
      process.destroy();
      if (awaitExit(STOP_GRACE).isEmpty()) {
        kill();
      }
    }
  }

  /** SIGSTOP: the process keeps its sockets but answers nothing, like a partitioned node. */
  public synchronized void freeze() {
    signal("STOP");
  }

  /** SIGCONT: undoes {@link #freeze()}. */
  public synchronized void thaw() {
    signal("CONT");
  }

  /** Deletes the data directory, as if the member's disk was lost. The member must not run. */
  public synchronized void wipeData() {
    if (isRunning()) {
      throw new IllegalStateException(name + " is running; stop or kill it before wiping its data");
    }
    deleteRecursively(dataDir);
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The process ID of the running (or last) process. */
  public synchronized long pid() {
    if (process == null) {
      throw new IllegalStateException(name + " was never started");
    }
    return process.pid();
  }

  /** The exit code of the last process, if it has exited. */
  public synchronized OptionalInt exitCode() {
    return process == null || process.isAlive()
        ? OptionalInt.empty()
        : OptionalInt.of(process.exitValue());
  }

  /** Waits up to {@code timeout} for the process to exit; its exit code, if it did. */
  public OptionalInt awaitExit(Duration timeout) {
    Process p;
    synchronized (this) {
      p = process;
    }
    if (p == null) {
      return OptionalInt.empty();
    }
    try {
      return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
          ? OptionalInt.of(p.exitValue())
          : OptionalInt.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalInt.empty();
    }
  }

  /**
   * Whether etcd's HTTP {@code /health} endpoint on this member answers {@code "health":"true"}
   * within {@code timeout} (it does when the member has a leader and no alarm).
   */
  public boolean isHealthy(Duration timeout) {
    return httpGet("/health", timeout)
        .map(body -> body.contains("\"health\":\"true\""))
        .orElse(false);
  }

  /** The last {@code lines} lines of the log file, for failure messages. */
  public String logTail(int lines) {
    try {
      if (!Files.exists(logFile)) {
        return "";
      }
      List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  @Override
  public String toString() {
    return name + "@" + host;
  }

  private List<String> bootstrapCommand(String initialCluster, String state) {
    List<String> command = new ArrayList<>();
    command.add(settings.etcdBinary());
    add(command, "--name", name);
    add(command, "--data-dir", dataDir.toString());
    add(command, "--listen-client-urls", clientUrl());
    add(command, "--advertise-client-urls", clientUrl());
    add(command, "--listen-peer-urls", peerUrl());
    add(command, "--initial-advertise-peer-urls", peerUrl());
    add(command, "--listen-metrics-urls", metricsUrl());
    add(command, "--initial-cluster", initialCluster);
    add(command, "--initial-cluster-state", state);
    add(command, "--initial-cluster-token", clusterToken);
    add(command, "--heartbeat-interval", Long.toString(settings.heartbeat().toMillis()));
    add(command, "--election-timeout", Long.toString(settings.electionTimeout().toMillis()));
    add(command, "--logger", "zap");
    add(command, "--log-outputs", "stderr");
    command.addAll(settings.extraArgs());
    return command;
  }

  private static void add(List<String> command, String flag, String value) {
    command.add(flag + "=" + value);
  }

  private void start(List<String> command, String... onceArgs) {
    if (isRunning()) {
      throw new IllegalStateException(name + " is already running");
    }
    List<String> full = new ArrayList<>(command);
    full.addAll(List.of(onceArgs));
    try {
      Files.createDirectories(logFile.getParent());
      Files.writeString(
          logFile,
          "=== " + Instant.now() + " starting: " + String.join(" ", full) + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      ProcessBuilder builder = new ProcessBuilder(full);
      builder.environment().keySet().removeIf(k -> k.startsWith("ETCD"));
      builder.redirectErrorStream(true);
      builder.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      process = builder.start();
      LocalProcesses.register(process);
      lastCommand = command;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start etcd " + name, e);
    }
  }

  private void signal(String signal) {
    if (!isRunning()) {
      throw new IllegalStateException(name + " is not running");
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
      if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void waitFor(Duration timeout) {
    if (awaitExit(timeout).isEmpty()) {
      throw new IllegalStateException(name + " (pid " + process.pid() + ") did not exit");
    }
  }

  private Optional<String> httpGet(String path, Duration timeout) {
    HttpURLConnection connection = null;
    try {
      connection = (HttpURLConnection) URI.create(clientUrl() + path).toURL().openConnection();
      connection.setConnectTimeout((int) timeout.toMillis());
      connection.setReadTimeout((int) timeout.toMillis());
      connection.setUseCaches(false);
      if (connection.getResponseCode() != 200) {
        return Optional.empty();
      }
      try (InputStream in = connection.getInputStream()) {
        return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      return Optional.empty();
    } finally {
      if (connection != null) {
        connection.disconnect();
      }
    }
  }

  static void deleteRecursively(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path, e);
    }
  }
}
