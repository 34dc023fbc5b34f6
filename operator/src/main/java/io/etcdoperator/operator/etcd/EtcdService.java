package io.etcdoperator.operator.etcd;

import io.etcdoperator.operator.tls.ClientTls;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The operator's view of etcd: the only way the rest of the operator talks to etcd members.
 *
 * <h2>Addressing</h2>
 *
 * Every call names the cluster it is for ({@code clusterKey}, "namespace/name") and the client URL
 * of the one member it is sent to. Connections are cached per cluster and per endpoint and reused
 * across reconciles; {@link #closeCluster(String)} drops them when the cluster is deleted.
 *
 * <h2>Deadlines</h2>
 *
 * Every call carries a gRPC deadline ({@link EtcdServiceConfig#deadline()}, 1 s by default). This
 * is the only thing that bounds a call to a frozen or black-holed member: such a member accepts the
 * TCP connection (the kernel does it) and then never answers, so neither a connect timeout nor a
 * retry budget ever fires. Calls are never retried behind the caller's back: a failed call is
 * reported at once, and the next reconcile is the retry.
 *
 * <h2>Probing</h2>
 *
 * {@link #probeAll(String, List)} sends, to every expected member at the same instant, a Status and
 * a EtcdMemberList request that share one absolute deadline. It then waits for all of them, which
 * takes at most that one deadline however many members are frozen. Each member's answer (or the
 * reason there is none) is reported on its own; the member list reported for the cluster is the
 * leader's when the leader answered.
 *
 * <h2>Failures</h2>
 *
 * Probes ({@link #status}, {@link #probeAll}, {@link #health}) turn expected failures into data: an
 * unreachable member is a result, not an exception. Other calls throw {@link EtcdException} for
 * expected failures (unreachable, deadline, not the leader, member not found, cluster ID mismatch,
 * refused by etcd) and {@link EtcdUnexpectedException} for everything else. A learner that is not
 * yet in sync is an ordinary {@link PromoteResult.NotReadyYet} outcome.
 *
 * <p>Implementations are thread-safe.
 */
public interface EtcdService extends AutoCloseable {

  /** Status of one member; an unreachable member is reported in the result, never thrown. */
  EtcdStatus status(String clusterKey, String clientUrl);

  /**
   * The Status of every member at {@code clientUrls}, asked at once with {@code deadline}, without
   * the caller waiting: a future that completes within about that deadline with one status per URL,
   * in the given order (a member that does not answer as a status, never as an exception). This
   * default asks one member after the other with {@link #status}, on another thread: for
   * implementations that stand in for etcd in tests.
   */
  default CompletableFuture<List<EtcdStatus>> statuses(
      String clusterKey, List<String> clientUrls, Duration deadline) {
    return CompletableFuture.supplyAsync(
        () -> clientUrls.stream().map(u -> status(clusterKey, u)).toList());
  }

  /**
   * Whether each member at {@code clientUrls} is there, and in which raft term: a progress request
   * on a watch stream kept open per member, a fraction of a Status call's cost ({@code
   * ProgressStreams}). A future that completes within about {@code deadline}, one answer per URL in
   * the given order ({@link Progress#NONE} for a member that did not answer). This default asks
   * Status instead: for implementations that stand in for etcd in tests.
   */
  default CompletableFuture<List<Progress>> progress(
      String clusterKey, List<String> clientUrls, Duration deadline) {
    return statuses(clusterKey, clientUrls, deadline)
        .thenApply(
            answers ->
                answers.stream()
                    .map(
                        s ->
                            s.reachable()
                                ? new Progress(
                                    true, s.clusterId(), s.memberId(), s.raftTerm(), s.revision())
                                : Progress.NONE)
                    .toList());
  }

  /** The member list as seen by the member at {@code clientUrl}. */
  EtcdMemberList memberList(String clusterKey, String clientUrl);

  /** The alarms the member at {@code clientUrl} knows of (alarms are cluster-wide in etcd). */
  List<Alarm> alarms(String clusterKey, String clientUrl);

  /**
   * Whether the member can serve a linearizable read and reports no alarm (what {@code etcdctl
   * endpoint health} checks). An unreachable member is reported unhealthy, never thrown.
   */
  Health health(String clusterKey, String clientUrl);

  /**
   * Probes every expected member in parallel and returns one result per URL, in the given order,
   * within about one deadline in total.
   */
  ClusterProbe probeAll(String clusterKey, List<String> expectedClientUrls);

  /**
   * Adds a learner with the given peer URL, through the member at {@code clientUrl}, after checking
   * that this member belongs to the cluster with ID {@code expectedClusterId}.
   */
  MemberAdded addLearner(
      String clusterKey, String clientUrl, long expectedClusterId, String learnerPeerUrl);

  /**
   * Promotes a learner to a voting member. etcd refuses while the learner is not in sync with the
   * leader: that is {@link PromoteResult.NotReadyYet}, to be tried again later.
   *
   * <p>Send it to the leader. A follower forwards it to the leader, and etcd 3.4's follower never
   * answers a promotion of a member that was removed (DEADLINE_EXCEEDED), where the leader says
   * MEMBER_NOT_FOUND at once.
   */
  PromoteResult promoteLearner(
      String clusterKey, String clientUrl, long expectedClusterId, long learnerId);

  /**
   * Sets the peer URLs etcd records for a member ({@code member update}): every member dials it
   * there from then on. Returns the resulting member list.
   */
  EtcdMemberList updatePeerUrls(
      String clusterKey,
      String clientUrl,
      long expectedClusterId,
      long memberId,
      List<String> peerUrls);

  /** Removes a member (voter or learner) and returns the resulting member list. */
  EtcdMemberList removeMember(
      String clusterKey, String clientUrl, long expectedClusterId, long memberId);

  /**
   * Hands leadership to {@code targetMemberId}. etcd accepts this only from the current leader, so
   * {@code leaderClientUrl} must be the leader's client URL (for example {@link
   * ClusterProbe#leaderEndpoint()}); if leadership moved meanwhile this throws {@link
   * EtcdException} with {@link EtcdFailure#NOT_LEADER}. Returns when the transfer is done.
   */
  void moveLeader(
      String clusterKey, String leaderClientUrl, long expectedClusterId, long targetMemberId);

  /**
   * Defragments the member at {@code clientUrl} (etcd's Maintenance/Defragment: local to that
   * member, which serves no read or write until it is done), after checking it belongs to the
   * cluster {@code expectedClusterId}; measured: sizes before and after, and how long it took.
   * {@code deadline} bounds the call: etcd goes on with a defragmentation the caller gave up on.
   */
  DefragResult defragment(
      String clusterKey, String clientUrl, long expectedClusterId, Duration deadline);

  /**
   * Compacts the cluster's history up to {@code revision} (through raft, every member), and waits
   * until the compaction reached the backend. Returns false when it was compacted at or past {@code
   * revision} already.
   */
  boolean compact(
      String clusterKey,
      String clientUrl,
      long expectedClusterId,
      long revision,
      Duration deadline);

  /**
   * The member's hash of its key-value store up to {@code revision} (etcd's {@code HashKV}), with a
   * deadline fit for a scan of the whole store. Asked when etcd raised CORRUPT, to find which
   * member disagrees with the others.
   */
  HashKv hashKv(String clusterKey, String clientUrl, long revision, Duration deadline);

  /** Disarms every raised alarm of {@code type} ({@code NOSPACE}, {@code CORRUPT}); how many. */
  int disarm(String clusterKey, String clientUrl, long expectedClusterId, String type);

  /**
   * Streams a snapshot of the member at {@code clientUrl} to {@code out} with constant memory:
   * every byte etcd sends, its trailing sha256 included (the format of {@code etcdctl snapshot
   * save}), verified against that sha256 once the stream ends. A stream that breaks, stalls for
   * {@code idleTimeout}, outlasts {@code maxDuration} or fails the check throws {@link
   * EtcdException} (a bad stream is {@link EtcdFailure#BAD_SNAPSHOT}); what was written is then
   * garbage. {@code out} is neither flushed nor closed.
   */
  SnapshotResult snapshot(
      String clusterKey,
      String clientUrl,
      OutputStream out,
      Duration idleTimeout,
      Duration maxDuration)
      throws IOException;

  /**
   * Watches every change of the cluster from {@code fromRevision} on, through the member at {@code
   * clientUrl}: {@code onChanges} gets whole revisions in order (and the cluster's revision);
   * {@code onEnd} why the watch ended (compacted past its start, the member went away). Close the
   * result to stop.
   */
  AutoCloseable watchChanges(
      String clusterKey,
      String clientUrl,
      long fromRevision,
      BiConsumer<List<ChangeEvent>, Long> onChanges,
      Consumer<String> onEnd);

  /**
   * Writes the changes of one revision as one transaction (puts without a lease); returns the
   * revision etcd gave it.
   */
  long applyChanges(String clusterKey, String clientUrl, List<ChangeEvent> oneRevision);

  /**
   * Whether etcd's authentication is on, as the member at {@code clientUrl} says (etcd 3.5's
   * AuthStatus).
   *
   * @throws EtcdException when it does not answer, or has no AuthStatus (etcd 3.4: UNIMPLEMENTED)
   */
  boolean authEnabled(String clusterKey, String clientUrl);

  /**
   * Creates the root role and user, and {@code user} as root (no passwords: certificate-based),
   * where missing, then turns authentication on.
   */
  void enableAuth(String clusterKey, String clientUrl, String user);

  /** Turns authentication off; users and roles stay. */
  void disableAuth(String clusterKey, String clientUrl);

  /**
   * The TLS material for this cluster's https URLs from now on (empty: none); connections made with
   * other material are closed. Called by every reconcile before it probes.
   */
  void useTls(String clusterKey, Optional<ClientTls> tls);

  /**
   * Calls of this cluster to {@code host} go to the address {@code ip} from now on (empty: to the
   * host's own address again); the server certificate is still verified against {@code host}.
   */
  void pinAddress(String clusterKey, String host, Optional<String> ip);

  /**
   * The next call of this cluster to {@code clientUrl} looks its host up again: the caller saw a
   * member answer there that the URL does not stand for (another member ID or cluster ID), as when
   * the host's name moved to a new address while its old one still answers. Connections are
   * otherwise kept as long as they work, without lookups.
   */
  void resolveAgain(String clusterKey, String clientUrl);

  /** Closes every connection held for this cluster (call it when the cluster is deleted). */
  void closeCluster(String clusterKey);

  /** Closes every connection and the threads that served them. */
  @Override
  void close();
}
