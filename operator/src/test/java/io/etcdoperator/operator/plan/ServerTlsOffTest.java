package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.PlannerTest.clientAs;
import static io.etcdoperator.operator.plan.PlannerTest.delete;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.ServerTlsRecord;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.tls.TlsReport;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Turning server TLS off for a running cluster: etcd's authentication off first, then an ordinary
 * roll onto http, the operator reaching the members not yet restarted with the Secrets the
 * cluster-state ConfigMap records ({@link ServerTlsRecord}); without the record, refused. And the
 * record itself: written while the spec names server TLS, kept while a pod still serves https,
 * dropped after.
 */
class ServerTlsOffTest {
  static final String RECORD =
      "serverSecret=server-tls,clientTrustedCASecret=client-ca,clientSecret=client-tls";

  /** A cluster that ran server TLS, each pod still serving https, the record on its ConfigMap. */
  static Views running() {
    return Views.healthy(3)
        .https()
        .tls(clientAs("root"))
        .clusterStateAnnotation(Names.SERVER_TLS_ANNOTATION, RECORD);
  }

  static Stream<Arguments> plans() {
    Target plain = Views.target(3);
    return Stream.of(
        Arguments.of(
            "authentication on: off first, nothing restarted",
            plain,
            running().authEnabled(true),
            "DisableAuthBeforeServerTlsOff",
            new Step.DisableAuth(),
            "False/DisablingAuth"),
        Arguments.of(
            "nobody said whether authentication is on: wait, nothing restarted",
            plain,
            running(),
            "DisableAuthBeforeServerTlsOff",
            new Step.Wait(
                "a member to say whether authentication is on, before the first member serves"
                    + " clients over http"),
            "False/DisablingAuth"),
        Arguments.of(
            "authentication off: an ordinary roll, a follower first",
            plain,
            running()
                .authEnabled(false)
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            "RollFollower",
            delete("rolling update", 2),
            "False/RollingUpdate"),
        Arguments.of(
            "no client certificate (authentication never on): the roll needs no answer",
            plain,
            Views.healthy(3)
                .https()
                .tls(
                    new TlsReport(
                        List.of(), List.of(), List.of(), Optional.empty(), "f1", Optional.empty()))
                .clusterStateAnnotation(Names.SERVER_TLS_ANNOTATION, RECORD)
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            "RollFollower",
            delete("rolling update", 2),
            "False/RollingUpdate"),
        Arguments.of(
            "no record of the Secrets: refused, nothing touched",
            plain,
            Views.healthy(3).https().tls(clientAs("root")).authEnabled(false),
            "TlsModeChanged",
            new Step.None(),
            "False/TlsModeChanged"),
        Arguments.of(
            "a record that names no server Secret is none: refused",
            plain,
            Views.healthy(3)
                .https()
                .clusterStateAnnotation(Names.SERVER_TLS_ANNOTATION, "clientSecret=client-tls"),
            "TlsModeChanged",
            new Step.None(),
            "False/TlsModeChanged"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("plans")
  void authOffFirstThenAnOrdinaryRoll(
      String name, Target target, Views view, String rule, Step step, String ready) {
    TlsMovesTest.assertPlan(target, view, rule, step, ready);
  }

  static Optional<String> recorded(Target target, Views view) {
    return Planner.plan(target, view.build())
        .decision()
        .keep()
        .clusterState()
        .orElseThrow()
        .annotation(Names.SERVER_TLS_ANNOTATION);
  }

  @Test
  void theRecordIsTheSpecsWhileItNamesServerTlsAndKeptOnlyWhileAPodServesHttps() {
    assertThat(recorded(Views.secure(3, true), Views.healthy(3).https().tls(clientAs("root"))))
        .as("written from the spec")
        .contains(
            "serverSecret=server-tls,clientTrustedCASecret=client-ca,clientSecret=client-tls");
    assertThat(
            recorded(
                Views.secure(3, true),
                Views.healthy(3)
                    .https()
                    .tls(clientAs("root"))
                    .clusterStateAnnotation(Names.SERVER_TLS_ANNOTATION, "serverSecret=old")))
        .as("the spec's names replace an older record")
        .contains(
            "serverSecret=server-tls,clientTrustedCASecret=client-ca,clientSecret=client-tls");
    Views halfRolled =
        Views.healthy(3)
            .tls(clientAs("root"))
            .authEnabled(false)
            .clientScheme(0, "https")
            .clusterStateAnnotation(Names.SERVER_TLS_ANNOTATION, RECORD);
    assertThat(recorded(Views.target(3), halfRolled))
        .as("kept while member 0 still serves https")
        .contains(RECORD);
    assertThat(
            recorded(
                Views.target(3),
                Views.healthy(3).clusterStateAnnotation(Names.SERVER_TLS_ANNOTATION, RECORD)))
        .as("dropped once every pod serves http")
        .isEmpty();
    assertThat(recorded(Views.target(3), Views.healthy(3))).as("never without TLS").isEmpty();
  }

  @Test
  void theRefusalNamesTheConfigMapTheAnnotationAndWhatToDo() {
    Plan plan =
        Planner.plan(Views.target(3), Views.healthy(3).https().tls(clientAs("root")).build());
    assertThat(PlannerTest.message(plan, Conditions.READY))
        .contains(
            "spec.security.tls.serverSecret",
            Names.clusterStateConfigMap(Views.NAME),
            Names.SERVER_TLS_ANNOTATION,
            "set spec.security.tls back");
  }

  @Test
  void theRecordRoundTripsAndOmitsWhatTheSpecLeftOut() {
    ServerTlsRecord full =
        new ServerTlsRecord(
            "server", Optional.of("server-ca"), Optional.of("client-ca"), Optional.of("client"));
    assertThat(ServerTlsRecord.parse(full.annotation())).contains(full);
    ServerTlsRecord bare =
        new ServerTlsRecord("server", Optional.empty(), Optional.empty(), Optional.empty());
    assertThat(bare.annotation()).isEqualTo("serverSecret=server");
    assertThat(ServerTlsRecord.parse("serverSecret=server")).contains(bare);
    assertThat(ServerTlsRecord.parse(null)).isEmpty();
    assertThat(ServerTlsRecord.parse("")).isEmpty();
    assertThat(ServerTlsRecord.parse("serverSecret=")).isEmpty();
    assertThat(ServerTlsRecord.parse("clientSecret=client")).isEmpty();
    assertThat(bare.security().serverTls()).isTrue();
    assertThat(bare.security().peerTls()).isFalse();
    assertThat(full.security().auth()).isFalse();
    assertThat(full.security().operatorTrustSecret()).contains("server-ca");
  }
}
