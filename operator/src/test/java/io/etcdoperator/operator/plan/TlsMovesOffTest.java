package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.PlannerTest.delete;
import static io.etcdoperator.operator.plan.TlsMovesTest.http;
import static io.etcdoperator.operator.plan.TlsMovesTest.https;
import static io.etcdoperator.operator.plan.TlsMovesTest.listening;
import static io.etcdoperator.operator.plan.TlsMovesTest.moving;
import static io.etcdoperator.operator.plan.TlsMovesTest.update;
import static io.etcdoperator.operator.plan.TlsMovesTest.url;
import static io.etcdoperator.operator.plan.TlsMovesTest.urls;
import static io.etcdoperator.operator.plan.Views.NAME;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.PeerSecrets;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.model.TlsMove;
import io.etcdoperator.operator.observe.PodView;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Turning peer TLS off for a running cluster ({@link TlsMoves}, the move on in reverse), and a spec
 * that changes its mind in the middle of either move: which step the world says the move is at, and
 * what the planner does there. The targets are composed as the observation composes them: with the
 * move's step, and the peer Secrets the members ran while a step serves https.
 */
class TlsMovesOffTest {
  static final PeerSecrets KEPT = new PeerSecrets("peer-tls", "peer-ca", List.of());
  static final String STEP_1 = "https://[::]:2380,http://[::]:2382";
  static final String STEP_3 = "http://[::]:2380,http://[::]:2382";

  /** http on the move port. */
  static String plainMoving(int ordinal) {
    return url("http", ordinal, 2382);
  }

  /**
   * The spec asks for no TLS; composed for {@code move}, keeping {@code kept} where it serves
   * https.
   */
  static Target plain(int replicas, TlsMove move, Optional<PeerSecrets> kept) {
    return Target.valid(
        Views.NS,
        NAME,
        7,
        new Target.Desired(
            replicas,
            Views.HASH,
            true,
            "token",
            "quay.io/coreos/etcd:v3.5.30",
            Target.ClaimPolicy.RETAIN,
            Optional.empty(),
            Security.of(null, move, kept)));
  }

  static Target plain(TlsMove move) {
    return plain(3, move, Optional.of(KEPT));
  }

  static Stream<Arguments> steps() {
    Target spec = Views.target(3);
    Target tls = Views.secure(3, false);
    return Stream.of(
        Arguments.of(
            "TLS turned off, every URL https :2380 on a peer Secret: step 1",
            spec,
            urls(https(0), https(1), https(2)).peerCertificate(PodView.PeerCertificate.FILE),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "composed with the kept Secrets, pods rolled: still step 1",
            plain(TlsMove.HTTPS_AND_HTTP),
            listening(urls(https(0), https(1), https(2)), STEP_1),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "one URL moved to http :2382: step 2",
            plain(TlsMove.HTTPS_AND_HTTP),
            urls(plainMoving(0), https(1), https(2)),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "every URL http :2382: step 3, no certificate needed",
            spec,
            urls(plainMoving(0), plainMoving(1), plainMoving(2)),
            TlsMove.HTTP_ON_BOTH_PORTS),
        Arguments.of(
            "one URL back on http :2380: step 4",
            spec,
            urls(http(0), plainMoving(1), plainMoving(2)),
            TlsMove.HTTP_ON_BOTH_PORTS),
        Arguments.of(
            "every URL http :2380: moved", spec, urls(http(0), http(1), http(2)), TlsMove.NONE),
        Arguments.of(
            "no member list, the record https, pods on the peer Secret: step 1",
            spec,
            Views.healthy(3)
                .memberListUnknown()
                .recordedPeerUrls(https(0), https(1), https(2))
                .peerCertificate(PodView.PeerCertificate.FILE),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "no member list, the record https, every pod gone: the StatefulSet still mounts the"
                + " peer Secret, so the move off, not etcd's own certificates",
            plain(3, TlsMove.NONE, Optional.of(KEPT)),
            Views.healthy(3)
                .memberListUnknown()
                .recordedPeerUrls(https(0), https(1), https(2))
                .noPod(0)
                .noPod(1)
                .noPod(2),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "the same without the StatefulSet's word: taken for etcd's own certificates",
            spec,
            Views.healthy(3)
                .memberListUnknown()
                .recordedPeerUrls(https(0), https(1), https(2))
                .noPod(0)
                .noPod(1)
                .noPod(2),
            TlsMove.AUTO_TLS),
        Arguments.of(
            "no member list nor record, pods on step 1 and step 3 listeners: step 1 (serves both)",
            spec,
            listening(Views.healthy(3).memberListUnknown().noClusterState(), STEP_3)
                .peerListen(0, STEP_1),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "no member list nor record, pods on step 3's listeners: step 3",
            spec,
            listening(Views.healthy(3).memberListUnknown().noClusterState(), STEP_3),
            TlsMove.HTTP_ON_BOTH_PORTS),
        Arguments.of(
            "turned off half way on: http :2380 and https :2382 stay served, walk back",
            spec,
            urls(moving(0), http(1), http(2)),
            TlsMove.HTTP_AND_HTTPS),
        Arguments.of(
            "turned off at step 3 of the way on: https on both ports stays",
            spec,
            urls(https(0), moving(1), moving(2)).peerCertificate(PodView.PeerCertificate.FILE),
            TlsMove.HTTPS_ON_BOTH_PORTS),
        Arguments.of(
            "turned on again half way off: https :2380 and http :2382 stay served",
            tls,
            urls(plainMoving(0), https(1), https(2)),
            TlsMove.HTTPS_AND_HTTP),
        Arguments.of(
            "turned on again at step 3 of the way off: http on both ports stays",
            tls,
            urls(plainMoving(0), plainMoving(1), http(2)),
            TlsMove.HTTP_ON_BOTH_PORTS),
        Arguments.of(
            "turned on again once every URL was http :2382: https :2380 beside them",
            tls,
            urls(plainMoving(0), plainMoving(1), plainMoving(2)),
            TlsMove.HTTPS_AND_HTTP));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("steps")
  void readsTheStepFromTheWorld(String name, Target target, Views view, TlsMove expected) {
    assertThat(TlsMoves.of(target, view.build())).isEqualTo(expected);
  }

  static Stream<Arguments> plans() {
    Target tls = Views.secure(3, false);
    Views rolled = urls(https(0), https(1), https(2)).peerCertificate(PodView.PeerCertificate.FILE);
    return Stream.of(
        Arguments.of(
            "step 1: pods on the TLS template roll onto both schemes, a follower first",
            plain(TlsMove.HTTPS_AND_HTTP),
            urls(https(0), https(1), https(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0")
                .peerCertificate(PodView.PeerCertificate.FILE),
            "MovePeers",
            delete("rolling update", 2),
            "False/MovingOffTls"),
        Arguments.of(
            "step 2: every pod serves both: the first URL moves to http :2382",
            plain(TlsMove.HTTPS_AND_HTTP),
            rolled,
            "MovePeers",
            update(0, https(0), plainMoving(0)),
            "False/MovingOffTls"),
        Arguments.of(
            "step 2: a member down: wait",
            plain(TlsMove.HTTPS_AND_HTTP),
            urls(plainMoving(0), https(1), https(2)).down(2),
            "MovePeers",
            new Step.Wait(
                Names.member(NAME, 2) + " to be healthy before the next peer URL moves off TLS"),
            "False/MovingOffTls"),
        Arguments.of(
            "step 3: every URL http :2382, pods on step 1's template: roll",
            plain(TlsMove.HTTP_ON_BOTH_PORTS),
            urls(plainMoving(0), plainMoving(1), plainMoving(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            "MovePeers",
            delete("rolling update", 2),
            "False/MovingOffTls"),
        Arguments.of(
            "step 4: the first URL back to http :2380",
            plain(TlsMove.HTTP_ON_BOTH_PORTS),
            urls(plainMoving(0), plainMoving(1), plainMoving(2)),
            "MovePeers",
            update(0, plainMoving(0), http(0)),
            "False/MovingOffTls"),
        Arguments.of(
            "step 5: every URL http :2380: an ordinary roll onto the spec's template",
            Views.target(3),
            urls(http(0), http(1), http(2))
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            "RollFollower",
            delete("rolling update", 2),
            "False/RollingUpdate"),
        Arguments.of(
            "the peer Secret the members run is gone: refused, nothing touched, named",
            plain(
                3,
                TlsMove.HTTPS_AND_HTTP,
                Optional.of(new PeerSecrets("peer-tls", "peer-ca", List.of("peer-tls")))),
            rolled,
            "TlsModeChanged",
            new Step.None(),
            "False/TlsModeChanged"),
        Arguments.of(
            "no object names the peer Secret: refused, nothing touched",
            plain(3, TlsMove.HTTPS_AND_HTTP, Optional.empty()),
            rolled,
            "TlsModeChanged",
            new Step.None(),
            "False/TlsModeChanged"),
        Arguments.of(
            "turned off half way on: the member on https :2382 goes back to http :2380",
            plain(TlsMove.HTTP_AND_HTTPS),
            urls(moving(0), http(1), http(2)),
            "MovePeers",
            update(0, moving(0), http(0)),
            "False/MovingOffTls"),
        Arguments.of(
            "turned off at step 4 of the way on: gather on https :2380 first",
            plain(TlsMove.HTTPS_ON_BOTH_PORTS),
            urls(https(0), moving(1), moving(2)),
            "MovePeers",
            update(1, moving(1), https(1)),
            "False/MovingOffTls"),
        Arguments.of(
            "turned on again half way off: the member on http :2382 straight to https :2380",
            tls,
            urls(plainMoving(0), https(1), https(2)),
            "MovePeers",
            update(0, plainMoving(0), https(0)),
            "False/MovingToTls"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("plans")
  void movesOneSafeStepAtATime(
      String name, Target target, Views view, String rule, Step step, String ready) {
    TlsMovesTest.assertPlan(target, view, rule, step, ready);
  }

  @Test
  void aRefusalNamesTheMissingSecretAndWhatToDo() {
    Plan plan =
        Planner.plan(
            plain(
                3,
                TlsMove.HTTPS_AND_HTTP,
                Optional.of(new PeerSecrets("peer-tls", "peer-ca", List.of("peer-ca")))),
            urls(https(0), https(1), https(2))
                .peerCertificate(PodView.PeerCertificate.FILE)
                .build());
    assertThat(PlannerTest.message(plan, Conditions.READY))
        .contains("spec.security.tls", "Secret peer-ca", "does not exist", "create it again");
  }
}
