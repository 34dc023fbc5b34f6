package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.Views.NAME;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.Names;
import java.util.OptionalInt;
import java.util.stream.Stream;
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
            "pods stopped: the claims of the members the rebuild drops go first, lowest first",
            stoppedFrom1(),
            new Step.DeleteClaim(
                0,
                Names.dataClaim(NAME, 0),
                "the rebuild keeps only test-1; member test-1 comes back new, on a fresh claim"
                    .replace("member test-1", "member test-0"))),
        Arguments.of(
            "a claim being deleted: wait for it",
            stoppedFrom1().claimTerminating(0).noClaim(2),
            new Step.Wait("claim " + Names.dataClaim(NAME, 0) + " to be deleted")),
        Arguments.of(
            "the survivor at the highest ordinal: the lower ones' claims go",
            new Views().statefulSet(0).clusterState(true, 3).rebuilding(2, UID).claim(1).claim(2),
            new Step.DeleteClaim(
                1,
                Names.dataClaim(NAME, 1),
                "the rebuild keeps only test-2; member test-1 comes back new, on a fresh claim")),
        Arguments.of(
            "only the survivor's claim left: start the rebuild pod on it",
            stoppedFrom1().noClaim(0).noClaim(2),
            new Step.CreateRebuildPod(1, Names.member(NAME, 1))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void stepsOfARebuild(String name, Views view, Step expected) {
    Plan plan = Planner.plan(opted(), view.build());
    assertThat(plan.step()).isEqualTo(expected);
    assertThat(plan.statefulSetReplicas()).isEqualTo(OptionalInt.of(0));
    assertThat(plan.status().getConditions())
        .anyMatch(c -> c.getType().equals("Available") && c.getReason().equals("Rebuilding"));
  }
}
