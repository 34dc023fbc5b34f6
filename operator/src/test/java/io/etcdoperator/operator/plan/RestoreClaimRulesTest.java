package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.PlannerTest.condition;
import static io.etcdoperator.operator.plan.PlannerTest.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.SourceClaim;
import io.etcdoperator.operator.model.Target;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A restore from a claim ({@link RestoreClaimRules}): what the claim's access modes allow. */
class RestoreClaimRulesTest {
  static SourceClaim claim(String... modes) {
    return new SourceClaim("backups", true, List.of(modes));
  }

  static Target restoring(int replicas, SourceClaim c) {
    return Views.target(replicas).withRestoreClaim(Optional.of(c));
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        Arguments.of(
            "3 members from a ReadWriteOnce claim, before forming: refused",
            restoring(3, claim("ReadWriteOnce")),
            Views.fresh(),
            "RestoreClaimUnusable",
            "False/RestoreSourceUnusable"),
        Arguments.of(
            "3 members from a ReadWriteOncePod claim: refused",
            restoring(3, claim("ReadWriteOncePod")),
            Views.fresh(),
            "RestoreClaimUnusable",
            "False/RestoreSourceUnusable"),
        Arguments.of(
            "a missing claim: refused, nothing created",
            restoring(1, new SourceClaim("backups", false, List.of())),
            Views.fresh(),
            "RestoreClaimUnusable",
            "False/RestoreSourceUnusable"),
        Arguments.of(
            "1 member from a ReadWriteOnce claim: bootstraps",
            restoring(1, claim("ReadWriteOnce")),
            Views.fresh(),
            "Bootstrap",
            "False/Bootstrapping"),
        Arguments.of(
            "3 members from a ReadOnlyMany claim: bootstraps",
            restoring(3, claim("ReadOnlyMany")),
            Views.fresh(),
            "Bootstrap",
            "False/Bootstrapping"),
        Arguments.of(
            "3 members from a claim that is ReadWriteOnce and ReadWriteMany: bootstraps",
            restoring(3, claim("ReadWriteOnce", "ReadWriteMany")),
            Views.fresh(),
            "Bootstrap",
            "False/Bootstrapping"),
        Arguments.of(
            "formed on one member from a ReadWriteOnce claim, 3 wanted: the scale-up is held",
            restoring(3, claim("ReadWriteOnce")),
            Views.healthy(1),
            "RestoreClaimHoldsScaleUp",
            "False/RestoreSourceUnusable"),
        Arguments.of(
            "formed, 3 members from a ReadWriteOnce claim (they share a node): left running",
            restoring(3, claim("ReadWriteOnce")),
            Views.healthy(3),
            "InSync",
            "True/AllMembersReady"),
        Arguments.of(
            "formed on one member from a ReadWriteMany claim, 3 wanted: scales up",
            restoring(3, claim("ReadWriteMany")),
            Views.healthy(1),
            "ScaleUp",
            "False/ScalingUp"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void decides(String description, Target target, Views views, String rule, String ready) {
    Plan plan = Planner.plan(target, views.build());
    assertThat(plan.rule()).isEqualTo(rule);
    assertThat(condition(plan, Conditions.READY)).isEqualTo(ready);
    if (rule.startsWith("RestoreClaim")) {
      assertThat(plan.step()).isEqualTo(new Step.None());
    }
    if (rule.equals("RestoreClaimUnusable")) {
      assertThat(plan.manageObjects()).isFalse();
      assertThat(plan.statefulSetReplicas()).isEmpty();
    }
    if (rule.equals("RestoreClaimHoldsScaleUp")) {
      assertThat(plan.statefulSetReplicas()).hasValue(1);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("messages")
  void refusalsNameTheFieldAndTheWaysOn(String description, Target target, Views views, String m) {
    Plan plan = Planner.plan(target, views.build());
    assertThat(message(plan, Conditions.READY)).isEqualTo(m);
  }

  static Stream<Arguments> messages() {
    String ways =
        " use a ReadOnlyMany or ReadWriteMany claim, restore from S3"
            + " (spec.bootstrap.restore.source.s3), or restore one member (spec.replicas: 1), then"
            + " remove spec.bootstrap.restore and scale up";
    return Stream.of(
        Arguments.of(
            "one node only, before forming",
            restoring(3, claim("ReadWriteOnce")),
            Views.fresh(),
            "spec.bootstrap.restore.source.pvc.claimName: claim backups is ReadWriteOnce, so only"
                + " one node can mount it, and 3 members' pods would mount it on other nodes"
                + " too;"
                + ways),
        Arguments.of(
            "missing",
            restoring(1, new SourceClaim("backups", false, List.of())),
            Views.fresh(),
            "spec.bootstrap.restore.source.pvc.claimName: claim backups does not exist in"
                + " namespace default; create it with the snapshot, or name the claim that holds"
                + " it"));
  }
}
