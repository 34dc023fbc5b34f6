package io.etcdoperator.testing.robustness;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.CompactionRequest;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.DeleteRangeResponse;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseRevokeRequest;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.PutResponse;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.ResponseOp;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.api.TxnResponse;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchProgressRequest;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.etcdoperator.operator.tls.ClientTls;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.RecordingWriter;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The recording workload of a robustness run: concurrent clients and watchers against an etcd
 * cluster through its client endpoints, as users reach it, recording every operation into a {@link
 * History} for the {@link Checker}.
 *
 * <h2>Clients</h2>
 *
 * {@code clients} threads (8 by default), each with at most one call in flight, paced to {@code
 * rate} calls a second each. A client keeps one endpoint while it answers and moves to another at
 * random after any failure (the names are resolved again then: a pod that moved has a new address).
 * Each call draws one of the {@link Kind}s by the weights of {@link Mix}, on one of {@code keys}
 * keys under the run's prefix; every value is unique ({@link Values}). Every call has a deadline; a
 * failed write is recorded as indeterminate, never retried under the same value. Kubernetes'
 * transactions (create if absent, update or delete guarded on the mod revision) use the mod
 * revision the client last saw of the key. A lease call is three operations: a grant with the
 * client's own lease ID, a put of a key of its own with that lease, and a revocation (made even
 * when the put failed, so that nothing waits on the lease's expiry unless the revocation fails).
 *
 * <h2>Watchers</h2>
 *
 * {@code watchers} watch the whole prefix with previous values and progress notifications (each
 * asks for progress every second). Watcher 0 starts right after the base revision; the others start
 * at a revision in the recent past. A watcher whose stream breaks, is cancelled, or answers nothing
 * for {@link #WATCH_STALL} opens a new one on another endpoint from the revision after the last it
 * received (or the compaction revision etcd named); every {@link #WATCH_ROLL} a watcher other than
 * 0 closes and starts again as a new watcher from a recent revision.
 *
 * <h2>End</h2>
 *
 * {@link #stop()} stops the clients, makes a final linearizable read of the whole prefix (tried on
 * every endpoint until one answers), asks each watcher for progress until it has received
 * everything up to that read's revision (bounded), and returns the history. Everything is bounded
 * by {@code maxDuration} and {@code maxOps} even if nobody calls {@code stop}.
 */
public final class Workload implements AutoCloseable {
  static final Duration WATCH_STALL = Duration.ofSeconds(5);
  static final Duration WATCH_ROLL = Duration.ofSeconds(15);
  private static final Duration FINAL_READ_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration WATCH_CATCH_UP = Duration.ofSeconds(10);
  private static final Metadata.Key<String> HAS_LEADER =
      Metadata.Key.of("hasleader", Metadata.ASCII_STRING_MARSHALLER);

  /** What a client call can be. */
  public enum Kind {
    PUT,
    PUT_LARGE,
    GET,
    GET_SERIALIZABLE,
    RANGE,
    DELETE,
    CREATE_IF_ABSENT,
    GUARDED_UPDATE,
    GUARDED_DELETE,
    LEASE,
    COMPACT
  }

  /** The weights calls are drawn by. */
  public record Mix(Map<Kind, Integer> weights) {
    public static Mix defaults() {
      Map<Kind, Integer> w = new LinkedHashMap<>();
      w.put(Kind.PUT, 18);
      w.put(Kind.PUT_LARGE, 2);
      w.put(Kind.GET, 16);
      w.put(Kind.GET_SERIALIZABLE, 8);
      w.put(Kind.RANGE, 4);
      w.put(Kind.DELETE, 5);
      w.put(Kind.CREATE_IF_ABSENT, 8);
      w.put(Kind.GUARDED_UPDATE, 14);
      w.put(Kind.GUARDED_DELETE, 3);
      w.put(Kind.LEASE, 2);
      w.put(Kind.COMPACT, 0);
      return new Mix(w);
    }

    Kind draw(Random random) {
      int total = weights.values().stream().mapToInt(Integer::intValue).sum();
      int x = random.nextInt(total);
      for (Map.Entry<Kind, Integer> e : weights.entrySet()) {
        x -= e.getValue();
        if (x < 0) {
          return e.getKey();
        }
      }
      throw new IllegalStateException();
    }

    public String describe() {
      int total = weights.values().stream().mapToInt(Integer::intValue).sum();
      StringBuilder b = new StringBuilder();
      weights.forEach(
          (k, v) -> {
            if (v > 0) {
              b.append(b.isEmpty() ? "" : ", ")
                  .append(k.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                  .append(' ')
                  .append(Math.round(100.0 * v / total))
                  .append('%');
            }
          });
      return b.toString();
    }
  }

  /** How a workload runs; see the class comment. */
  public record Settings(
      List<String> endpoints,
      int clients,
      int watchers,
      double rate,
      int keys,
      Duration deadline,
      Duration maxDuration,
      long maxOps,
      long seed,
      Mix mix,
      Duration compactEvery,
      Optional<ClientTls> tls,
      RecordingWriter.Resolver resolver) {}

  private final Settings settings;
  private final String prefix;
  private final EtcdKv kv;
  private final long origin = System.nanoTime();
  private final Map<String, String> names = new ConcurrentHashMap<>();
  private final List<Op> ops = new ArrayList<>();
  private final List<Watch.Record> watchRecords = new ArrayList<>();
  private final List<History.Span> spans = new ArrayList<>();
  private final AtomicInteger nextOp = new AtomicInteger();
  private final AtomicInteger nextWatcher = new AtomicInteger();
  private final AtomicLong highestRevision = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private final List<Watcher> watchers = new ArrayList<>();
  private final Map<String, String> extraAbout = new ConcurrentHashMap<>();
  private volatile boolean stopping;

  /** While set, clients send nothing; {@link #parked} counts those waiting. */
  private volatile boolean paused;

  private final Object pause = new Object();
  private int parked;
  private long baseRevision;
  private long endNanos;
  private History history;

  /** Where client 0 starts among the endpoints ({@link Endpoints}). */
  private final int firstEndpoint;

  /**
   * A random source of the run's seed for one purpose and one client: the seed and both numbers go
   * through SplitMix64's finalizer first, because {@link Random}'s first draws of neighbouring
   * seeds are alike (all eight clients of seed 2800 drew the same endpoint).
   */
  private Random seeded(int purpose, int index) {
    long z = settings.seed() + 0x9E3779B97F4A7C15L * (1 + purpose * 1031L + index);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return new Random(z ^ (z >>> 31));
  }

  private Workload(Settings settings) {
    this.settings = settings;
    this.firstEndpoint = seeded(3, 0).nextInt(1 << 16);
    this.prefix = "/robustness/" + Long.toHexString(new Random(settings.seed()).nextLong()) + "/";
    this.kv =
        new EtcdKv(
            settings.deadline(),
            settings.tls(),
            uri -> {
              String name = names.get(uri.getHost() + ":" + uri.getPort());
              return name != null ? name : uri.getHost();
            });
  }

  public static Builder builder(List<String> endpoints) {
    return new Builder(endpoints);
  }

  public String prefix() {
    return prefix;
  }

  /** Operations recorded so far. */
  public int operations() {
    synchronized (ops) {
      return ops.size();
    }
  }

  /** Answered operations so far. */
  public long answered() {
    synchronized (ops) {
      return ops.stream().filter(op -> !op.failed()).count();
    }
  }

  /** A fact of the run for the history (e.g. {@code etcd versions}: what the checker must know). */
  public void about(String key, String value) {
    extraAbout.put(key, value);
  }

  /** The history's clock: nanoseconds since the workload was made. */
  public long now() {
    return System.nanoTime() - origin;
  }

  /** Starts recording a span (an action, a fault) on the history's clock; close it at its end. */
  public SpanHandle span(String label) {
    return new SpanHandle(label, now());
  }

  /** An open span. */
  public final class SpanHandle implements AutoCloseable {
    private final String label;
    private final long start;
    private boolean closed;

    private SpanHandle(String label, long start) {
      this.label = label;
      this.start = start;
    }

    @Override
    public void close() {
      synchronized (spans) {
        if (!closed) {
          closed = true;
          spans.add(new History.Span(label, start, now()));
        }
      }
    }
  }

  private Workload start() {
    baseRevision = initialRead();
    highestRevision.set(baseRevision);
    endNanos = now() + settings.maxDuration().toNanos();
    for (int c = 0; c < settings.clients(); c++) {
      Client client = new Client(c);
      Thread t = new Thread(client::run, "workload-client-" + c);
      t.setDaemon(true);
      threads.add(t);
    }
    for (int w = 0; w < settings.watchers(); w++) {
      Watcher watcher = new Watcher(w == 0 ? baseRevision + 1 : -1, w != 0);
      watchers.add(watcher);
      Thread t = new Thread(watcher::run, "workload-watcher-" + w);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
    return this;
  }

  /**
   * Stops the clients from sending anything (the watchers go on) until {@link #resume}, and returns
   * once none has a call in flight (or after a deadline and a second, when one never ends): from
   * then on, nothing of the workload's reaches the cluster.
   */
  public void pause() {
    paused = true;
    long until = now() + settings.deadline().plusSeconds(1).toNanos();
    synchronized (pause) {
      while (parked < running() && now() < until) {
        try {
          pause.wait(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** The clients send again. */
  public void resume() {
    synchronized (pause) {
      paused = false;
      pause.notifyAll();
    }
  }

  private int running() {
    return (int)
        threads.stream()
            .filter(t -> t.getName().startsWith("workload-client") && t.isAlive())
            .count();
  }

  /** Waits while paused; false when the workload stops meanwhile. */
  private boolean parkWhilePaused() {
    synchronized (pause) {
      parked++;
      pause.notifyAll();
      try {
        while (paused && !stopping) {
          pause.wait(100);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } finally {
        parked--;
      }
    }
    return !stopping;
  }

  /** The base revision: a linearizable read of the prefix, which must be empty. */
  private long initialRead() {
    long until = now() + FINAL_READ_TIMEOUT.toNanos();
    Endpoints endpoints = new Endpoints(seeded(0, 0), 0);
    RuntimeException last = null;
    while (now() < until) {
      String ep = endpoints.current();
      if (ep != null) {
        try {
          RangeResponse r =
              kv.unary(
                  ep,
                  KVGrpc.getRangeMethod(),
                  rangeRequest(new Request.Range(prefix, prefixEnd(), false)),
                  true);
          if (r.getKvsCount() != 0) {
            throw new IllegalStateException("the workload's prefix " + prefix + " is not empty");
          }
          return r.getHeader().getRevision();
        } catch (EtcdKv.CallFailed e) {
          last = e;
        }
      }
      endpoints.failed();
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
    throw new IllegalStateException(
        "no endpoint answered a linearizable read in " + FINAL_READ_TIMEOUT, last);
  }

  private String prefixEnd() {
    return prefix.substring(0, prefix.length() - 1)
        + (char) (prefix.charAt(prefix.length() - 1) + 1);
  }

  /**
   * Stops the clients, reads the final state, lets the watchers catch up, and returns the history
   * (the same one on later calls).
   */
  public synchronized History stop() {
    if (history != null) {
      return history;
    }
    stopping = true;
    for (Thread t : threads) {
      if (t.getName().startsWith("workload-client")) {
        join(t);
      }
    }
    long finalRevision = finalRead();
    long until = now() + WATCH_CATCH_UP.toNanos();
    for (Watcher w : watchers) {
      w.catchUp(finalRevision, until);
    }
    watchers.forEach(Watcher::finish);
    for (Thread t : threads) {
      join(t);
    }
    List<Op> sorted;
    synchronized (ops) {
      sorted = new ArrayList<>(ops);
    }
    sorted.sort(Comparator.comparingLong(Op::start).thenComparingInt(Op::id));
    List<Watch.Record> records;
    synchronized (watchRecords) {
      records = new ArrayList<>(watchRecords);
    }
    List<History.Span> spanList;
    synchronized (spans) {
      spanList = new ArrayList<>(spans);
    }
    Map<String, String> about = new LinkedHashMap<>();
    about.put("clients", String.valueOf(settings.clients()));
    about.put("watchers", String.valueOf(settings.watchers()));
    about.put("rate", settings.rate() + "/s per client");
    about.put("keys", String.valueOf(settings.keys()));
    about.put("mix", settings.mix().describe());
    about.put("seed", String.valueOf(settings.seed()));
    about.put("endpoints", String.join(",", settings.endpoints()));
    about.putAll(extraAbout);
    history = new History(prefix, baseRevision, sorted, records, spanList, about);
    kv.close();
    return history;
  }

  @Override
  public void close() {
    stop();
  }

  private static void join(Thread t) {
    try {
      t.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A linearizable read of every key of the run, on any endpoint that answers; its revision. */
  private long finalRead() {
    Endpoints endpoints = new Endpoints(seeded(0, 1), 1);
    long until = now() + FINAL_READ_TIMEOUT.toNanos();
    int client = settings.clients();
    while (now() < until) {
      String ep = endpoints.current();
      if (ep != null) {
        Op op = call(client, ep, new Request.Range(prefix, prefixEnd(), false));
        if (!op.failed()) {
          return op.revision();
        }
      }
      endpoints.failed();
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
    return highestRevision.get();
  }

  // -----------------------------------------------------------------------------------------------
  // Endpoints

  /**
   * One client's choice of endpoint: kept while it answers, another at random after a failure. The
   * first choice spreads the clients over the endpoints as a Service spreads connections: client
   * {@code slot} starts on endpoint {@code slot} (modulo their number), counted from where the
   * run's seed says, so that every endpoint has clients from the start.
   */
  private final class Endpoints {
    private final Random random;
    private final int slot;
    private List<String> resolved = List.of();
    private String current;

    Endpoints(Random random, int slot) {
      this.random = random;
      this.slot = slot;
    }

    String current() {
      if (current == null) {
        resolved =
            RecordingWriter.Endpoints.expand(settings.endpoints(), settings.resolver(), names);
        current =
            resolved.isEmpty()
                ? null
                : resolved.get(Math.floorMod(slot + firstEndpoint, resolved.size()));
      }
      return current;
    }

    void failed() {
      String was = current;
      resolved = RecordingWriter.Endpoints.expand(settings.endpoints(), settings.resolver(), names);
      List<String> others = resolved.stream().filter(e -> !e.equals(was)).toList();
      current =
          others.isEmpty()
              ? (resolved.isEmpty() ? null : resolved.get(0))
              : others.get(random.nextInt(others.size()));
    }
  }

  // -----------------------------------------------------------------------------------------------
  // Clients

  private final class Client {
    private final int id;
    private final Random random;
    private final Endpoints endpoints;
    private final Map<String, Long> lastMod = new HashMap<>();
    private int seq;
    private int leases;

    Client(int id) {
      this.id = id;
      this.random = seeded(1, id);
      this.endpoints = new Endpoints(random, id);
    }

    void run() {
      long period = (long) (1e9 / settings.rate());
      long next = now();
      long lastCompact = now();
      while (!stopping && now() < endNanos && nextOp.get() < settings.maxOps()) {
        if (paused && !parkWhilePaused()) {
          return;
        }
        long wait = next - now();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        next = Math.max(next + period, now() - period);
        Kind kind = settings.mix().draw(random);
        if (id == 0
            && !settings.compactEvery().isZero()
            && now() - lastCompact > settings.compactEvery().toNanos()) {
          kind = Kind.COMPACT;
          lastCompact = now();
        }
        step(kind);
      }
    }

    private String key() {
      return prefix + String.format(Locale.ROOT, "k%02d", random.nextInt(settings.keys()));
    }

    private String value(int size) {
      return Values.compact("c" + id + "." + (seq++), size);
    }

    private void step(Kind kind) {
      String key = key();
      switch (kind) {
        case PUT -> record(new Request.Put(key, value(0), 0, random.nextInt(4) == 0));
        case PUT_LARGE -> record(new Request.Put(key, value(32 * 1024), 0, false));
        case GET -> record(new Request.Range(key, null, false));
        case GET_SERIALIZABLE -> record(new Request.Range(key, null, true));
        case RANGE -> record(new Request.Range(prefix + "k", prefix + "l", false));
        case DELETE -> record(new Request.Delete(key, random.nextBoolean()));
        case CREATE_IF_ABSENT -> record(guarded(key, 0, new Request.Put(key, value(0), 0, false)));
        case GUARDED_UPDATE ->
            record(
                guarded(
                    key, lastMod.getOrDefault(key, 0L), new Request.Put(key, value(0), 0, false)));
        case GUARDED_DELETE ->
            record(guarded(key, lastMod.getOrDefault(key, 0L), new Request.Delete(key, false)));
        case LEASE -> lease();
        case COMPACT -> {
          long target = highestRevision.get() - 100;
          if (target > baseRevision) {
            record(new Request.Compact(target));
          }
        }
      }
    }

    private Request guarded(String key, long modRevision, Request onSuccess) {
      return new Request.Txn(
          List.of(new Request.Compare(key, modRevision)),
          List.of(onSuccess),
          List.of(new Request.Range(key, null, false)));
    }

    private void lease() {
      long lease = ((settings.seed() & 0xffffL) << 40) | ((long) id << 28) | (++leases);
      record(new Request.Grant(lease, 30));
      String key = prefix + "lease/c" + id + "." + leases;
      record(new Request.Put(key, value(0), lease, false));
      record(new Request.Revoke(lease));
    }

    private void record(Request request) {
      String ep = endpoints.current();
      if (ep == null) {
        endpoints.failed();
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        return;
      }
      Op op = call(id, ep, request);
      if (op.failed()) {
        endpoints.failed();
      } else {
        learn(op);
      }
    }

    private void learn(Op op) {
      for (Kv kv : Linearizer.kvs(op.result())) {
        lastMod.put(kv.key(), kv.modRevision());
      }
      if (op.request() instanceof Request.Put p) {
        lastMod.put(p.key(), op.revision());
      } else if (op.request() instanceof Request.Range r
          && r.end() == null
          && ((Result.Range) op.result()).kvs().isEmpty()) {
        lastMod.put(r.key(), 0L);
      } else if (op.request() instanceof Request.Txn t && ((Result.Txn) op.result()).succeeded()) {
        Request q = t.onSuccess().get(0);
        if (q instanceof Request.Put p) {
          lastMod.put(p.key(), op.revision());
        } else if (q instanceof Request.Delete d) {
          lastMod.put(d.key(), 0L);
        }
      } else if (op.request() instanceof Request.Delete d) {
        lastMod.put(d.key(), 0L);
      }
    }
  }

  /**
   * As one more client, puts {@code size}-byte values on a key of its own, one after the other,
   * until etcd refuses one with {@code refusal} in its error, or {@code max} were made (for filling
   * the space quota: every put is in the history). Returns how many it made.
   */
  public int burst(int max, int size, String refusal) {
    Endpoints endpoints = new Endpoints(seeded(0, 2), 2);
    int client = settings.clients() + 1;
    String key = prefix + "burst";
    for (int i = 0; i < max; i++) {
      String ep = endpoints.current();
      if (ep == null) {
        endpoints.failed();
        continue;
      }
      Op op = call(client, ep, new Request.Put(key, Values.compact("b." + i, size), 0, false));
      if (op.failed()) {
        if (op.error() != null && op.error().contains(refusal)) {
          return i + 1;
        }
        endpoints.failed();
      }
    }
    return max;
  }

  /** Whether a write sent after {@code since} (the history's clock) was answered. */
  public boolean answeredWriteSince(long since) {
    synchronized (ops) {
      for (int i = ops.size() - 1; i >= 0; i--) {
        Op op = ops.get(i);
        if (op.start() > since && !op.failed() && op.request().canWrite()) {
          return true;
        }
      }
    }
    return false;
  }

  /** Makes one call and records it. */
  private Op call(int client, String endpoint, Request request) {
    int id = nextOp.getAndIncrement();
    long start = now();
    Result result = null;
    long revision = 0;
    long member = 0;
    String error = null;
    try {
      ResponseHeader header;
      if (request instanceof Request.Range r) {
        RangeResponse response =
            kv.unary(endpoint, KVGrpc.getRangeMethod(), rangeRequest(r), !r.serializable());
        header = response.getHeader();
        result = new Result.Range(response.getKvsList().stream().map(Workload::kv).toList());
      } else if (request instanceof Request.Put p) {
        PutResponse response = kv.unary(endpoint, KVGrpc.getPutMethod(), putRequest(p), true);
        header = response.getHeader();
        result = new Result.Put(response.hasPrevKv() ? kv(response.getPrevKv()) : null);
      } else if (request instanceof Request.Delete d) {
        DeleteRangeResponse response =
            kv.unary(endpoint, KVGrpc.getDeleteRangeMethod(), deleteRequest(d), true);
        header = response.getHeader();
        result = deleteResult(response);
      } else if (request instanceof Request.Txn t) {
        TxnResponse response = kv.unary(endpoint, KVGrpc.getTxnMethod(), txnRequest(t), true);
        header = response.getHeader();
        List<Result> results = new ArrayList<>();
        for (ResponseOp op : response.getResponsesList()) {
          results.add(
              switch (op.getResponseCase()) {
                case RESPONSE_RANGE ->
                    new Result.Range(
                        op.getResponseRange().getKvsList().stream().map(Workload::kv).toList());
                case RESPONSE_PUT ->
                    new Result.Put(
                        op.getResponsePut().hasPrevKv()
                            ? kv(op.getResponsePut().getPrevKv())
                            : null);
                case RESPONSE_DELETE_RANGE -> deleteResult(op.getResponseDeleteRange());
                default -> throw new IllegalStateException("unexpected " + op.getResponseCase());
              });
        }
        result = new Result.Txn(response.getSucceeded(), results);
      } else if (request instanceof Request.Revoke v) {
        header =
            kv.unary(
                    endpoint,
                    LeaseGrpc.getLeaseRevokeMethod(),
                    LeaseRevokeRequest.newBuilder().setID(v.lease()).build(),
                    true)
                .getHeader();
        result = new Result.Done();
      } else if (request instanceof Request.Grant g) {
        header =
            kv.unary(
                    endpoint,
                    LeaseGrpc.getLeaseGrantMethod(),
                    LeaseGrantRequest.newBuilder().setID(g.lease()).setTTL(g.ttlSeconds()).build(),
                    true)
                .getHeader();
        result = new Result.Done();
      } else if (request instanceof Request.Compact c) {
        header =
            kv.unary(
                    endpoint,
                    KVGrpc.getCompactMethod(),
                    CompactionRequest.newBuilder().setRevision(c.revision()).build(),
                    true)
                .getHeader();
        result = new Result.Done();
      } else {
        throw new IllegalArgumentException(String.valueOf(request));
      }
      revision = header.getRevision();
      member = header.getMemberId();
      highestRevision.accumulateAndGet(revision, Math::max);
    } catch (EtcdKv.CallFailed e) {
      error = e.code() + (e.getMessage() == null ? "" : ": " + e.getMessage());
      result = null;
    } catch (IllegalStateException e) {
      if (e.getMessage() != null && e.getMessage().contains("closed")) {
        error = "closed";
        result = null;
      } else {
        throw e;
      }
    }
    Op op = new Op(id, client, start, now(), request, result, revision, member, error);
    synchronized (ops) {
      ops.add(op);
    }
    return op;
  }

  static Kv kv(KeyValue kv) {
    return new Kv(
        kv.getKey().toStringUtf8(),
        Values.compact(kv.getValue()),
        kv.getCreateRevision(),
        kv.getModRevision(),
        kv.getVersion(),
        kv.getLease());
  }

  private static Result.Delete deleteResult(DeleteRangeResponse response) {
    return new Result.Delete(
        response.getDeleted(), response.getPrevKvsList().stream().map(Workload::kv).toList());
  }

  private static ByteString bytes(String s) {
    return ByteString.copyFromUtf8(s);
  }

  /** The bytes of a value the workload wrote, from its compact form. */
  private static ByteString valueBytes(String compact) {
    int tilde = compact.indexOf('~');
    return tilde < 0
        ? bytes(compact)
        : Values.make(compact.substring(0, tilde), Integer.parseInt(compact.substring(tilde + 1)));
  }

  private static RangeRequest rangeRequest(Request.Range r) {
    RangeRequest.Builder b =
        RangeRequest.newBuilder().setKey(bytes(r.key())).setSerializable(r.serializable());
    if (r.end() != null) {
      b.setRangeEnd(bytes(r.end()));
    }
    return b.build();
  }

  private static PutRequest putRequest(Request.Put p) {
    return PutRequest.newBuilder()
        .setKey(bytes(p.key()))
        .setValue(valueBytes(p.value()))
        .setLease(p.lease())
        .setPrevKv(p.prevKv())
        .build();
  }

  private static DeleteRangeRequest deleteRequest(Request.Delete d) {
    return DeleteRangeRequest.newBuilder().setKey(bytes(d.key())).setPrevKv(d.prevKv()).build();
  }

  private static RequestOp requestOp(Request r) {
    if (r instanceof Request.Range range) {
      return RequestOp.newBuilder().setRequestRange(rangeRequest(range)).build();
    }
    if (r instanceof Request.Put p) {
      return RequestOp.newBuilder().setRequestPut(putRequest(p)).build();
    }
    return RequestOp.newBuilder().setRequestDeleteRange(deleteRequest((Request.Delete) r)).build();
  }

  private static TxnRequest txnRequest(Request.Txn t) {
    TxnRequest.Builder b = TxnRequest.newBuilder();
    for (Request.Compare c : t.compares()) {
      b.addCompare(
          Compare.newBuilder()
              .setKey(bytes(c.key()))
              .setTarget(Compare.CompareTarget.MOD)
              .setResult(Compare.CompareResult.EQUAL)
              .setModRevision(c.modRevision()));
    }
    t.onSuccess().forEach(r -> b.addSuccess(requestOp(r)));
    t.onFailure().forEach(r -> b.addFailure(requestOp(r)));
    return b.build();
  }

  // -----------------------------------------------------------------------------------------------
  // Watchers

  /**
   * One watcher thread: a sequence of logical watchers (it rolls over to a new one now and then).
   */
  private final class Watcher {
    private final boolean rolls;
    private final Random random;
    private final Endpoints endpoints;
    private int watcher;
    private int stream = -1;
    private long lastDelivered;
    private long lastEvent;
    private long nextStart;
    private long openedAt;
    private volatile long lastAnswer;
    private ClientCall<WatchRequest, WatchResponse> call;
    private volatile boolean finished;

    Watcher(long start, boolean rolls) {
      this.rolls = rolls;
      int index = nextWatcher.get();
      this.random = seeded(2, index);
      this.endpoints = new Endpoints(random, index + 1);
      this.watcher = nextWatcher.getAndIncrement();
      this.nextStart = start;
    }

    void run() {
      while (!finished) {
        synchronized (this) {
          long now = now();
          if (call == null) {
            open();
          } else if (now - lastAnswer > WATCH_STALL.toNanos()) {
            record(
                Watch.Kind.BROKEN,
                0,
                0,
                0,
                List.of(),
                0,
                "no answer for " + WATCH_STALL.toSeconds() + " s");
            cancel();
            endpoints.failed();
          } else if (rolls && !stopping && now - openedAt > WATCH_ROLL.toNanos()) {
            record(Watch.Kind.CLOSED, 0, 0, 0, List.of(), 0, null);
            cancel();
            watcher = nextWatcher.getAndIncrement();
            stream = -1;
            lastDelivered = 0;
            lastEvent = 0;
            nextStart = -1;
          } else {
            call.sendMessage(
                WatchRequest.newBuilder()
                    .setProgressRequest(WatchProgressRequest.getDefaultInstance())
                    .build());
          }
        }
        LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
      }
    }

    private void open() {
      String ep = endpoints.current();
      if (ep == null) {
        endpoints.failed();
        return;
      }
      if (nextStart < 0) {
        // a new watcher: from a revision in the recent past
        nextStart = Math.max(baseRevision + 1, highestRevision.get() - random.nextInt(20));
      }
      // from the last event, not the last progress notification: etcd before 3.4.25 and 3.5.8 can
      // notify progress before the events it covers (etcd-io/etcd#15220)
      long start = lastEvent > 0 ? Math.max(lastEvent + 1, nextStart) : nextStart;
      boolean prevKv = watcher % 2 == 0;
      stream++;
      openedAt = now();
      lastAnswer = openedAt;
      record(Watch.Kind.REQUESTED, 0, start, 0, List.of(), 0, null, prevKv);
      int myStream = stream;
      ClientCall<WatchRequest, WatchResponse> c;
      try {
        c = kv.channelTo(ep).newCall(WatchGrpc.getWatchMethod(), CallOptions.DEFAULT);
      } catch (IllegalStateException e) {
        record(Watch.Kind.BROKEN, 0, 0, 0, List.of(), 0, "channel: " + e.getMessage());
        return;
      }
      Metadata headers = new Metadata();
      headers.put(HAS_LEADER, "true");
      c.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(WatchResponse response) {
              received(myStream, response);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              closed(myStream, status);
            }
          },
          headers);
      c.request(Integer.MAX_VALUE);
      c.sendMessage(
          WatchRequest.newBuilder()
              .setCreateRequest(
                  WatchCreateRequest.newBuilder()
                      .setKey(bytes(prefix))
                      .setRangeEnd(bytes(prefixEnd()))
                      .setStartRevision(start)
                      .setProgressNotify(true)
                      .setPrevKv(prevKv))
              .build());
      call = c;
    }

    private synchronized void received(int forStream, WatchResponse response) {
      if (forStream != stream || call == null) {
        return;
      }
      lastAnswer = now();
      long rev = response.getHeader().getRevision();
      long member = response.getHeader().getMemberId();
      if (response.getCreated()) {
        record(Watch.Kind.CREATED, rev, 0, 0, List.of(), member, null);
      }
      if (response.getEventsCount() > 0) {
        List<Watch.Event> events = new ArrayList<>();
        for (io.etcd.jetcd.api.Event e : response.getEventsList()) {
          boolean put = e.getType() == io.etcd.jetcd.api.Event.EventType.PUT;
          events.add(new Watch.Event(put, kv(e.getKv()), e.hasPrevKv() ? kv(e.getPrevKv()) : null));
          lastDelivered = Math.max(lastDelivered, e.getKv().getModRevision());
          lastEvent = Math.max(lastEvent, e.getKv().getModRevision());
        }
        record(Watch.Kind.EVENTS, rev, 0, 0, events, member, null);
      } else if (!response.getCreated() && !response.getCanceled()) {
        record(Watch.Kind.PROGRESS, rev, 0, 0, List.of(), member, null);
        lastDelivered = Math.max(lastDelivered, rev);
      }
      if (response.getCanceled()) {
        record(
            Watch.Kind.CANCELED,
            rev,
            0,
            response.getCompactRevision(),
            List.of(),
            member,
            response.getCancelReason());
        if (response.getCompactRevision() > 0) {
          nextStart = response.getCompactRevision();
          lastDelivered = Math.max(lastDelivered, response.getCompactRevision() - 1);
        }
        cancel();
        endpoints.failed();
      }
    }

    private synchronized void closed(int forStream, Status status) {
      if (forStream != stream || call == null) {
        return;
      }
      record(
          Watch.Kind.BROKEN,
          0,
          0,
          0,
          List.of(),
          0,
          status.getCode() + " " + status.getDescription());
      call = null;
      endpoints.failed();
    }

    private void cancel() {
      ClientCall<WatchRequest, WatchResponse> c = call;
      call = null;
      if (c != null) {
        c.cancel("the workload moves on", null);
      }
    }

    /** Asks for progress until everything up to {@code revision} was received, or {@code until}. */
    void catchUp(long revision, long until) {
      while (now() < until) {
        synchronized (this) {
          if (lastDelivered >= revision) {
            return;
          }
        }
        LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
      }
    }

    synchronized void finish() {
      finished = true;
      if (call != null) {
        record(Watch.Kind.CLOSED, 0, 0, 0, List.of(), 0, null);
        cancel();
      }
    }

    private void record(
        Watch.Kind kind,
        long revision,
        long start,
        long compact,
        List<Watch.Event> events,
        long member,
        String error) {
      record(kind, revision, start, compact, events, member, error, false);
    }

    private void record(
        Watch.Kind kind,
        long revision,
        long start,
        long compact,
        List<Watch.Event> events,
        long member,
        String error,
        boolean prevKv) {
      Watch.Record r =
          new Watch.Record(
              watcher, stream, now(), kind, revision, start, prevKv, compact, events, member,
              error);
      synchronized (watchRecords) {
        watchRecords.add(r);
      }
    }
  }

  /** A workload's settings; {@link #start()} starts it. */
  public static final class Builder {
    private final List<String> endpoints;
    private int clients = 8;
    private int watchers = 2;
    private double rate = 40;
    private int keys = 16;
    private Duration deadline = Duration.ofSeconds(1);
    private Duration maxDuration = Duration.ofSeconds(60);
    private long maxOps = 200_000;
    private long seed = new Random().nextLong();
    private Mix mix = Mix.defaults();
    private Duration compactEvery = Duration.ofSeconds(10);
    private Optional<ClientTls> tls = Optional.empty();
    private RecordingWriter.Resolver resolver = host -> List.of(InetAddress.getAllByName(host));

    private Builder(List<String> endpoints) {
      this.endpoints = List.copyOf(endpoints);
      for (String e : endpoints) {
        URI.create(e);
      }
    }

    public Builder clients(int n) {
      this.clients = n;
      return this;
    }

    public Builder watchers(int n) {
      this.watchers = n;
      return this;
    }

    /** Calls a second per client. */
    public Builder rate(double perClient) {
      this.rate = perClient;
      return this;
    }

    public Builder keys(int n) {
      this.keys = n;
      return this;
    }

    public Builder deadline(Duration d) {
      this.deadline = d;
      return this;
    }

    public Builder maxDuration(Duration d) {
      this.maxDuration = d;
      return this;
    }

    public Builder maxOps(long n) {
      this.maxOps = n;
      return this;
    }

    public Builder seed(long s) {
      this.seed = s;
      return this;
    }

    public Builder mix(Mix m) {
      this.mix = m;
      return this;
    }

    /** How often client 0 compacts to 100 revisions back (zero: never). */
    public Builder compactEvery(Duration d) {
      this.compactEvery = d;
      return this;
    }

    public Builder tls(ClientTls t) {
      this.tls = Optional.of(t);
      return this;
    }

    public Builder resolver(RecordingWriter.Resolver r) {
      this.resolver = r;
      return this;
    }

    public Workload start() {
      return new Workload(
              new Settings(
                  endpoints,
                  clients,
                  watchers,
                  rate,
                  keys,
                  deadline,
                  maxDuration,
                  maxOps,
                  seed,
                  mix,
                  compactEvery,
                  tls,
                  resolver))
          .start();
    }
  }

  /** For callers that want to poll a condition on the workload. */
  public Supplier<Long> answeredCounter() {
    return this::answered;
  }
}
