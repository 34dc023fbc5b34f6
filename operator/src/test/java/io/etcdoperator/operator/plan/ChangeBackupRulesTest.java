package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.PlannerTest.condition;
import static io.etcdoperator.operator.plan.PlannerTest.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.PVCBackupDestination;
import io.etcdoperator.operator.model.ChangeBackups;
import io.etcdoperator.operator.model.ChangeBackups.Policy;
import io.etcdoperator.operator.model.ChangeBackups.Seen;
import io.etcdoperator.operator.model.Target;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The backup before an upgrade or a scale to 0 ({@link ChangeBackupRules}), as a table: what the
 * schedule, the policy and the backup's phase make the planner do, and that the StatefulSet is left
 * as it is (no pod gets the new template, none stops) until the backup allows the change.
 */
class ChangeBackupRulesTest {
  static final String UPGRADE_BACKUP = "test-before-upgrade-3-5-30-g7";
  static final String HIBERNATION_BACKUP = "test-before-hibernation-g7";
  static final String TO_3_5 = "quay.io/coreos/etcd:v3.5.30";

  static BackupDestination destination() {
    BackupDestination d = new BackupDestination();
    PVCBackupDestination pvc = new PVCBackupDestination();
    pvc.setClaimName("backups");
    d.setPvc(pvc);
    return d;
  }

  /** A schedule "nightly" names the cluster; {@code backups}: the cluster's EtcdBackups. */
  static ChangeBackups scheduled(Policy policy, Map<String, Seen> backups) {
    return new ChangeBackups(policy, Optional.of("nightly"), Optional.of(destination()), backups);
  }

  static Target upgrade(ChangeBackups b) {
    return Views.target(3, TO_3_5).withChangeBackups(b);
  }

  static Target hibernate(ChangeBackups b) {
    return Views.target(0).withChangeBackups(b);
  }

  /** Three healthy members on 3.4.23 whose pods run the old template. */
  static Views on34() {
    return Views.healthy(3)
        .version("3.4.23")
        .clusterVersion("3.4.0")
        .podWithHash(0, "h0")
        .podWithHash(1, "h0")
        .podWithHash(2, "h0");
  }

  static Arguments row(
      String description,
      Target target,
      Views views,
      String rule,
      Step step,
      boolean statefulSetLeft,
      String progressing) {
    return Arguments.of(description, target, views, rule, step, statefulSetLeft, progressing);
  }

  static Stream<Arguments> rows() {
    Step.CreateBackup createUpgrade =
        new Step.CreateBackup(
            UPGRADE_BACKUP, "nightly", destination(), "the upgrade to etcd 3.5.30", "upgrade");
    return Stream.of(
        row(
            "an upgrade no member started, a schedule: take the backup, keep the StatefulSet",
            upgrade(scheduled(Policy.REQUIRED, Map.of())),
            on34(),
            "BackupBeforeChange",
            createUpgrade,
            true,
            "True/BackingUpBeforeChange"),
        row(
            "the backup created and not finished: wait, the StatefulSet kept",
            upgrade(scheduled(Policy.REQUIRED, Map.of(UPGRADE_BACKUP, new Seen("Started", "")))),
            on34(),
            "BackupBeforeChange",
            new Step.Wait(
                "EtcdBackup "
                    + UPGRADE_BACKUP
                    + " to complete before the upgrade to etcd 3.5.30 (now Started)"),
            true,
            "True/BackingUpBeforeChange"),
        row(
            "the backup complete: the upgrade's roll begins",
            upgrade(scheduled(Policy.REQUIRED, Map.of(UPGRADE_BACKUP, new Seen("Complete", "")))),
            on34(),
            "RollFollower",
            PlannerTest.delete("rolling update", 2),
            false,
            "True/RollingUpdate"),
        row(
            "the backup failed, Required: the upgrade is held, nothing restarts",
            upgrade(
                scheduled(
                    Policy.REQUIRED,
                    Map.of(UPGRADE_BACKUP, new Seen("Failed", "claim backups not found")))),
            on34(),
            "BackupBeforeChange",
            new Step.None(),
            true,
            "False/BackupBeforeChangeFailed"),
        row(
            "the backup failed, BestEffort: the upgrade goes on",
            upgrade(
                scheduled(
                    Policy.BEST_EFFORT,
                    Map.of(UPGRADE_BACKUP, new Seen("Failed", "claim backups not found")))),
            on34(),
            "RollFollower",
            PlannerTest.delete("rolling update", 2),
            false,
            "True/RollingUpdate"),
        row(
            "Never: no backup, the upgrade goes on",
            upgrade(scheduled(Policy.NEVER, Map.of())),
            on34(),
            "RollFollower",
            PlannerTest.delete("rolling update", 2),
            false,
            "True/RollingUpdate"),
        row(
            "no schedule names the cluster: no backup",
            upgrade(ChangeBackups.NONE),
            on34(),
            "RollFollower",
            PlannerTest.delete("rolling update", 2),
            false,
            "True/RollingUpdate"),
        row(
            "a member already runs 3.5.30: the upgrade started, no backup is taken in its middle",
            upgrade(scheduled(Policy.REQUIRED, Map.of())),
            on34().version(2, "3.5.30").podWithHash(2, Views.HASH),
            "RollFollower",
            PlannerTest.delete("rolling update", 1),
            false,
            "True/RollingUpdate"),
        row(
            "another generation's backup complete: this change is backed up anew",
            upgrade(
                scheduled(
                    Policy.REQUIRED,
                    Map.of("test-before-upgrade-3-5-30-g6", new Seen("Complete", "")))),
            on34(),
            "BackupBeforeChange",
            createUpgrade,
            true,
            "True/BackingUpBeforeChange"),
        row(
            "no version change: nothing to back up",
            Views.target(3).withChangeBackups(scheduled(Policy.REQUIRED, Map.of())),
            Views.healthy(3),
            "InSync",
            new Step.None(),
            false,
            "False/Reconciled"),
        row(
            "scaled to 0 with members running: the backup first, every member kept running",
            hibernate(scheduled(Policy.REQUIRED, Map.of())),
            Views.healthy(3),
            "BackupBeforeChange",
            new Step.CreateBackup(
                HIBERNATION_BACKUP, "nightly", destination(), "scaling to 0", "hibernation"),
            true,
            "True/BackingUpBeforeChange"),
        row(
            "scaled to 0, the backup complete: the members stop",
            hibernate(
                scheduled(Policy.REQUIRED, Map.of(HIBERNATION_BACKUP, new Seen("Complete", "")))),
            Views.healthy(3),
            "Hibernate",
            new Step.None(),
            false,
            "True/Hibernated"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void decides(
      String description,
      Target target,
      Views views,
      String rule,
      Step step,
      boolean statefulSetLeft,
      String progressing) {
    Plan plan = Planner.plan(target, views.build());
    assertThat(plan.rule()).isEqualTo(rule);
    assertThat(plan.step()).isEqualTo(step);
    assertThat(plan.statefulSetReplicas().isEmpty()).isEqualTo(statefulSetLeft);
    assertThat(condition(plan, Conditions.PROGRESSING)).isEqualTo(progressing);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failed")
  void aFailedBackupNamesItselfItsErrorAndTheWaysOn(String description, Target target) {
    Plan plan = Planner.plan(target, on34().build());
    assertThat(condition(plan, Conditions.DEGRADED)).isEqualTo("True/BackupBeforeChangeFailed");
    assertThat(condition(plan, Conditions.READY)).isEqualTo("False/BackupBeforeChangeFailed");
    assertThat(message(plan, Conditions.DEGRADED))
        .isEqualTo(
            "EtcdBackup "
                + UPGRADE_BACKUP
                + ", taken before the upgrade to etcd 3.5.30, failed (claim backups not found),"
                + " so the upgrade to etcd 3.5.30 waits and the members keep running as they"
                + " are; fix what the backup reports and delete EtcdBackup "
                + UPGRADE_BACKUP
                + " to take it again, or set spec.backupBeforeChanges: BestEffort to go on"
                + " without it");
  }

  static Stream<Arguments> failed() {
    return Stream.of(
        Arguments.of(
            "Required",
            upgrade(
                scheduled(
                    Policy.REQUIRED,
                    Map.of(UPGRADE_BACKUP, new Seen("Failed", "claim backups not found"))))));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("policies")
  void thePolicyIsReadFromTheField(String value, Policy policy) {
    assertThat(Policy.of(value)).isEqualTo(policy);
  }

  static Stream<Arguments> policies() {
    return Stream.of(
        Arguments.of(null, Policy.REQUIRED),
        Arguments.of("Required", Policy.REQUIRED),
        Arguments.of("BestEffort", Policy.BEST_EFFORT),
        Arguments.of("Never", Policy.NEVER));
  }
}
