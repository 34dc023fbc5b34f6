package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.model.TlsMove;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Turning peer TLS on or off for a running cluster, one safe step at a time.
 *
 * <p>Why it takes steps: every member dials each peer at the URL that etcd's member list records
 * for it, and only {@code member update} changes that URL. A member restarted straight onto the
 * other scheme would refuse the connections its peers keep opening to its recorded URL, and the
 * next restart would cost quorum. A member can, however, listen on several peer URLs at once, and a
 * member given the peer certificate dials https peers with it while it still dials http peers in
 * plain text. One port serves one scheme, hence the second peer port, {@value
 * Names#MOVE_PEER_PORT}, served only during a move.
 *
 * <h2>The steps on</h2>
 *
 * <ol>
 *   <li>Roll onto {@link TlsMove#HTTP_AND_HTTPS}: peers listen on http :2380 and https :2382, with
 *       the peer certificate and CA. The recorded URLs stay http :2380, which every member still
 *       serves: an ordinary roll, one member at a time, quorum kept.
 *   <li>One member at a time, {@code member update} its URL to https :2382, which it already
 *       serves: no restart; its peers dial it over TLS from then on.
 *   <li>Every URL https :2382: roll onto {@link TlsMove#HTTPS_ON_BOTH_PORTS}, https on :2380 and
 *       :2382 (nobody dials :2380 now).
 *   <li>One member at a time, {@code member update} its URL back to https :2380.
 *   <li>Every URL https :2380: roll onto the spec's own template, https :2380 only: the cluster now
 *       runs exactly what a cluster created with peer TLS runs.
 * </ol>
 *
 * <h2>The steps off</h2>
 *
 * The same walk with the schemes swapped: roll onto {@link TlsMove#HTTPS_AND_HTTP} (https :2380
 * with the peer certificate the members ran, http :2382), update each URL to http :2382, roll onto
 * {@link TlsMove#HTTP_ON_BOTH_PORTS} (no certificate), update each URL back to http :2380, roll
 * onto the spec's template. The spec names no peer Secret by then, so the members keep presenting
 * the ones their StatefulSet (else a pod) mounts while a step serves https ({@link
 * io.etcdoperator.operator.model.PeerSecrets}); when no object names them, or one of them is gone
 * (a member restarted on it would not start), {@link HaltRules.TlsModeChanged} refuses, touching
 * nothing, and names them.
 *
 * <h2>Reading the step from the world</h2>
 *
 * The step is read from the world, never remembered ({@link #of}): the listener set must serve
 * every URL recorded, so it is the scheme recorded on :2380 (else the spec's) with the scheme
 * recorded on :2382 (else the spec's); no move once every URL is the spec's scheme on :2380 (the
 * last roll is the ordinary roll of a stale template). Each update moves a member to the spec's
 * scheme on the first port that serves it, :2380 before :2382. When the spec changes its mind in
 * the middle of a move, this walks back from where the URLs are: if neither port serves the spec's
 * scheme (both the other one), members gather on :2380 first. Without a member list (no member
 * answers), the URLs come from the one last recorded with quorum in the cluster-state ConfigMap,
 * else from what the pods listen on, so that a pod replaced then gets what its peers expect: never
 * from the pods alone when the record exists, since a majority of pods deleted at once leaves too
 * few to tell. A crash anywhere in between resumes at the same step.
 *
 * <p>During a move this rule owns the cluster once quorum holds: it carries the rolls (the ordinary
 * roll rules, reported as {@code MovingToTls} or {@code MovingOffTls}) and the updates, and nothing
 * else changes membership or auth until it is done: a member added meanwhile would start with an
 * initial cluster that no longer matches the recorded URLs. A member that loses its data may still
 * be removed (the rules before this one); it is added again once the move is done. An update waits
 * for every member to be a healthy voter and every pod to be Ready, so that each one is taken on a
 * cluster that keeps quorum even if the updated member then failed. Without quorum the quorum-lost
 * rules decide, with this step's template.
 *
 * <p>Client TLS on needs no such care: nothing records a member's client URL for other members, and
 * the operator probes each pod on the scheme that pod serves, so a changed server Secret is an
 * ordinary roll. Clients that still use http lose each member as it restarts onto https; turning
 * peer TLS on first and server TLS after lets them switch in their own time. Turning server TLS off
 * is an ordinary roll too, with two cares: the operator keeps reaching the members not yet
 * restarted with the Secrets the cluster-state ConfigMap records for it ({@link
 * io.etcdoperator.operator.model.ServerTlsRecord}; without the record, {@link
 * HaltRules.TlsModeChanged} refuses), and etcd's authentication goes off before the first member
 * serves http ({@link AuthRules.DisableAuthBeforeServerTlsOff}).
 */
public final class TlsMoves {
  private TlsMoves() {}

  /**
   * Where the cluster stands on a move between http and https peers: {@link TlsMove#NONE} when the
   * members' URLs are where the spec wants them.
   */
  public static TlsMove of(Target target, ClusterView view) {
    if (target.desired().isEmpty()) {
      return TlsMove.NONE;
    }
    return of(target, Facts.of(target.namespace(), target.name(), view));
  }

  static TlsMove of(Target target, Facts f) {
    if (target.desired().isEmpty()) {
      return TlsMove.NONE;
    }
    Security security = target.desired().get().security();
    List<String> urls = peerUrls(f);
    if (!security.peerTlsAsked() && security.keptPeer().isEmpty() && autoTls(urls, f)) {
      return TlsMove.AUTO_TLS;
    }
    String want = want(security);
    if (!urls.isEmpty()) {
      if (urls.stream().allMatch(u -> !onMovePort(u) && u.startsWith(want + "://"))) {
        return TlsMove.NONE;
      }
      String atPeerPort =
          urls.stream()
              .filter(u -> !onMovePort(u))
              .map(TlsMoves::scheme)
              .filter(x -> !x.equals(want))
              .findFirst()
              .orElse(want);
      String atMovePort =
          urls.stream().filter(TlsMoves::onMovePort).map(TlsMoves::scheme).findFirst().orElse(want);
      return TlsMove.serving(atPeerPort, atMovePort);
    }
    // Neither a member list nor a recorded one: keep what the pods run, so that a pod recreated
    // now serves what its peers dial. The pods of an earlier step (the other scheme on :2380) win
    // over those of a later one: while both run, the URLs are within what the earlier one serves.
    List<String> listens =
        f.view().pods().values().stream()
            .filter(p -> !p.terminating())
            .map(PodView::peerListen)
            .filter(l -> !l.isEmpty())
            .toList();
    Optional<TlsMove> moving =
        listens.stream()
            .filter(TlsMoves::onMovePort)
            .map(TlsMoves::servedBy)
            .sorted(Comparator.comparing((TlsMove m) -> m.atPeerPort().equals(want)))
            .findFirst();
    if (moving.isPresent()) {
      return moving.get();
    }
    // A formed cluster whose pods serve the other scheme is at the first step (which serves it).
    return f.existed() && listens.stream().anyMatch(l -> !l.startsWith(want + "://"))
        ? TlsMove.serving(other(want), want)
        : TlsMove.NONE;
  }

  /** The peer scheme the spec asks for. */
  static String want(Security security) {
    return security.peerTlsAsked() ? "https" : "http";
  }

  /** The activity a move reports: {@code MovingToTls} or {@code MovingOffTls}. */
  static String activity(Situation s) {
    return want(s.desired().security()).equals("https")
        ? Conditions.MOVING_TO_TLS
        : Conditions.MOVING_OFF_TLS;
  }

  private static String scheme(String url) {
    return url.startsWith("https://") ? "https" : "http";
  }

  private static String other(String scheme) {
    return scheme.equals("https") ? "http" : "https";
  }

  /** The move step a pod listening on {@code listen} (both peer ports) runs. */
  private static TlsMove servedBy(String listen) {
    String atPeerPort = "http";
    String atMovePort = "http";
    for (String url : listen.split(",")) {
      if (onMovePort(url)) {
        atMovePort = scheme(url.trim());
      } else {
        atPeerPort = scheme(url.trim());
      }
    }
    return TlsMove.serving(atPeerPort, atMovePort);
  }

  /**
   * The peer URLs etcd records for our members: from the member list when a member answered it,
   * else from the last member list recorded with quorum in the cluster-state ConfigMap (its {@code
   * existing} state; it lags the world by at most the member updates made since it was written, and
   * every step's listeners also serve the URLs of the step before). Empty when neither is known:
   * then the pods say.
   */
  private static List<String> peerUrls(Facts f) {
    if (!f.members().isEmpty()) {
      return f.members().stream()
          .filter(m -> m.ordinal() >= 0)
          .flatMap(m -> m.etcd().peerUrls().stream())
          .toList();
    }
    return f.view().clusterState().filter(ClusterState::existing).stream()
        .flatMap(c -> c.peerUrls().values().stream())
        .toList();
  }

  /**
   * Whether members without a peer Secret in the spec keep etcd's own peer certificates: their
   * recorded peer URLs are https and no pod presents a peer Secret's certificate (that would be TLS
   * turned off, which {@link HaltRules.TlsModeChanged} refuses), or, with neither a member list nor
   * a recorded one, a pod runs {@code --peer-auto-tls} and none a peer Secret's certificate.
   */
  private static boolean autoTls(List<String> urls, Facts f) {
    List<PodView.PeerCertificate> certs =
        f.view().pods().values().stream()
            .filter(p -> !p.terminating())
            .map(PodView::peerCertificate)
            .toList();
    if (certs.contains(PodView.PeerCertificate.FILE)) {
      return false;
    }
    if (!urls.isEmpty()) {
      return urls.stream().allMatch(u -> u.startsWith("https://"));
    }
    return certs.contains(PodView.PeerCertificate.AUTO);
  }

  private static boolean onMovePort(String urls) {
    return urls.contains(":" + Names.MOVE_PEER_PORT);
  }

  /**
   * The rolls and updates of a move to or off peer TLS, with quorum held: see the class comment.
   */
  static final class MovePeers implements Rule {
    private static final List<Rule> ROLL =
        List.of(
            new RollRules.RollGate(),
            new RollRules.RollDownMembers(),
            new RollRules.RollFollower(),
            new RollRules.RollLeader());

    @Override
    public Optional<Decision> decide(Situation s) {
      TlsMove move = s.tlsMove();
      if (!move.moving()) {
        return Optional.empty();
      }
      for (Rule r : ROLL) {
        Optional<Decision> d = r.decide(s);
        if (d.isPresent()) {
          return d;
        }
      }
      return Optional.of(Decisions.withQuorum(s, activity(s), update(s, move)));
    }

    /** The next member update, once every member is a healthy voter and every pod Ready. */
    private static Step update(Situation s, TlsMove move) {
      Facts f = s.facts();
      String want = want(s.desired().security());
      String toward = want.equals("https") ? " moves to TLS" : " moves off TLS";
      Optional<Member> waitFor =
          f.members().stream().filter(m -> m.learner() || !f.healthy(m)).findFirst();
      if (waitFor.isPresent()) {
        Member m = waitFor.get();
        return new Step.Wait(
            m.name()
                + (m.learner() ? " to be promoted" : " to be healthy")
                + " before the next peer URL"
                + toward);
      }
      Optional<PodView> unready = f.unreadyMemberPod();
      if (unready.isPresent()) {
        return new Step.Wait(
            "pod " + unready.get().name() + " to be Ready before the next peer URL" + toward);
      }
      for (Member m : MembershipRules.ours(s)) {
        String to = move.peerUrlTarget(s.namespace(), s.name(), m.ordinal(), want);
        List<String> urls = m.etcd().peerUrls();
        if (!urls.equals(List.of(to))) {
          return new Step.UpdatePeerUrl(m.ordinal(), m.name(), m.id(), String.join(",", urls), to);
        }
      }
      return new Step.None();
    }
  }
}
