package io.etcdoperator.operator.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.MemberListResponse;
import io.etcd.jetcd.api.RangeRequest;
import io.etcdoperator.operator.tls.ClientTls;
import io.grpc.Channel;
import io.grpc.Deadline;
import io.grpc.StatusRuntimeException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link EtcdService} over etcd's gRPC API as compiled into jetcd ({@code jetcd-grpc}'s stubs and
 * messages), on gRPC channels this class owns.
 *
 * <h2>Why not jetcd's {@code Client}</h2>
 *
 * jetcd 0.8.5's {@code Client} is built for one application talking to one cluster: each instance
 * starts its own Vert.x instance and thread pool; its {@code statusMember} opens (and closes) a new
 * connection on every call; its stubs wait for a ready connection with no deadline, so a call to a
 * dead or frozen member never returns; its KV calls retry UNAVAILABLE behind the caller's back
 * (twice, 500 ms back-off); its Status drops the fields etcd 3.4 added (applied index, errors,
 * learner); and it has no MemberPromote. An operator probing every member of many clusters every
 * few seconds wants the opposite on every point, so this class uses jetcd's protocol layer (the
 * generated stubs and messages of {@code jetcd-grpc}) and manages connections itself ({@link
 * EtcdChannels}).
 *
 * <h2>Deadlines and parallel probing</h2>
 *
 * Every call gets a gRPC {@link Deadline}; gRPC fails the call with DEADLINE_EXCEEDED when it
 * passes, whatever state the connection is in (refused, connecting to a frozen process, waiting for
 * an answer). A probe round computes one absolute deadline, starts a Status and a EtcdMemberList
 * call to every member at once, and only then waits; so the round takes the slowest answer or the
 * deadline, whichever comes first, however many members are frozen. As a safety net against a call
 * gRPC never completes, waiting itself is bounded by the deadline plus {@link #SAFETY_MARGIN}; an
 * answer not in by then is reported as DEADLINE_EXCEEDED.
 *
 * <p>Calls do not wait for a connection to be ready: a refused connection fails the call at once
 * (UNREACHABLE, "Connection refused"), well before the deadline. A channel that gRPC holds in
 * reconnect back-off (up to 2 minutes after repeated failures) is told to reconnect at the next
 * call, so a member that comes back is seen by the next probe.
 *
 * <p>Calls are not retried here: a probe reports what it saw, and the next reconcile probes again.
 */
public final class JetcdEtcdService implements EtcdService {
  private static final Duration WARM_UP_DEADLINE = Duration.ofSeconds(30);
  private static final String WARM_UP_KEY = "(warm-up)";
  private static final Logger LOG = LoggerFactory.getLogger(JetcdEtcdService.class);
  private static final ByteString HEALTH_KEY = ByteString.copyFromUtf8("health");

  private final EtcdServiceConfig config;
  private final EventLoopGroup eventLoop;
  private final EtcdChannels channels;
  private final EtcdCalls calls;
  private final EtcdMaintenance maintenance;
  private final EtcdMembership membership;
  private final EtcdProbes probes;
  private final ProgressStreams progress;

  public JetcdEtcdService(EtcdServiceConfig config) {
    this.config = config;
    this.eventLoop =
        new NioEventLoopGroup(config.ioThreads(), new DefaultThreadFactory("etcd-grpc-io", true));
    // Answers are handled on the event loop that read them: what follows a call (parsing a
    // message, completing a future) is short and never blocks, and a hand-off to another thread
    // per answer cost more than the answer (a Status call per member per second, see MemberWatch).
    this.channels =
        new EtcdChannels(eventLoop, Runnable::run, config.deadline(), config.idleChannelTimeout());
    this.calls = new EtcdCalls(channels);
    this.maintenance = new EtcdMaintenance(calls, config.deadline());
    this.membership = new EtcdMembership(calls, config.deadline());
    this.probes = new EtcdProbes(calls);
    this.progress = new ProgressStreams(channels);
    warmUp();
  }

  /**
   * Makes every kind of probe call once against a local {@link WarmUpServer}, with a deadline a
   * cold JVM cannot miss. Only an optimisation: a failure is logged and otherwise ignored.
   */
  private void warmUp() {
    long start = System.nanoTime();
    Deadline deadline = Deadline.after(WARM_UP_DEADLINE.toNanos(), TimeUnit.NANOSECONDS);
    try (WarmUpServer server = new WarmUpServer(eventLoop)) {
      String url = server.clientUrl();
      CompletableFuture.allOf(
              probes.probe(WARM_UP_KEY, url, deadline),
              calls.alarms(WARM_UP_KEY, url, deadline),
              calls.call(
                  WARM_UP_KEY,
                  url,
                  KVGrpc.getRangeMethod(),
                  RangeRequest.newBuilder().setKey(HEALTH_KEY).build(),
                  deadline))
          .get(WARM_UP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
      LOG.debug("warmed up in {} ms", (System.nanoTime() - start) / 1_000_000);
    } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
      LOG.warn("warm-up failed; the first probes may be slow: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      channels.closeCluster(WARM_UP_KEY);
    }
  }

  public JetcdEtcdService() {
    this(EtcdServiceConfig.defaults());
  }

  public EtcdServiceConfig config() {
    return config;
  }

  /** How many connections are cached, over all clusters. */
  public int openChannels() {
    return channels.openChannels();
  }

  @Override
  public EtcdStatus status(String clusterKey, String clientUrl) {
    Deadline deadline = newDeadline();
    try {
      return EtcdMessages.status(
          clientUrl,
          EtcdCalls.await(calls.status(clusterKey, clientUrl, deadline), clientUrl, deadline));
    } catch (EtcdException e) {
      return EtcdStatus.unreachable(clientUrl, ProbeFailure.of(e));
    }
  }

  @Override
  public CompletableFuture<List<EtcdStatus>> statuses(
      String clusterKey, List<String> clientUrls, Duration within) {
    return probes.statuses(clusterKey, clientUrls, within);
  }

  @Override
  public CompletableFuture<List<Progress>> progress(
      String clusterKey, List<String> clientUrls, Duration within) {
    return progress.progress(clusterKey, clientUrls, within);
  }

  @Override
  public EtcdMemberList memberList(String clusterKey, String clientUrl) {
    Deadline deadline = newDeadline();
    MemberListResponse r =
        EtcdCalls.await(calls.memberList(clusterKey, clientUrl, deadline), clientUrl, deadline);
    return EtcdMessages.memberList(clientUrl, r.getHeader(), r.getMembersList());
  }

  @Override
  public List<Alarm> alarms(String clusterKey, String clientUrl) {
    Deadline deadline = newDeadline();
    return EtcdMessages.alarms(
        EtcdCalls.await(calls.alarms(clusterKey, clientUrl, deadline), clientUrl, deadline));
  }

  @Override
  public Health health(String clusterKey, String clientUrl) {
    long start = System.nanoTime();
    Deadline deadline = newDeadline();
    Optional<ProbeFailure> problem;
    try {
      RangeRequest read = RangeRequest.newBuilder().setKey(HEALTH_KEY).setCountOnly(true).build();
      EtcdCalls.await(
          calls.call(clusterKey, clientUrl, KVGrpc.getRangeMethod(), read, deadline),
          clientUrl,
          deadline);
      List<Alarm> alarms =
          EtcdMessages.alarms(
              EtcdCalls.await(calls.alarms(clusterKey, clientUrl, deadline), clientUrl, deadline));
      problem =
          alarms.isEmpty()
              ? Optional.empty()
              : Optional.of(new ProbeFailure(EtcdFailure.ALARM, describe(alarms)));
    } catch (EtcdException e) {
      problem = Optional.of(ProbeFailure.of(e));
    }
    return new Health(
        clientUrl, problem.isEmpty(), problem, Duration.ofNanos(System.nanoTime() - start));
  }

  @Override
  public ClusterProbe probeAll(String clusterKey, List<String> expectedClientUrls) {
    return probes.probeAll(clusterKey, expectedClientUrls, newDeadline());
  }

  @Override
  public MemberAdded addLearner(
      String clusterKey, String clientUrl, long expectedClusterId, String learnerPeerUrl) {
    return membership.addLearner(clusterKey, clientUrl, expectedClusterId, learnerPeerUrl);
  }

  @Override
  public PromoteResult promoteLearner(
      String clusterKey, String clientUrl, long expectedClusterId, long learnerId) {
    return membership.promoteLearner(clusterKey, clientUrl, expectedClusterId, learnerId);
  }

  @Override
  public EtcdMemberList removeMember(
      String clusterKey, String clientUrl, long expectedClusterId, long memberId) {
    return membership.removeMember(clusterKey, clientUrl, expectedClusterId, memberId);
  }

  @Override
  public EtcdMemberList updatePeerUrls(
      String clusterKey,
      String clientUrl,
      long expectedClusterId,
      long memberId,
      List<String> peerUrls) {
    return membership.updatePeerUrls(clusterKey, clientUrl, expectedClusterId, memberId, peerUrls);
  }

  @Override
  public void moveLeader(
      String clusterKey, String leaderClientUrl, long expectedClusterId, long targetMemberId) {
    membership.moveLeader(clusterKey, leaderClientUrl, expectedClusterId, targetMemberId);
  }

  @Override
  public DefragResult defragment(
      String clusterKey, String clientUrl, long expectedClusterId, Duration deadline) {
    return maintenance.defragment(clusterKey, clientUrl, expectedClusterId, deadline);
  }

  @Override
  public boolean compact(
      String clusterKey,
      String clientUrl,
      long expectedClusterId,
      long revision,
      Duration deadline) {
    return maintenance.compact(clusterKey, clientUrl, expectedClusterId, revision, deadline);
  }

  @Override
  public HashKv hashKv(String clusterKey, String clientUrl, long revision, Duration deadline) {
    return maintenance.hashKv(clusterKey, clientUrl, revision, deadline);
  }

  @Override
  public int disarm(String clusterKey, String clientUrl, long expectedClusterId, String type) {
    return maintenance.disarm(clusterKey, clientUrl, expectedClusterId, type);
  }

  @Override
  public SnapshotResult snapshot(
      String clusterKey,
      String clientUrl,
      OutputStream out,
      Duration idleTimeout,
      Duration maxDuration)
      throws IOException {
    return SnapshotStream.copy(
        channel(clusterKey, clientUrl), clientUrl, out, maxDuration, idleTimeout);
  }

  @Override
  public AutoCloseable watchChanges(
      String clusterKey,
      String clientUrl,
      long fromRevision,
      BiConsumer<List<ChangeEvent>, Long> onChanges,
      Consumer<String> onEnd) {
    return ChangeWatch.start(channel(clusterKey, clientUrl), fromRevision, onChanges, onEnd);
  }

  @Override
  public long applyChanges(String clusterKey, String clientUrl, List<ChangeEvent> oneRevision) {
    Deadline deadline = newDeadline();
    var txn = ChangeWatch.transaction(oneRevision);
    return EtcdCalls.await(
            calls.call(clusterKey, clientUrl, ChangeWatch.txnMethod(), txn, deadline),
            clientUrl,
            deadline)
        .getHeader()
        .getRevision();
  }

  private Channel channel(String clusterKey, String clientUrl) {
    try {
      return channels.get(clusterKey, clientUrl);
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.classify(e, clientUrl);
    }
  }

  @Override
  public boolean authEnabled(String clusterKey, String clientUrl) {
    return new EtcdAuth(calls).enabled(clusterKey, clientUrl, newDeadline());
  }

  @Override
  public void enableAuth(String clusterKey, String clientUrl, String user) {
    new EtcdAuth(calls).enable(clusterKey, clientUrl, user, this::newDeadline);
  }

  @Override
  public void disableAuth(String clusterKey, String clientUrl) {
    new EtcdAuth(calls).disable(clusterKey, clientUrl, newDeadline());
  }

  @Override
  public void useTls(String clusterKey, Optional<ClientTls> tls) {
    channels.useTls(clusterKey, tls.orElse(null));
  }

  @Override
  public void pinAddress(String clusterKey, String host, Optional<String> ip) {
    try {
      channels.pin(clusterKey, host, ip.isEmpty() ? null : InetAddress.getByName(ip.get()));
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an address: " + ip.get(), e);
    }
  }

  @Override
  public void resolveAgain(String clusterKey, String clientUrl) {
    channels.resolveAgain(clusterKey, clientUrl);
  }

  @Override
  public void closeCluster(String clusterKey) {
    progress.closeCluster(clusterKey);
    channels.closeCluster(clusterKey);
  }

  @Override
  public void close() {
    progress.close();
    channels.close();
    eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  private Deadline newDeadline() {
    return Deadline.after(config.deadline().toNanos(), TimeUnit.NANOSECONDS);
  }

  private static String describe(List<Alarm> alarms) {
    StringBuilder s = new StringBuilder("alarms raised:");
    for (Alarm a : alarms) {
      s.append(' ').append(a.type()).append(" on member ").append(Long.toHexString(a.memberId()));
    }
    return s.toString();
  }
}
