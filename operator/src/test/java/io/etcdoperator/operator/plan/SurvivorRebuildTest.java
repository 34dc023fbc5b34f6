package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.Views.NAME;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.status.StatusRenderer;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A rebuild from a survivor in progress (recorded in the cluster-state ConfigMap, the opt-in still
 * on the resource): every member pod stopped, then the other members' claims deleted, then the
 * rebuild pod; the StatefulSet at 0 throughout.
 */
class SurvivorRebuildTest {
  static final String UID = "0000-uid";

  static Target opted() {
    return Views.target(3).withRebuild(Target.Rebuild.of(UID, UID));
  }

  /** Survivor test-1: its pods stopped (the StatefulSet at 0), every claim still there. */
  static Views stoppedFrom1() {
    return new Views()
        .statefulSet(0)
        .clusterState(true, 3)
        .rebuilding(1, UID)
        .claim(0)
        .claim(1)
        .claim(2);
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        Arguments.of(
            "member pods still run: wait for them to stop",
            stoppedFrom1().pod(0, true, false).pod(2, false, false),
            new Step.Wait("every member pod to stop")),
        Arguments.of(
            "pods stopped: the rebuild pod is started before anything is deleted",
            stoppedFrom1(),
            new Step.CreateRebuildPod(1, Names.member(NAME, 1))),
        Arguments.of(
            "the rebuild pod leads alone: the claims of the members it dropped go, lowest first",
            stoppedFrom1().rebuildPod(1, true),
            new Step.DeleteClaim(
                0,
                Names.dataClaim(NAME, 0),
                "the rebuild keeps only test-1; member test-0 comes back new, on a fresh claim")),
        Arguments.of(
            "the rebuild pod not leading yet: nothing is deleted",
            stoppedFrom1().rebuildPod(1, false),
            new Step.Wait("the rebuild pod to lead a cluster of its own")),
        Arguments.of(
            "a claim being deleted: wait for it",
            stoppedFrom1().rebuildPod(1, true).claimTerminating(0).noClaim(2),
            new Step.Wait("claim " + Names.dataClaim(NAME, 0) + " to be deleted")),
        Arguments.of(
            "the survivor at the highest ordinal: the lower ones' claims go",
            new Views()
                .statefulSet(0)
                .clusterState(true, 3)
                .rebuilding(2, UID)
                .claim(1)
                .claim(2)
                .rebuildPod(2, true),
            new Step.DeleteClaim(
                1,
                Names.dataClaim(NAME, 1),
                "the rebuild keeps only test-2; member test-1 comes back new, on a fresh claim")),
        Arguments.of(
            "only the survivor's claim left and the rebuild pod leads: record it, stop the pod",
            stoppedFrom1().noClaim(0).noClaim(2).rebuildPod(1, true),
            new Step.DeleteRebuildPod("the rebuild is done")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void stepsOfARebuild(String name, Views view, Step expected) {
    Plan plan = Planner.plan(opted(), view.build());
    assertThat(plan.step()).isEqualTo(expected);
    assertThat(plan.statefulSetReplicas()).isEqualTo(OptionalInt.of(0));
    assertThat(StatusRenderer.render(plan).getConditions())
        .anyMatch(c -> c.getType().equals("Available") && c.getReason().equals("Rebuilding"));
  }

  static final String PANIC =
      "raft: tocommit(9) is out of range [lastIndex(0)]. Was the raft log corrupted, truncated,"
          + " or lost?";

  /** Five members: 0, 1 and 2 wiped (their pods panicked, down); 3 and 4 answer, no leader. */
  static Views threeOfFiveWiped() {
    return Views.healthy(5)
        .down(0)
        .down(1)
        .down(2)
        .lastTermination(0, PANIC)
        .lastTermination(1, PANIC)
        .lastTermination(2, PANIC)
        .noLeader();
  }

  static Condition available(Plan plan) {
    return StatusRenderer.render(plan).getConditions().stream()
        .filter(c -> c.getType().equals("Available"))
        .findFirst()
        .orElseThrow();
  }

  static Stream<Arguments> survivors() {
    return Stream.of(
        Arguments.of(
            "the later term wins over the longer log",
            threeOfFiveWiped().raftTermAndIndex(3, 7, 120).raftTermAndIndex(4, 8, 100),
            "test-4 holds the most advanced data (raft term 8, index 100)"),
        Arguments.of(
            "the same term: the longer log",
            threeOfFiveWiped().raftTermAndIndex(3, 8, 120).raftTermAndIndex(4, 8, 100),
            "test-3 holds the most advanced data (raft term 8, index 120)"),
        Arguments.of(
            "all equal: the lowest ordinal",
            threeOfFiveWiped().raftTermAndIndex(3, 8, 100).raftTermAndIndex(4, 8, 100),
            "test-3 holds the most advanced data (raft term 8, index 100)"),
        Arguments.of(
            "a survivor answers only on its metrics: no term, the index alone",
            threeOfFiveWiped().onlyMetrics(3, 150).raftTermAndIndex(4, 9, 100),
            "test-3 holds the most advanced data (raft index 150; a survivor tells no raft term)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("survivors")
  void aMajorityThatLostItsDataIsReportedNamingTheMostAdvancedSurvivor(
      String name, Views view, String survivor) {
    Plan plan = Planner.plan(Views.target(5), view.build());
    Condition a = available(plan);
    assertThat(a.getReason()).isEqualTo("MajorityDataLost");
    assertThat(a.getMessage())
        .contains("members test-0, test-1, test-2 lost their data")
        .contains(survivor)
        .contains("destroys nothing and starts no new cluster");
    assertThat(plan.step()).isEqualTo(new Step.None());
    assertThat(plan.statefulSetReplicas()).isEqualTo(OptionalInt.of(5));
  }

  @Test
  void withTheOptInTheRebuildIsRecordedFromTheSurvivorWithTheHighestTermAndIndex() {
    Target opted = Views.target(5).withRebuild(Target.Rebuild.of(UID, UID));
    Plan plan =
        Planner.plan(
            opted,
            threeOfFiveWiped().raftTermAndIndex(3, 7, 120).raftTermAndIndex(4, 8, 100).build());
    assertThat(available(plan).getReason()).isEqualTo("Rebuilding");
    assertThat(plan.clusterState().orElseThrow().annotations())
        .containsEntry(Names.REBUILDING_ANNOTATION, UID)
        .containsEntry(Names.REBUILDING_FROM_ANNOTATION, "test-4");
    assertThat(plan.step()).isEqualTo(new Step.None());
  }
}
