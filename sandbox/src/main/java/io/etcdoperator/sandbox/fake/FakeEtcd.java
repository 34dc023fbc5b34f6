package io.etcdoperator.sandbox.fake;

import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.MemberListResponse;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.StatusResponse;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import io.vertx.grpcio.server.GrpcIoServer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A load generator for benchmarks only: many fake etcd members (thousands) in this JVM, each
 * answering the part of etcd's gRPC and HTTP API that the operator's probes use, so that the
 * operator can be measured against more clusters than real etcd processes fit on one machine.
 *
 * <p><b>Never use it in place of etcd in a correctness test.</b> It keeps no data, runs no raft,
 * serves no membership change (MemberAdd, MoveLeader and every other call not named below answer
 * UNIMPLEMENTED), and its answers are computed from a few rules below; a behaviour seen only
 * against it says nothing about etcd.
 *
 * <p>It serves Maintenance/Status, Maintenance/Alarm (no alarms), Cluster/MemberList, KV/Range (an
 * empty answer), Watch (created and progress answers only), Auth/AuthStatus (auth off) over gRPC,
 * and {@code /version}, {@code /health}, {@code /livez}, {@code /readyz} and {@code /metrics} over
 * HTTP.
 *
 * <h2>Members</h2>
 *
 * {@link #start} takes the command line and environment of an etcd container and reads from them
 * what etcd would ({@link EtcdArgs}): its name, the initial cluster and its token, its advertised
 * client URLs, and the addresses to listen on. A member listens on every address of its client,
 * peer and metrics listen URLs (the peer port serves only {@code /version}, which the kubelet's
 * liveness probe asks there). Its IDs are those etcd computes when it bootstraps a new cluster
 * ({@link EtcdIds}), so every member of one initial cluster agrees on them and a restarted member
 * (a new {@code start} with the same flags) has the same IDs.
 *
 * <h2>Clusters, quorum, leader</h2>
 *
 * Members with the same cluster ID share one {@link Cluster}; its voters are the members of the
 * initial cluster. A member is up while started, not stopped and not frozen. The cluster has quorum
 * while more than half its voters are up; its leader is then the up voter with the smallest ID, and
 * otherwise there is none (0). The raft term starts at {@value #FIRST_TERM} and grows by one each
 * time a member, answering a request, sees another leader than the one seen before; the raft index
 * (applied and committed) is {@value #INDEX_BASE} plus the term, the same on every member, so all
 * look caught up.
 *
 * <p>As etcd does, a member serves its client URLs only once its cluster has had a leader while it
 * was up (a member restarted into a cluster without quorum accepts connections and answers nothing
 * there, while its metrics answer). Without quorum a member that serves still answers Status
 * (leader 0), the member list (etcd serves it from local state, jetcd's request has no {@code
 * linearizable} flag) and alarms; a read fails at once with UNAVAILABLE "etcdserver: no leader"
 * (etcd would wait until the caller's deadline); {@code /health} is 503.
 *
 * <h2>Stopped and frozen</h2>
 *
 * {@link Member#stop} closes the member's listeners and every open connection, as the death of the
 * process would: clients see their connection drop and the next connect refused. While the frozen
 * supplier of a member returns true, connections are accepted and requests read but none answered,
 * like a SIGSTOPped process whose kernel still accepts connections; a request that arrived while
 * frozen is never answered (its client's deadline ends it).
 *
 * <h2>Threads and memory</h2>
 *
 * One Vert.x instance with two event-loop threads (daemon) serves every member; each listen address
 * is one HTTP server (HTTP/1.1, h2c upgrade and HTTP/2 with prior knowledge) whose gRPC requests go
 * to one {@link GrpcIoServer} shared by all members (the member is found by the local address of
 * the connection). A member costs three listening sockets (client, peer, metrics) and about 18 KB
 * of heap (measured with 1,500 members); a cluster a few arrays. {@link #start} and {@link
 * Member#stop} may be called from any thread but a Vert.x one.
 */
public final class FakeEtcd implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FakeEtcd.class);

  private final AtomicLong watchStreams = new AtomicLong();

  static final String SERVER_VERSION = "3.5.30";
  static final String CLUSTER_VERSION = "3.5.0";
  private static final long DB_SIZE = 20_480;
  private static final long DB_SIZE_IN_USE = 16_384;
  static final long REVISION = 1;
  private static final long FIRST_TERM = 2;
  private static final long INDEX_BASE = 10;

  // StatusResponse fields that etcd 3.4 added after those jetcd 0.8.5 compiled in; the operator
  // reads them from the message's unknown fields (its EtcdMessages).
  private static final int STATUS_RAFT_APPLIED_INDEX = 7;
  private static final int STATUS_DB_SIZE_IN_USE = 9;

  /** The gRPC services etcd 3.5 registers: a method of one of these is an "unknown method". */
  private static final Set<String> ETCD_SERVICES =
      Set.of(
          "etcdserverpb.KV",
          "etcdserverpb.Watch",
          "etcdserverpb.Lease",
          "etcdserverpb.Cluster",
          "etcdserverpb.Maintenance",
          "etcdserverpb.Auth",
          "v3electionpb.Election",
          "v3lockpb.Lock",
          "grpc.health.v1.Health");

  private static final String VERSION_JSON =
      "{\"etcdserver\":\"" + SERVER_VERSION + "\",\"etcdcluster\":\"" + CLUSTER_VERSION + "\"}";
  private static final String HEALTHY = "{\"health\":\"true\",\"reason\":\"\"}";
  private static final String NO_LEADER_HEALTH =
      "{\"health\":\"false\",\"reason\":\"RAFT NO LEADER\"}";
  private static final String JSON = "application/json";
  private static final String TEXT = "text/plain; charset=utf-8";
  private static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static final Refused NO_LEADER =
      new Refused(GrpcStatus.UNAVAILABLE, "etcdserver: no leader");

  private enum Role {
    CLIENT,
    PEER,
    METRICS
  }

  /** An address to listen on, from one of the listen URLs. */
  private record Listener(Role role, String url, String ip, int port) {
    String key() {
      return addressKey(ip, port);
    }
  }

  private final Vertx vertx;
  private final GrpcIoServer grpc;
  private final HttpServerOptions serverOptions = new HttpServerOptions();

  /** The clusters of which a member runs, by ID. Guarded by this. */
  private final Map<Long, Cluster> clusters = new HashMap<>();

  /** The member listening on each address ({@link #addressKey}), for the gRPC handlers. */
  private final ConcurrentMap<String, Member> addresses = new ConcurrentHashMap<>();

  private final Set<Member> running = ConcurrentHashMap.newKeySet();
  private boolean closed; // guarded by this

  /** Starts the Vert.x instance every member is served on; no member runs yet. */
  public FakeEtcd() {
    vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(2)
                .setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1)
                .setUseDaemonThread(true)
                // nothing is served from files: no cache directory to create and leave behind
                .setFileSystemOptions(
                    new FileSystemOptions()
                        .setFileCachingEnabled(false)
                        .setClassPathResolvingEnabled(false)));
    grpc = GrpcIoServer.server(vertx);
    grpc.callHandler(MaintenanceGrpc.getStatusMethod(), c -> unary(c, (m, q) -> status(m)));
    grpc.callHandler(ClusterGrpc.getMemberListMethod(), c -> unary(c, (m, q) -> memberList(m)));
    grpc.callHandler(MaintenanceGrpc.getAlarmMethod(), c -> unary(c, (m, q) -> alarms(m)));
    grpc.callHandler(KVGrpc.getRangeMethod(), c -> unary(c, (m, q) -> range(m)));
    grpc.callHandler(WatchGrpc.getWatchMethod(), this::watch);
    grpc.callHandler(this::otherCall);
  }

  /**
   * Starts a member as a container running etcd with this command line ({@code argv.get(0)} is the
   * etcd binary path, ignored) and environment would. It listens on the hosts:ports of its {@code
   * --listen-client-urls}, {@code --listen-peer-urls} and {@code --listen-metrics-urls} (flags may
   * be given as {@code --flag=value} or {@code --flag value}, or as {@code ETCD_*} environment
   * variables; flags win). While {@code frozen.getAsBoolean()} is true it accepts connections and
   * requests but answers none of them (like a SIGSTOPped process: clients time out).
   *
   * @throws IOException when etcd would not start: its configuration is invalid, a listen URL is
   *     https or not http at all, or an address is taken
   */
  public Member start(List<String> argv, Map<String, String> env, BooleanSupplier frozen)
      throws IOException {
    if (Context.isOnVertxThread()) {
      // start waits for its listeners, which a thread of the same Vert.x would have to bind
      throw new IllegalStateException("FakeEtcd.start must not be called on a Vert.x thread");
    }
    EtcdArgs args = EtcdArgs.parse(argv, env == null ? Map.of() : env);
    List<Listener> listeners = listeners(args);
    List<String> names = List.copyOf(args.initialCluster().keySet());
    long[] ids = new long[names.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = EtcdIds.memberId(args.initialCluster().get(names.get(i)), args.token());
    }
    long clusterId = EtcdIds.clusterId(ids);
    long id = ids[names.indexOf(args.name())];
    Member member;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("FakeEtcd is closed");
      }
      Cluster cluster =
          clusters.computeIfAbsent(
              clusterId, k -> new Cluster(k, names, ids, args.initialCluster()));
      member =
          new Member(
              id,
              args.name(),
              cluster,
              // by ID: another member may list the same initial cluster in another order
              cluster.slotOf(id),
              frozen == null ? () -> false : frozen,
              args.advertiseClientUrls(),
              listeners.stream().map(Listener::key).toList());
      cluster.refs++;
    }
    try {
      reserve(member, listeners);
      member.listen(listeners);
      synchronized (this) {
        if (closed) {
          throw new IllegalStateException("FakeEtcd is closed");
        }
        member.cluster.attach(member);
        running.add(member);
      }
    } catch (IOException | RuntimeException e) {
      member.stop();
      throw e;
    }
    LOG.debug(
        "member {} ({}) of cluster {} listens on {}",
        member.name,
        Long.toHexString(member.id),
        Long.toHexString(clusterId),
        listeners.stream().map(Listener::url).toList());
    return member;
  }

  /** How many watch streams were opened so far, on every member. */
  public long watchStreams() {
    return watchStreams.get();
  }

  /** How many members run now: started and not stopped. */
  public int members() {
    return running.size();
  }

  /** Stops every member, then Vert.x. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    List.copyOf(running).forEach(Member::stop);
    await(vertx.close());
  }

  /** The listen addresses of a member, each validated as etcd would (and plain http only). */
  private static List<Listener> listeners(EtcdArgs args) throws IOException {
    List<Listener> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    addListeners(out, seen, Role.CLIENT, args.listenClientUrls());
    addListeners(out, seen, Role.PEER, args.listenPeerUrls());
    addListeners(out, seen, Role.METRICS, args.listenMetricsUrls());
    return out;
  }

  private static void addListeners(
      List<Listener> out, Set<String> seen, Role role, List<String> urls) throws IOException {
    for (String url : urls) {
      URI uri;
      try {
        uri = new URI(url);
      } catch (URISyntaxException e) {
        throw new IOException("invalid listen URL " + url + ": " + e.getMessage(), e);
      }
      if ("https".equals(uri.getScheme())) {
        throw new IOException("FakeEtcd serves plain http only; cannot listen on " + url);
      }
      if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
        throw new IOException("FakeEtcd listens on http://host:port URLs only, not " + url);
      }
      String host = uri.getHost();
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      String ip = InetAddress.getByName(host).getHostAddress();
      Listener listener = new Listener(role, url, ip, uri.getPort());
      if (!seen.add(listener.key())) {
        throw new IOException("listen tcp " + listener.key() + ": bind: address already in use");
      }
      out.add(listener);
    }
  }

  /**
   * Claims the member's addresses. Vert.x shares a server between two listens of one address in one
   * instance instead of failing, so a second member on an address must be refused here.
   */
  private void reserve(Member member, List<Listener> listeners) throws IOException {
    for (Listener l : listeners) {
      Member holder = addresses.putIfAbsent(l.key(), member);
      if (holder != null && holder != member) {
        throw new IOException(
            "listen tcp "
                + l.key()
                + ": bind: address already in use (by member "
                + holder.name
                + ")");
      }
    }
  }

  private static String addressKey(String ip, int port) {
    return isWildcard(ip) ? "*:" + port : ip + ":" + port;
  }

  private static boolean isWildcard(String ip) {
    return ip.equals("0.0.0.0") || ip.equals("0:0:0:0:0:0:0:0") || ip.equals("::");
  }

  /** The member that listens where a connection arrived; null when it just stopped. */
  private Member memberAt(SocketAddress local) {
    Member m = addresses.get(addressKey(local.hostAddress(), local.port()));
    return m != null ? m : addresses.get("*:" + local.port());
  }

  // ---- requests

  private void serve(Member m, Role role, HttpServerRequest req) {
    // A client that stops waiting for a member that does not answer resets its stream or closes
    // its connection: expected here, not worth a log line.
    req.exceptionHandler(ignored -> {});
    if (!m.answering()) {
      return;
    }
    if (role == Role.CLIENT && !m.servesClients()) {
      return;
    }
    String contentType = req.getHeader(HttpHeaders.CONTENT_TYPE);
    if (role == Role.CLIENT
        && req.version() == HttpVersion.HTTP_2
        && contentType != null
        && contentType.startsWith("application/grpc")) {
      grpc.handle(req);
      return;
    }
    http(m, role, req);
  }

  private static void http(Member m, Role role, HttpServerRequest req) {
    HttpServerResponse res = req.response();
    res.exceptionHandler(ignored -> {});
    String path = req.path();
    if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
      send(res, 405, TEXT, "Method Not Allowed\n");
    } else if (path.equals("/version")) {
      send(res, 200, JSON, VERSION_JSON);
    } else if (role == Role.PEER) {
      send(res, 404, TEXT, "404 page not found\n");
    } else {
      switch (path) {
        case "/health" -> {
          // etcd's /health?serializable=true skips the leader check
          boolean ok =
              m.cluster.observe().hasLeader() || "true".equals(req.getParam("serializable"));
          send(res, ok ? 200 : 503, JSON, ok ? HEALTHY : NO_LEADER_HEALTH);
        }
        case "/livez" -> send(res, 200, TEXT, "ok");
        case "/readyz" -> {
          boolean ok = m.cluster.observe().hasLeader();
          send(
              res,
              ok ? 200 : 503,
              TEXT,
              ok
                  ? "ok"
                  : "[-]linearizable_read failed: etcdserver: no leader\nreadyz check failed");
        }
        case "/metrics" -> send(res, 200, PROMETHEUS, metrics(m, m.cluster.observe()));
        default -> send(res, 404, TEXT, "404 page not found\n");
      }
    }
  }

  private static void send(HttpServerResponse res, int status, String contentType, String body) {
    res.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, contentType).end(body);
  }

  private static String metrics(Member m, State s) {
    return gauge("etcd_server_has_leader", s.hasLeader() ? 1 : 0)
        + gauge("etcd_server_is_leader", s.leader() == m.id ? 1 : 0)
        + gauge("etcd_server_proposals_committed_total", s.index())
        + gauge("etcd_server_proposals_applied_total", s.index())
        + gauge("etcd_debugging_mvcc_current_revision", REVISION)
        + gauge("etcd_mvcc_db_total_size_in_bytes", DB_SIZE)
        + gauge("etcd_mvcc_db_total_size_in_use_in_bytes", DB_SIZE_IN_USE)
        + "# TYPE etcd_server_version gauge\n"
        + "etcd_server_version{server_version=\""
        + SERVER_VERSION
        + "\"} 1\n";
  }

  private static String gauge(String name, long value) {
    return "# TYPE " + name + " gauge\n" + name + " " + value + "\n";
  }

  /** Answers a unary call when its request arrives, unless the member is frozen by then. */
  private <Q, R> void unary(GrpcServerRequest<Q, R> call, BiFunction<Member, Q, R> answer) {
    Member m = memberAt(call.connection().localAddress());
    call.exceptionHandler(ignored -> {});
    call.errorHandler(ignored -> {});
    call.handler(
        request -> {
          if (m == null || !m.answering()) {
            return;
          }
          GrpcServerResponse<Q, R> response = call.response();
          try {
            response.end(answer.apply(m, request));
          } catch (Refused r) {
            response.status(r.status).statusMessage(r.getMessage()).end();
          }
        });
  }

  /**
   * A watch stream: a create request is answered "created" (watch 0, nothing is ever written), a
   * progress request with the member's header and watch ID -1, as etcd answers both; while the
   * member is frozen nothing is answered.
   */
  private void watch(GrpcServerRequest<WatchRequest, WatchResponse> call) {
    watchStreams.incrementAndGet();
    Member m = memberAt(call.connection().localAddress());
    call.exceptionHandler(ignored -> {});
    call.errorHandler(ignored -> {});
    call.endHandler(ignored -> call.response().end());
    call.handler(
        request -> {
          if (m == null || !m.answering()) {
            return;
          }
          WatchResponse.Builder response =
              WatchResponse.newBuilder().setHeader(header(m, m.cluster.observe()));
          if (request.hasCreateRequest()) {
            call.response().write(response.setCreated(true).build());
          } else if (request.hasProgressRequest()) {
            call.response().write(response.setWatchId(-1).build());
          }
        });
  }

  /**
   * AuthStatus (etcd 3.5; jetcd 0.8.5 has no message for it, so it is written by hand), and gRPC's
   * own refusal, in grpc-go's words, of every other method: the operator's client reads "unknown
   * method" as an etcd without that call.
   */
  private void otherCall(GrpcServerRequest<Buffer, Buffer> call) {
    Member m = memberAt(call.connection().localAddress());
    call.exceptionHandler(ignored -> {});
    call.errorHandler(ignored -> {});
    if (m == null) {
      return;
    }
    String service = call.serviceName().fullyQualifiedName();
    String method = call.methodName();
    if (service.equals("etcdserverpb.Auth") && method.equals("AuthStatus")) {
      call.handler(
          request -> {
            if (m.answering()) {
              call.response().end(Buffer.buffer(authStatus(m).toByteArray()));
            }
          });
      return;
    }
    call.response()
        .status(GrpcStatus.UNIMPLEMENTED)
        .statusMessage(
            ETCD_SERVICES.contains(service)
                ? "unknown method " + method + " for service " + service
                : "unknown service " + service)
        .end();
  }

  private static ResponseHeader header(Member m, State s) {
    return ResponseHeader.newBuilder()
        .setClusterId(m.cluster.id)
        .setMemberId(m.id)
        .setRevision(REVISION)
        .setRaftTerm(s.term())
        .build();
  }

  private static StatusResponse status(Member m) {
    State s = m.cluster.observe();
    UnknownFieldSet etcd34 =
        UnknownFieldSet.newBuilder()
            .addField(
                STATUS_RAFT_APPLIED_INDEX,
                UnknownFieldSet.Field.newBuilder().addVarint(s.index()).build())
            .addField(
                STATUS_DB_SIZE_IN_USE,
                UnknownFieldSet.Field.newBuilder().addVarint(DB_SIZE_IN_USE).build())
            .build();
    return StatusResponse.newBuilder()
        .setHeader(header(m, s))
        .setVersion(SERVER_VERSION)
        .setDbSize(DB_SIZE)
        .setLeader(s.leader())
        .setRaftIndex(s.index())
        .setRaftTerm(s.term())
        .setUnknownFields(etcd34)
        .build();
  }

  private static MemberListResponse memberList(Member m) {
    return MemberListResponse.newBuilder()
        .setHeader(header(m, m.cluster.observe()))
        .addAllMembers(m.cluster.memberList())
        .build();
  }

  private static AlarmResponse alarms(Member m) {
    return AlarmResponse.newBuilder().setHeader(header(m, m.cluster.observe())).build();
  }

  private static RangeResponse range(Member m) {
    State s = m.cluster.observe();
    if (!s.hasLeader()) {
      throw NO_LEADER;
    }
    return RangeResponse.newBuilder().setHeader(header(m, s)).setCount(0).build();
  }

  /** AuthStatusResponse: header = 1, enabled = 2 (false: omitted), authRevision = 3. */
  private static UnknownFieldSet authStatus(Member m) {
    return UnknownFieldSet.newBuilder()
        .addField(
            1,
            UnknownFieldSet.Field.newBuilder()
                .addLengthDelimited(header(m, m.cluster.observe()).toByteString())
                .build())
        .addField(3, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
        .build();
  }

  /** A gRPC error etcd would answer with; shared instances, so no stack trace. */
  private static final class Refused extends RuntimeException {
    final GrpcStatus status;

    Refused(GrpcStatus status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  private static void await(Future<?> future) {
    try {
      future.toCompletionStage().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      LOG.debug("FakeEtcd: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- state

  /**
   * What a cluster looks like when asked.
   *
   * @param leader the leader's ID; 0 without quorum
   * @param term the raft term
   */
  private record State(long leader, long term) {
    boolean hasLeader() {
      return leader != 0;
    }

    long index() {
      return INDEX_BASE + term;
    }
  }

  /**
   * The members of one initial cluster (its voters, by slot: their place in the initial cluster),
   * which of them run, and the leader and term last seen.
   */
  private static final class Cluster {
    final long id;
    private final long[] ids;
    private final String[] names;
    private final List<List<String>> peerUrls;

    /** The running member of each slot, or null. Guarded by this. */
    private final Member[] running;

    /** Each slot's client URLs, as published by its last start (empty before). Guarded by this. */
    private final List<List<String>> clientUrls;

    private volatile List<io.etcd.jetcd.api.Member> memberList; // FQN: clashes with FakeEtcd.Member

    private boolean observed; // guarded by this
    private long leader; // guarded by this
    private long term = FIRST_TERM; // guarded by this

    /** Members started and not stopped (those starting included). Guarded by FakeEtcd.this. */
    int refs;

    Cluster(long id, List<String> names, long[] ids, Map<String, List<String>> peers) {
      this.id = id;
      this.ids = ids.clone();
      this.names = names.toArray(new String[0]);
      this.peerUrls = names.stream().map(n -> List.copyOf(peers.get(n))).toList();
      this.running = new Member[ids.length];
      this.clientUrls = new ArrayList<>();
      names.forEach(n -> clientUrls.add(List.of()));
      this.memberList = buildMemberList();
    }

    int slotOf(long memberId) {
      for (int i = 0; i < ids.length; i++) {
        if (ids[i] == memberId) {
          return i;
        }
      }
      throw new IllegalArgumentException("not a member: " + Long.toHexString(memberId));
    }

    synchronized void attach(Member m) {
      running[m.slot] = m;
      if (!clientUrls.get(m.slot).equals(m.advertisedClientUrls)) {
        clientUrls.set(m.slot, m.advertisedClientUrls);
        memberList = buildMemberList();
      }
    }

    synchronized void detach(Member m) {
      if (running[m.slot] == m) {
        running[m.slot] = null;
      }
    }

    /**
     * The leader now, and the term, one more than before when the leader changed. With a leader,
     * every member that is up has joined the cluster and serves its clients from then on.
     */
    synchronized State observe() {
      int up = 0;
      long smallest = 0;
      for (Member m : running) {
        if (m != null && !m.isFrozen()) {
          up++;
          if (smallest == 0 || Long.compareUnsigned(m.id, smallest) < 0) {
            smallest = m.id;
          }
        }
      }
      long now = up > running.length / 2 ? smallest : 0;
      if (now != 0) {
        for (Member m : running) {
          if (m != null && !m.servesClients && !m.isFrozen()) {
            m.servesClients = true;
          }
        }
      }
      if (observed && now != leader) {
        term++;
      }
      observed = true;
      leader = now;
      return new State(now, term);
    }

    List<io.etcd.jetcd.api.Member> memberList() { // FQN: clashes with FakeEtcd.Member
      return memberList;
    }

    /** etcd lists members by ID. Called with the lock held, or from the constructor. */
    private List<io.etcd.jetcd.api.Member> buildMemberList() { // FQN: clashes with FakeEtcd.Member
      List<io.etcd.jetcd.api.Member> list = new ArrayList<>(); // FQN: clashes with FakeEtcd.Member
      for (int i = 0; i < ids.length; i++) {
        list.add(
            io.etcd.jetcd.api.Member.newBuilder() // FQN: clashes with FakeEtcd.Member
                .setID(ids[i])
                .setName(names[i])
                .addAllPeerURLs(peerUrls.get(i))
                .addAllClientURLs(clientUrls.get(i))
                .build());
      }
      list.sort((a, b) -> Long.compareUnsigned(a.getID(), b.getID()));
      return List.copyOf(list);
    }
  }

  /** One started member: a fake etcd process, until {@link #stop}. */
  public final class Member {
    private final long id;
    private final String name;
    private final Cluster cluster;
    private final int slot;
    private final BooleanSupplier frozen;
    private final List<String> advertisedClientUrls;
    private final List<String> addressKeys;
    private final List<HttpServer> servers = new ArrayList<>(); // guarded by this
    private volatile boolean stopped;
    private volatile boolean servesClients;

    private Member(
        long id,
        String name,
        Cluster cluster,
        int slot,
        BooleanSupplier frozen,
        List<String> advertisedClientUrls,
        List<String> addressKeys) {
      this.id = id;
      this.name = name;
      this.cluster = cluster;
      this.slot = slot;
      this.frozen = frozen;
      this.advertisedClientUrls = List.copyOf(advertisedClientUrls);
      this.addressKeys = addressKeys;
    }

    public long id() {
      return id;
    }

    public long clusterId() {
      return cluster.id;
    }

    public String name() {
      return name;
    }

    /**
     * Closes its listeners and every open connection, as a killed process: connections are refused
     * afterwards. Idempotent. Called from a thread of FakeEtcd's Vert.x, it does not wait for the
     * listeners to close.
     */
    public void stop() {
      List<HttpServer> toClose;
      synchronized (this) {
        if (stopped) {
          return;
        }
        stopped = true;
        toClose = List.copyOf(servers);
      }
      cluster.detach(this);
      List<Future<Void>> closing = toClose.stream().map(HttpServer::close).toList();
      if (!Context.isOnVertxThread()) {
        closing.forEach(FakeEtcd::await);
      }
      addressKeys.forEach(k -> addresses.remove(k, this));
      synchronized (FakeEtcd.this) {
        running.remove(this);
        if (--cluster.refs == 0) {
          clusters.remove(cluster.id, cluster);
        }
      }
      LOG.debug("member {} ({}) stopped", name, Long.toHexString(id));
    }

    private void listen(List<Listener> listeners) throws IOException {
      List<Future<HttpServer>> binding = new ArrayList<>();
      for (Listener l : listeners) {
        HttpServer server =
            vertx.createHttpServer(serverOptions).requestHandler(r -> serve(this, l.role(), r));
        synchronized (this) {
          if (stopped) {
            throw new IllegalStateException("member " + name + " stopped while starting");
          }
          servers.add(server);
        }
        binding.add(server.listen(l.port(), l.ip()));
      }
      for (int i = 0; i < binding.size(); i++) {
        String url = listeners.get(i).url();
        try {
          for (int attempt = 1; ; attempt++) {
            try {
              binding
                  .get(i)
                  .toCompletionStage()
                  .toCompletableFuture()
                  .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
              break;
            } catch (ExecutionException e) {
              // The address of a member just stopped on it may still be held for a moment while
              // its socket closes (FakeEtcdTest met it once under load): try again, briefly.
              if (attempt >= 20 || !String.valueOf(e.getCause().getMessage()).contains("in use")) {
                throw e;
              }
              Thread.sleep(50);
              Listener l = listeners.get(i);
              HttpServer again =
                  vertx
                      .createHttpServer(serverOptions)
                      .requestHandler(r -> serve(this, l.role(), r));
              synchronized (this) {
                servers.add(again);
              }
              binding.set(i, again.listen(l.port(), l.ip()));
            }
          }
        } catch (ExecutionException e) {
          throw new IOException(
              "cannot listen on " + url + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
          throw new IOException("cannot listen on " + url + ": no answer within " + WAIT, e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted listening on " + url);
        }
      }
    }

    boolean isFrozen() {
      return frozen.getAsBoolean();
    }

    /** Whether it answers at all now: not stopped, not frozen. */
    boolean answering() {
      return !stopped && !isFrozen();
    }

    /**
     * Whether its client URLs serve: etcd serves clients only once it has joined its cluster with a
     * leader, and from then on whatever happens to quorum.
     */
    boolean servesClients() {
      if (!servesClients) {
        cluster.observe();
      }
      return servesClients;
    }

    @Override
    public String toString() {
      return name + " (" + Long.toHexString(id) + ")";
    }
  }
}
