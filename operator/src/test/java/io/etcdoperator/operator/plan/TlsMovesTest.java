package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.PlannerTest.condition;
import static io.etcdoperator.operator.plan.PlannerTest.delete;
import static io.etcdoperator.operator.plan.Views.NAME;
import static io.etcdoperator.operator.plan.Views.NS;
import static io.etcdoperator.operator.plan.Views.id;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.model.TlsMove;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.PodView;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Turning peer TLS on for a running cluster ({@link TlsMoves}; off: {@link TlsMovesOffTest}): which
 * step the world says the move is at, and what the planner does there.
 */
class TlsMovesTest {
  static final String PLAIN = "http://[::]:2380";
  static final String STEP_1 = "http://[::]:2380,https://[::]:2382";
  static final String STEP_3 = "https://[::]:2380,https://[::]:2382";
  static final String DONE = "https://[::]:2380";

  static String url(String scheme, int ordinal, int port) {
    return scheme + "://" + Names.memberHost(NS, NAME, ordinal) + ":" + port;
  }

  static String http(int ordinal) {
    return url("http", ordinal, 2380);
  }

  static String moving(int ordinal) {
    return url("https", ordinal, 2382);
  }

  static String https(int ordinal) {
    return url("https", ordinal, 2380);
  }

  /** Three members whose peer URLs are as given. */
  static Views urls(String u0, String u1, String u2) {
    return Views.healthy(3).peerUrl(0, u0).peerUrl(1, u1).peerUrl(2, u2);
  }

  /** Every pod of {@code v} serves peers on {@code listen}. */
  static Views listening(Views v, String listen) {
    return v.peerListen(0, listen).peerListen(1, listen).peerListen(2, listen);
  }

  static Stream<Arguments> steps() {
    Target tls = Views.secure(3, false);
    return Stream.of(
        Arguments.of("no peer TLS asked for", Views.target(3), Views.healthy(3), TlsMove.NONE),
        Arguments.of(
            "peer TLS asked for, every URL http: step 1",
            tls,
            urls(http(0), http(1), http(2)),
            TlsMove.HTTP_AND_HTTPS),
        Arguments.of(
            "one URL moved to :2382, two http: still step 2",
            tls,
            urls(moving(0), http(1), http(2)),
            TlsMove.HTTP_AND_HTTPS),
        Arguments.of(
            "every URL https :2382: step 3",
            tls,
            urls(moving(0), moving(1), moving(2)),
            TlsMove.HTTPS_ON_BOTH_PORTS),
        Arguments.of(
            "one URL back on :2380: still step 4",
            tls,
            urls(https(0), moving(1), moving(2)),
            TlsMove.HTTPS_ON_BOTH_PORTS),
        Arguments.of(
            "every URL https :2380: moved", tls, urls(https(0), https(1), https(2)), TlsMove.NONE),
        Arguments.of(
            "no member list, plain pods of a formed cluster: step 1 (which also serves them)",
            tls,
            listening(Views.healthy(3).memberListUnknown(), PLAIN),
            TlsMove.HTTP_AND_HTTPS),
        Arguments.of(
            "no member list, pods on step 1's listeners: step 1",
            tls,
            listening(Views.healthy(3).memberListUnknown(), STEP_1),
            TlsMove.HTTP_AND_HTTPS),
        Arguments.of(
            "no member list, pods on step 3's listeners: step 3",
            tls,
            listening(Views.healthy(3).memberListUnknown().noClusterState(), STEP_3),
            TlsMove.HTTPS_ON_BOTH_PORTS),
        Arguments.of(
            "no member list, pods on https :2380: moved",
            tls,
            listening(Views.healthy(3).memberListUnknown().noClusterState(), DONE),
            TlsMove.NONE),
        Arguments.of(
            "no member list, every pod gone, the record says http: step 1",
            tls,
            Views.healthy(3).memberListUnknown().noPod(0).noPod(1).noPod(2),
            TlsMove.HTTP_AND_HTTPS),
        Arguments.of(
            "no member list, the record at step 3 though the pods still run step 1's listeners",
            tls,
            listening(Views.healthy(3).memberListUnknown(), STEP_1)
                .recordedPeerUrls(moving(0), moving(1), moving(2)),
            TlsMove.HTTPS_ON_BOTH_PORTS),
        Arguments.of(
            "no member list, the record says https :2380: moved",
            tls,
            Views.healthy(3).memberListUnknown().recordedPeerUrls(https(0), https(1), https(2)),
            TlsMove.NONE),
        Arguments.of(
            "no peer Secret, members on etcd's own certificates with https URLs: kept",
            Views.target(3),
            urls(https(0), https(1), https(2)).peerCertificate(PodView.PeerCertificate.AUTO),
            TlsMove.AUTO_TLS),
        Arguments.of(
            "the same, composed with auto TLS already: still kept",
            Views.autoTls(3),
            urls(https(0), https(1), https(2)).peerCertificate(PodView.PeerCertificate.AUTO),
            TlsMove.AUTO_TLS),
        Arguments.of(
            "no peer Secret, https URLs, one pod restarted onto ours (auto TLS too), one down",
            Views.target(3),
            urls(https(0), https(1), https(2))
                .podWithHash(0, "h0")
                .down(2)
                .peerCertificate(PodView.PeerCertificate.AUTO),
            TlsMove.AUTO_TLS),
        Arguments.of(
            "no peer Secret, https URLs, pods on a peer Secret's certificate: TLS turned off,"
                + " no auto TLS: the move off (TlsMovesOffTest has every step)",
            Views.target(3),
            urls(https(0), https(1), https(2)).peerCertificate(PodView.PeerCertificate.FILE),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "no member list nor a record, pods on --peer-auto-tls: kept",
            Views.target(3),
            listening(Views.healthy(3).memberListUnknown().noClusterState(), DONE)
                .peerCertificate(PodView.PeerCertificate.AUTO),
            TlsMove.AUTO_TLS),
        Arguments.of(
            "no member list, a majority of pods deleted, the one left plain: the record of https"
                + " URLs keeps etcd's own certificates (the takeover that lost its leader)",
            Views.target(3),
            Views.healthy(3)
                .memberListUnknown()
                .recordedPeerUrls(https(0), https(1), https(2))
                .noPod(0)
                .noPod(1)
                .peerListen(2, PLAIN),
            TlsMove.AUTO_TLS),
        Arguments.of(
            "no member list, the record says https but a pod runs a peer Secret's certificate:"
                + " TLS turned off, the move off",
            Views.target(3),
            Views.healthy(3)
                .memberListUnknown()
                .recordedPeerUrls(https(0), https(1), https(2))
                .peerCertificate(PodView.PeerCertificate.FILE),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "no member list, the record says http, a pod on --peer-auto-tls: the record wins",
            Views.target(3),
            Views.healthy(3).memberListUnknown().peerCertificate(PodView.PeerCertificate.AUTO),
            TlsMove.NONE),
        Arguments.of(
            "no peer Secret, http URLs: plain, nothing to keep",
            Views.target(3),
            urls(http(0), http(1), http(2)),
            TlsMove.NONE),
        Arguments.of(
            "a cluster that never formed: nothing to move, it bootstraps with TLS",
            tls,
            listening(Views.bootstrapping(3), PLAIN),
            TlsMove.NONE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("steps")
  void readsTheStepFromTheWorld(String name, Target target, Views view, TlsMove expected) {
    assertThat(TlsMoves.of(target, view.build())).isEqualTo(expected);
  }

  static Step.UpdatePeerUrl update(int ordinal, String from, String to) {
    return new Step.UpdatePeerUrl(ordinal, Names.member(NAME, ordinal), id(ordinal), from, to);
  }

  static Stream<Arguments> plans() {
    Target tls = Views.secure(3, false);
    return Stream.of(
        Arguments.of(
            "step 1: pods on the old template roll onto both schemes, a follower first",
            tls,
            urls(http(0), http(1), http(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            "MovePeers",
            delete("rolling update", 2),
            "False/MovingToTls"),
        Arguments.of(
            "step 2: every pod serves both schemes: the first URL moves to https :2382",
            tls,
            urls(http(0), http(1), http(2)),
            "MovePeers",
            update(0, http(0), moving(0)),
            "False/MovingToTls"),
        Arguments.of(
            "step 2: one moved, the next",
            tls,
            urls(moving(0), http(1), http(2)),
            "MovePeers",
            update(1, http(1), moving(1)),
            "False/MovingToTls"),
        Arguments.of(
            "step 2: a member down: wait, nothing moves while quorum could be at stake",
            tls,
            urls(moving(0), http(1), http(2)).down(1),
            "MovePeers",
            new Step.Wait(
                Names.member(NAME, 1) + " to be healthy before the next peer URL moves to TLS"),
            "False/MovingToTls"),
        Arguments.of(
            "step 2: a pod not Ready: wait",
            tls,
            urls(moving(0), http(1), http(2)).pod(2, true, false),
            "MovePeers",
            new Step.Wait(
                "pod " + Names.pod(NAME, 2) + " to be Ready before the next peer URL moves to TLS"),
            "False/MovingToTls"),
        Arguments.of(
            "step 3: every URL on :2382, pods on step 1's template: roll",
            tls,
            urls(moving(0), moving(1), moving(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            "MovePeers",
            delete("rolling update", 2),
            "False/MovingToTls"),
        Arguments.of(
            "step 4: rolled: the first URL back to :2380",
            tls,
            urls(moving(0), moving(1), moving(2)),
            "MovePeers",
            update(0, moving(0), https(0)),
            "False/MovingToTls"),
        Arguments.of(
            "step 5: every URL https :2380: an ordinary roll onto the spec's template",
            tls,
            urls(https(0), https(1), https(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            "RollFollower",
            delete("rolling update", 2),
            "False/RollingUpdate"),
        Arguments.of(
            "scaling up waits for the move: no member joins while URLs are half moved",
            Views.secure(5, false),
            urls(moving(0), http(1), http(2)),
            "MovePeers",
            update(1, http(1), moving(1)),
            "False/MovingToTls"),
        Arguments.of(
            "client TLS and auth turned on: the roll onto https first, auth only after it",
            Views.secure(3, true),
            urls(https(0), https(1), https(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0")
                .tls(PlannerTest.clientAs("root"))
                .authEnabled(false),
            "RollFollower",
            delete("rolling update", 2),
            "False/RollingUpdate"),
        Arguments.of(
            "auto TLS kept: an ordinary roll onto the template (with --peer-auto-tls)",
            Views.autoTls(3),
            urls(https(0), https(1), https(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0")
                .peerCertificate(PodView.PeerCertificate.AUTO),
            "RollFollower",
            delete("rolling update", 2),
            "False/RollingUpdate"),
        Arguments.of(
            "auto TLS kept: a scale-up adds a learner at an https URL",
            Views.autoTls(4),
            urls(https(0), https(1), https(2)).peerCertificate(PodView.PeerCertificate.AUTO),
            "ScaleUp",
            new Step.AddLearner(3, Names.member(NAME, 3), https(3)),
            "False/ScalingUp"),
        Arguments.of(
            "auto TLS members, the spec names a peer Secret: refused, nothing touched",
            tls,
            urls(https(0), https(1), https(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0")
                .peerCertificate(PodView.PeerCertificate.AUTO),
            "TlsModeChanged",
            new Step.None(),
            "False/TlsModeChanged"),
        Arguments.of(
            "quorum lost during the move: the quorum-lost rules decide",
            tls,
            urls(moving(0), http(1), http(2)).down(1).down(2).noLeader(),
            "QuorumLost",
            new Step.None(),
            "False/QuorumLost"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("plans")
  void movesOneSafeStepAtATime(
      String name, Target target, Views view, String rule, Step step, String ready) {
    assertPlan(target, view, rule, step, ready);
  }

  /**
   * The planner, on {@code view}, takes {@code step} by {@code rule}, reporting Ready {@code
   * ready}.
   */
  static void assertPlan(Target target, Views view, String rule, Step step, String ready) {
    ClusterView v = view.build();
    Plan plan = Planner.plan(target, v);
    assertThat(plan.rule()).as("rule").isEqualTo(rule);
    assertThat(plan.step()).as("step").isEqualTo(step);
    assertThat(condition(plan, Conditions.READY)).as("Ready").isEqualTo(ready);
  }
}
