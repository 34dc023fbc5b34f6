package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.model.TlsMove;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.List;
import java.util.Optional;

/**
 * Turning peer TLS on for a running cluster, one safe step at a time.
 *
 * <p>Why it takes steps: every member dials each peer at the URL that etcd's member list records
 * for it, and only {@code member update} changes that URL. A member restarted straight onto https
 * would refuse the plain connections its peers keep opening to its recorded http URL, and the next
 * restart would cost quorum. A member can, however, listen on several peer URLs at once, and a
 * member given the peer certificate dials https peers with it while it still dials http peers in
 * plain text. One port serves one scheme, hence the second peer port, {@value
 * Names#MOVE_PEER_PORT}, served only during the move.
 *
 * <h2>The steps</h2>
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
 * <p>The step is read from the world, never remembered ({@link #of}): while any member's recorded
 * URL is http, step 1 or 2; else while any is on :2382, step 3 or 4; else done (the last roll is
 * the ordinary roll of a stale template). Without a member list (no member answers), from the one
 * last recorded with quorum in the cluster-state ConfigMap, else from what the pods listen on, so
 * that a pod replaced then gets what its peers expect: never from the pods alone when the record
 * exists, since a majority of pods deleted at once leaves too few to tell. A crash anywhere in
 * between resumes at the same step.
 *
 * <p>During steps 1 to 4 this rule owns the cluster once quorum holds: it carries the rolls (the
 * ordinary roll rules, reported as {@code MovingToTls}) and the updates, and nothing else changes
 * membership or auth until it is done: a member added meanwhile would start with an initial cluster
 * that no longer matches the recorded URLs. A member that loses its data may still be removed (the
 * rules before this one); it is added again once the move is done. An update waits for every member
 * to be a healthy voter and every pod to be Ready, so that each one is taken on a cluster that
 * keeps quorum even if the updated member then failed. Without quorum the quorum-lost rules decide,
 * with this step's template.
 *
 * <p>Client TLS needs no such care: nothing records a member's client URL for other members, and
 * the operator probes each pod on the scheme that pod serves, so a changed server Secret is an
 * ordinary roll. Clients that still use http lose each member as it restarts onto https; turning
 * peer TLS on first and server TLS after lets them switch in their own time. Turning TLS off for a
 * running cluster stays refused ({@link HaltRules.TlsModeChanged}).
 */
public final class TlsMoves {
  private TlsMoves() {}

  /**
   * Where the cluster stands on its way to peer TLS: {@link TlsMove#NONE} when the spec does not
   * ask for peer TLS or the members' URLs are already where it wants them.
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
    List<String> urls = peerUrls(f);
    if (!target.desired().get().security().peerTls()) {
      return autoTls(urls, f) ? TlsMove.AUTO_TLS : TlsMove.NONE;
    }
    if (!urls.isEmpty()) {
      if (urls.stream().anyMatch(u -> u.startsWith("http://"))) {
        return TlsMove.HTTP_AND_HTTPS;
      }
      return urls.stream().anyMatch(TlsMoves::onMovePort)
          ? TlsMove.HTTPS_ON_BOTH_PORTS
          : TlsMove.NONE;
    }
    // Neither a member list nor a recorded one: keep what the pods run, so that a pod recreated
    // now serves what its peers dial. A formed cluster whose pods serve plain peers is at step 1
    // (which also serves them).
    List<String> listens =
        f.view().pods().values().stream()
            .filter(p -> !p.terminating())
            .map(PodView::peerListen)
            .filter(l -> !l.isEmpty())
            .toList();
    if (listens.stream().anyMatch(l -> l.contains("http://") && onMovePort(l))) {
      return TlsMove.HTTP_AND_HTTPS;
    }
    if (listens.stream().anyMatch(TlsMoves::onMovePort)) {
      return TlsMove.HTTPS_ON_BOTH_PORTS;
    }
    return f.existed() && listens.stream().anyMatch(l -> l.startsWith("http://"))
        ? TlsMove.HTTP_AND_HTTPS
        : TlsMove.NONE;
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

  /** Steps 1 to 4 of the move to peer TLS, with quorum held: see the class comment. */
  static final class MovePeersToTls implements Rule {
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
      return Optional.of(Decisions.withQuorum(s, Conditions.MOVING_TO_TLS, update(s, move)));
    }

    /** The next member update, once every member is a healthy voter and every pod Ready. */
    private static Step update(Situation s, TlsMove move) {
      Facts f = s.facts();
      Optional<Member> waitFor =
          f.members().stream().filter(m -> m.learner() || !f.healthy(m)).findFirst();
      if (waitFor.isPresent()) {
        Member m = waitFor.get();
        return new Step.Wait(
            m.name()
                + (m.learner() ? " to be promoted" : " to be healthy")
                + " before the next peer URL moves to TLS");
      }
      Optional<PodView> unready = f.unreadyMemberPod();
      if (unready.isPresent()) {
        return new Step.Wait(
            "pod " + unready.get().name() + " to be Ready before the next peer URL moves to TLS");
      }
      for (Member m : MembershipRules.ours(s)) {
        String to = move.peerUrlTarget(s.namespace(), s.name(), m.ordinal());
        List<String> urls = m.etcd().peerUrls();
        if (!urls.equals(List.of(to))) {
          return new Step.UpdatePeerUrl(m.ordinal(), m.name(), m.id(), String.join(",", urls), to);
        }
      }
      return new Step.None();
    }
  }
}
