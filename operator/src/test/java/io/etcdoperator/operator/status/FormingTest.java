package io.etcdoperator.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.status.Transitions.Notice;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FormingTest {
  static final String LOST =
      "quorum lost: 1 of 3 voters healthy, 2 needed; missing: b-0 (not answering), b-2 (no pod)";

  /** A status of four conditions, each "Type=Status/Reason". */
  static EtcdClusterStatus status(String reason, String... conditions) {
    EtcdClusterStatus s = new EtcdClusterStatus();
    List<Condition> list = new ArrayList<>();
    for (String c : conditions) {
      String[] typeRest = c.split("=");
      String[] statusReason = typeRest[1].split("/");
      list.add(
          new ConditionBuilder()
              .withType(typeRest[0])
              .withStatus(statusReason[0])
              .withReason(statusReason[1])
              .withMessage(statusReason[1].equals("QuorumLost") ? LOST : reason + " message")
              .build());
    }
    s.setConditions(list);
    return s;
  }

  static EtcdClusterStatus lost(String progressing) {
    return status(
        "QuorumLost",
        "Available=False/QuorumLost",
        "Ready=False/QuorumLost",
        "Progressing=" + progressing,
        "Degraded=True/QuorumLost");
  }

  static EtcdClusterStatus was(String availableReason) {
    return status(
        availableReason,
        "Available=False/" + availableReason,
        "Ready=False/" + availableReason,
        "Progressing=True/" + availableReason,
        "Degraded=False/" + availableReason);
  }

  static String render(EtcdClusterStatus s) {
    return s.getConditions().stream()
        .map(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .collect(Collectors.joining(" "));
  }

  static Stream<Arguments> cases() {
    String forming =
        "Available=False/Bootstrapping Ready=False/Bootstrapping Progressing=True/Bootstrapping"
            + " Degraded=False/Bootstrapping";
    String asDecided =
        "Available=False/QuorumLost Ready=False/QuorumLost Progressing=False/QuorumLost"
            + " Degraded=True/QuorumLost";
    return Stream.of(
        // the status last written said the cluster was forming: it still is, and formed
        Arguments.of("bootstrapping, then a member answers", was("Bootstrapping"), forming),
        // it was seen whole (or lost before): a loss is a loss
        Arguments.of("held before", was("QuorumHeld"), asDecided),
        Arguments.of("lost before", was("QuorumLost"), asDecided),
        // no status yet: a cluster found formed (a reinstalled operator) is judged as it is
        Arguments.of("no status before", null, asDecided),
        // waking from hibernation says WakingUp through Transitions, from its own reason
        Arguments.of("hibernated before", was("Hibernated"), asDecided),
        Arguments.of("cannot reach before", was("CannotReachMembers"), asDecided));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void quorumLostRightAfterABootstrapIsStillForming(
      String name, EtcdClusterStatus previous, String expected) {
    assertThat(render(Forming.apply(previous, lost("False/QuorumLost")))).isEqualTo(expected);
  }

  @Test
  void theMessageSaysTheClusterFormedAndWhoHasNotAnswered() {
    EtcdClusterStatus s = Forming.apply(was("Bootstrapping"), lost("False/QuorumLost"));
    assertThat(s.getConditions())
        .allSatisfy(
            c ->
                assertThat(c.getMessage())
                    .isEqualTo(
                        "the cluster formed, but a majority has not answered yet: 1 of 3 voters"
                            + " healthy, 2 needed; missing: b-0 (not answering), b-2 (no pod)"));
  }

  @Test
  void aStepTakenMeanwhileKeepsItsMessage() {
    EtcdClusterStatus computed = lost("True/QuorumLost");
    computed.getConditions().get(2).setMessage("deleting pods b-1: their template changed");
    Condition progressing = Forming.apply(was("Bootstrapping"), computed).getConditions().get(2);
    assertThat(progressing.getReason()).isEqualTo("Bootstrapping");
    assertThat(progressing.getMessage()).isEqualTo("deleting pods b-1: their template changed");
  }

  @Test
  void aFailedStepIsLeftAsItWasReported() {
    EtcdClusterStatus computed = lost("False/ApiRefused");
    Condition progressing = Forming.apply(was("Bootstrapping"), computed).getConditions().get(2);
    assertThat(progressing.getStatus() + "/" + progressing.getReason())
        .isEqualTo("False/ApiRefused");
  }

  @Test
  void quorumSeenAfterIsBootstrapFinishedWithoutAnAlarmOnTheWay() {
    EtcdClusterStatus bootstrapping = was("Bootstrapping");
    EtcdClusterStatus formed = Forming.apply(bootstrapping, lost("False/QuorumLost"));
    EtcdClusterStatus held =
        status(
            "QuorumHeld",
            "Available=True/QuorumHeld",
            "Ready=True/AllMembersReady",
            "Progressing=False/QuorumHeld",
            "Degraded=False/AllMembersHealthy");
    assertThat(Transitions.between(bootstrapping, formed)).isEmpty();
    assertThat(Transitions.between(formed, held))
        .extracting(Notice::reason)
        .containsExactly("BootstrapFinished");
    // once seen whole, the next loss is told loudly
    EtcdClusterStatus lostLater = Forming.apply(held, lost("False/QuorumLost"));
    assertThat(Transitions.between(held, lostLater))
        .extracting(Notice::reason)
        .containsExactly("QuorumLost");
  }
}
