package io.etcdoperator.testing;

import io.etcdoperator.testing.WriterReport.Failure;
import io.etcdoperator.testing.WriterReport.Mark;
import io.etcdoperator.testing.WriterReport.Write;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Writes unique keys to an etcd cluster at a bounded rate while a test does something to the
 * cluster, then reads every key back and reports which acknowledged writes were lost: "nothing
 * acknowledged was lost" as a checked number ({@link WriterReport}).
 *
 * <pre>{@code
 * try (RecordingWriter writer = RecordingWriter.builder(cluster.clientUrls()).start()) {
 *   writer.mark("restart " + member.name());
 *   member.restart();
 *   WriterReport report = writer.report();   // stops, reads back, reports
 *   System.out.println(report.summary());
 *   assertThat(report.lost()).isEmpty();
 * }
 * }</pre>
 *
 * <h2>Writing</h2>
 *
 * One thread makes one put at a time, at most {@code rate} per second (50 by default), each on a
 * new key {@code <prefix><seq, 8 digits>}; a failed put is never retried on the same key, so every
 * key is either acknowledged (with the revision etcd gave it) or unconfirmed. Each put carries a
 * deadline (1 s by default): a frozen member costs one deadline, never a hang. The writer stops by
 * itself after {@code maxDuration} (60 s by default) or {@code maxAttempts}, even if nobody stops
 * it.
 *
 * <h2>Endpoints</h2>
 *
 * Client URLs; a name is resolved to every address it has, and each address is one endpoint. The
 * writer keeps using one endpoint while it answers; after any failure it moves to the next, and
 * resolves the names again each time it has been through the list (a pod that moved has a new
 * address; note that the JVM caches successful lookups for {@code networkaddress.cache.ttl}, 30 s
 * by default).
 *
 * <h2>Checking</h2>
 *
 * {@link #report()} stops the writer and reads back every key under the prefix, linearizably, page
 * by page; a page that fails (no quorum, no leader, a learner, a member down) is tried on the next
 * endpoint until {@code verifyTimeout} (30 s by default) has passed. If no read succeeds by then
 * the report says so and counts nothing as lost.
 */
public final class RecordingWriter implements AutoCloseable {
  private static final int PAGE = 1000;
  private static final Duration VERIFY_RETRY_PAUSE = Duration.ofMillis(100);
  private static final Duration STOP_GRACE = Duration.ofSeconds(2);

  private final Settings settings;
  private final EtcdKv kv;
  private final Endpoints endpoints;
  private final Thread thread;
  private final CountDownLatch stopSignal = new CountDownLatch(1);
  private final Object lock = new Object();
  private final List<Write> acknowledged = new ArrayList<>();
  private final List<Failure> failures = new ArrayList<>();
  private final List<Mark> marks = new ArrayList<>();
  private final long startNanos;
  private final Instant startInstant;
  private volatile long stopNanos = -1;
  private volatile boolean paused;
  private final java.util.concurrent.locks.ReentrantLock inFlight =
      new java.util.concurrent.locks.ReentrantLock();
  private WriterReport report;

  /** How a writer writes and checks; see {@link Builder} for each field. */
  record Settings(
      List<String> endpoints,
      double rate,
      Duration putDeadline,
      Duration maxDuration,
      long maxAttempts,
      String prefix,
      Duration gapThreshold,
      Duration verifyTimeout,
      Resolver resolver,
      Optional<io.etcdoperator.operator.tls.ClientTls> tls) {}

  /** Resolves a host name to its addresses ({@link InetAddress#getAllByName} by default). */
  @FunctionalInterface
  public interface Resolver {
    List<InetAddress> resolve(String host) throws UnknownHostException;
  }

  private RecordingWriter(Settings settings) {
    this.settings = settings;
    this.endpoints = new Endpoints(settings.endpoints(), settings.resolver());
    this.kv =
        new EtcdKv(
            settings.putDeadline(),
            settings.tls(),
            uri -> endpoints.hostOf(uri.getHost() + ":" + uri.getPort()));
    this.startNanos = System.nanoTime();
    this.startInstant = Instant.now();
    this.thread = new Thread(this::run, "recording-writer " + settings.prefix());
    this.thread.setDaemon(true);
  }

  /** A writer through these client URLs (or names); configure it, then {@link Builder#start}. */
  public static Builder builder(List<String> endpoints) {
    return new Builder(endpoints);
  }

  /** The key prefix of this run, e.g. {@code /writer/3fa9c1d2/}. */
  public String prefix() {
    return settings.prefix();
  }

  /** Writes acknowledged so far. */
  public int acknowledgedCount() {
    synchronized (lock) {
      return acknowledged.size();
    }
  }

  /** Attempts failed so far. */
  public int failedCount() {
    synchronized (lock) {
      return failures.size();
    }
  }

  /** Whether the writer is still writing. */
  public boolean isRunning() {
    return thread.isAlive();
  }

  /** Records an event on the writer's timeline, to attribute gaps to it; returns its time. */
  public Instant mark(String label) {
    Instant at = now();
    synchronized (lock) {
      marks.add(new Mark(label, at));
    }
    return at;
  }

  /**
   * Writes nothing until {@link #resume}: returns once the put in flight (if any) has finished, so
   * that nothing reaches the cluster meanwhile. For a test that needs a quiet cluster for a moment
   * (a member that restarts without its data panics only if its leader's first message is a
   * heartbeat, not an append).
   */
  public void pause() {
    paused = true;
    inFlight.lock();
    inFlight.unlock();
  }

  /** Writes again after {@link #pause}. */
  public void resume() {
    paused = false;
  }

  /** Stops writing (waits for the put in flight, at most one deadline). Idempotent. */
  public void stop() {
    stopSignal.countDown();
    try {
      thread.join(settings.putDeadline().plus(STOP_GRACE).toMillis());
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(STOP_GRACE.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops the writer, reads every key back and reports; later calls return the same report. Takes
   * at most about {@code verifyTimeout} per page of 1000 keys when no quorum answers.
   */
  public synchronized WriterReport report() {
    if (report == null) {
      stop();
      Verification v = verify();
      List<Write> acks;
      List<Failure> failed;
      List<Mark> marked;
      synchronized (lock) {
        acks = List.copyOf(acknowledged);
        failed = List.copyOf(failures);
        marked = List.copyOf(marks);
      }
      long stopped = stopNanos < 0 ? System.nanoTime() : stopNanos;
      report =
          WriterReport.of(
              settings.prefix(),
              settings.endpoints(),
              startInstant,
              at(stopped),
              settings.rate(),
              acks,
              failed,
              marked,
              settings.gapThreshold(),
              v.found(),
              v.error());
    }
    return report;
  }

  /** {@link #report()}'s one-line summary. */
  public String summary() {
    return report().summary();
  }

  /** Stops writing and closes the connections (without reading back). */
  @Override
  public void close() {
    stop();
    kv.close();
  }

  static String keyOf(String prefix, long seq) {
    return prefix + String.format("%08d", seq);
  }

  static String valueOf(long seq) {
    return "seq=" + seq;
  }

  private void run() {
    long interval = (long) (1e9 / settings.rate());
    long end = startNanos + settings.maxDuration().toNanos();
    long next = startNanos;
    try {
      for (long seq = 0; seq < settings.maxAttempts(); seq++) {
        long wait = Math.min(next, end) - System.nanoTime();
        if (wait > 0 && stopSignal.await(wait, TimeUnit.NANOSECONDS)) {
          return;
        }
        if (stopSignal.getCount() == 0 || System.nanoTime() >= end) {
          return;
        }
        inFlight.lock();
        try {
          if (paused) {
            seq--;
            next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
            continue;
          }
          attempt(seq);
        } finally {
          inFlight.unlock();
        }
        next = Math.max(next + interval, System.nanoTime());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stopNanos = System.nanoTime();
    }
  }

  private void attempt(long seq) {
    String key = keyOf(settings.prefix(), seq);
    long start = System.nanoTime();
    Optional<String> endpoint = endpoints.current();
    if (endpoint.isEmpty()) {
      fail(seq, key, "", start, "no endpoint resolves: " + settings.endpoints());
      return;
    }
    try {
      long revision = kv.put(endpoint.get(), key, valueOf(seq));
      long done = System.nanoTime();
      synchronized (lock) {
        acknowledged.add(
            new Write(
                seq, key, revision, endpoint.get(), at(done), Duration.ofNanos(done - start)));
      }
    } catch (RuntimeException e) {
      fail(seq, key, endpoint.get(), start, e.getMessage());
      endpoints.advance();
    }
  }

  private void fail(long seq, String key, String endpoint, long start, String error) {
    long done = System.nanoTime();
    synchronized (lock) {
      failures.add(
          new Failure(
              seq,
              key,
              endpoint,
              at(start),
              Duration.ofNanos(done - start),
              Objects.requireNonNullElse(error, "")));
    }
  }

  private record Verification(Optional<Map<String, EtcdKv.Entry>> found, Optional<String> error) {}

  private Verification verify() {
    long deadline = System.nanoTime() + settings.verifyTimeout().toNanos();
    Map<String, EtcdKv.Entry> found = new HashMap<>();
    String from = settings.prefix();
    String lastError = "no endpoint resolves: " + settings.endpoints();
    // every page but the last holds PAGE keys, and there are at most maxAttempts of them
    for (long pages = 0; pages <= settings.maxAttempts() / PAGE + 1; pages++) {
      EtcdKv.Page page = null;
      while (page == null) {
        if (System.nanoTime() > deadline) {
          return new Verification(
              Optional.empty(),
              Optional.of(
                  "no linearizable read succeeded within "
                      + settings.verifyTimeout().toSeconds()
                      + " s; last error: "
                      + lastError));
        }
        Optional<String> endpoint = endpoints.current();
        try {
          if (endpoint.isPresent()) {
            page = kv.range(endpoint.get(), settings.prefix(), from, PAGE);
          }
        } catch (RuntimeException e) {
          lastError = e.getMessage();
          endpoints.advance();
        }
        if (page == null && pause(VERIFY_RETRY_PAUSE)) {
          return new Verification(Optional.empty(), Optional.of("interrupted"));
        }
      }
      page.entries().forEach(e -> found.put(e.key(), e));
      if (!page.more() || page.entries().isEmpty()) {
        return new Verification(Optional.of(found), Optional.empty());
      }
      from = page.entries().get(page.entries().size() - 1).key() + "\0";
    }
    return new Verification(
        Optional.empty(), Optional.of("more keys under " + settings.prefix() + " than attempts"));
  }

  /** Waits (a retry back-off, not a condition); true when interrupted. */
  private static boolean pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  private Instant now() {
    return at(System.nanoTime());
  }

  /** Wall-clock time of a {@link System#nanoTime()} reading: monotonic within a run. */
  private Instant at(long nanos) {
    return startInstant.plusNanos(nanos - startNanos);
  }

  /** The endpoints in use: names expanded to addresses, one current, moved on after a failure. */
  /** Client URLs resolved to one endpoint per address (shared with the robustness workload). */
  public static final class Endpoints {
    private final List<String> configured;
    private final Resolver resolver;
    private List<String> resolved = List.of();
    private int index;

    Endpoints(List<String> configured, Resolver resolver) {
      this.configured = List.copyOf(configured);
      this.resolver = resolver;
    }

    synchronized Optional<String> current() {
      if (resolved.isEmpty()) {
        resolve();
      }
      return resolved.isEmpty() ? Optional.empty() : Optional.of(resolved.get(index));
    }

    synchronized void advance() {
      index++;
      if (index >= resolved.size()) {
        resolve();
      }
    }

    /** The name an address of {@code hostPort} was resolved from (itself when none). */
    public String hostOf(String hostPort) {
      String name = names.get(hostPort);
      return name != null ? name : hostPort.substring(0, hostPort.lastIndexOf(':'));
    }

    /** address:port to the name it was resolved from: TLS verifies the member by its name. */
    private final Map<String, String> names = new java.util.concurrent.ConcurrentHashMap<>();

    private void resolve() {
      resolved = expand(configured, resolver, names);
      index = 0;
    }

    /** Every client URL with its host replaced by each address the host resolves to. */
    static List<String> expand(List<String> urls, Resolver resolver) {
      return expand(urls, resolver, new HashMap<>());
    }

    /**
     * Every client URL with its host replaced by each address it resolves to; {@code names} learns
     * which name each address came from.
     */
    public static List<String> expand(
        List<String> urls, Resolver resolver, Map<String, String> names) {
      Set<String> result = new LinkedHashSet<>();
      for (String url : urls) {
        URI uri = URI.create(url);
        if (uri.getHost() == null || uri.getPort() < 0) {
          throw new IllegalArgumentException("not an http://host:port client URL: " + url);
        }
        List<InetAddress> addresses;
        try {
          addresses = resolver.resolve(uri.getHost());
        } catch (UnknownHostException e) {
          continue;
        }
        for (InetAddress a : addresses) {
          String host =
              a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress();
          result.add(uri.getScheme() + "://" + host + ":" + uri.getPort());
          names.put(host + ":" + uri.getPort(), uri.getHost());
        }
      }
      return List.copyOf(result);
    }
  }

  /** Configures and starts a {@link RecordingWriter}. */
  public static final class Builder {
    private final List<String> endpoints;
    private double rate = 50;
    private Duration putDeadline = Duration.ofSeconds(1);
    private Duration maxDuration = Duration.ofSeconds(60);
    private long maxAttempts = 100_000;
    private String prefix =
        "/writer/" + Integer.toHexString(ThreadLocalRandom.current().nextInt() | 0x10000000) + "/";
    private Duration gapThreshold = Duration.ofMillis(200);
    private Duration verifyTimeout = Duration.ofSeconds(30);
    private Resolver resolver = host -> List.of(InetAddress.getAllByName(host));
    private Optional<io.etcdoperator.operator.tls.ClientTls> tls = Optional.empty();

    private Builder(List<String> endpoints) {
      if (endpoints.isEmpty()) {
        throw new IllegalArgumentException("no endpoint");
      }
      this.endpoints = List.copyOf(endpoints);
    }

    /** Attempts per second at most (50). */
    public Builder rate(double perSecond) {
      if (!(perSecond > 0)) {
        throw new IllegalArgumentException("rate must be > 0");
      }
      this.rate = perSecond;
      return this;
    }

    /** The deadline of each put and each read (1 s). */
    public Builder putDeadline(Duration deadline) {
      this.putDeadline = deadline;
      return this;
    }

    /** The writer stops by itself after this long (60 s). */
    public Builder maxDuration(Duration duration) {
      this.maxDuration = duration;
      return this;
    }

    /** The writer stops by itself after this many attempts (100 000). */
    public Builder maxAttempts(long attempts) {
      this.maxAttempts = attempts;
      return this;
    }

    /** The key prefix ({@code /writer/<random>/}); keys are {@code <prefix><seq>}. */
    public Builder prefix(String keyPrefix) {
      this.prefix = keyPrefix;
      return this;
    }

    /** The shortest gap listed in {@link WriterReport#gaps()} (200 ms). */
    public Builder gapThreshold(Duration threshold) {
      this.gapThreshold = threshold;
      return this;
    }

    /** How long reading back may keep trying for a quorum (30 s). */
    public Builder verifyTimeout(Duration timeout) {
      this.verifyTimeout = timeout;
      return this;
    }

    /** How host names are resolved (the JVM's resolver). */
    public Builder resolver(Resolver hostResolver) {
      this.resolver = hostResolver;
      return this;
    }

    /** Mutual TLS for https endpoints: the CAs trusted and the client certificate (none). */
    public Builder tls(io.etcdoperator.operator.tls.ClientTls material) {
      this.tls = Optional.of(material);
      return this;
    }

    /** Starts writing. */
    public RecordingWriter start() {
      RecordingWriter writer =
          new RecordingWriter(
              new Settings(
                  endpoints,
                  rate,
                  putDeadline,
                  maxDuration,
                  maxAttempts,
                  prefix,
                  gapThreshold,
                  verifyTimeout,
                  resolver,
                  tls));
      writer.thread.start();
      return writer;
    }
  }
}
