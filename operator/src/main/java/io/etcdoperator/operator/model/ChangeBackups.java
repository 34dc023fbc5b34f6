package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import java.util.Map;
import java.util.Optional;

/**
 * What the planner needs to back a cluster up before a change it cannot take back (a version
 * upgrade, scaling to 0): what {@code spec.backupBeforeChanges} says, where backups of this cluster
 * go (the destination of the first EtcdBackupSchedule by name that names it), and the cluster's
 * EtcdBackups as the operator's cache shows them. The rule that uses it is {@code
 * io.etcdoperator.operator.plan.ChangeBackupRules}.
 *
 * @param policy what spec.backupBeforeChanges says
 * @param schedule the schedule whose destination is used; empty: no schedule names the cluster
 * @param destination that schedule's destination
 * @param backups this cluster's EtcdBackups by name
 */
public record ChangeBackups(
    Policy policy,
    Optional<String> schedule,
    Optional<BackupDestination> destination,
    Map<String, Seen> backups) {
  /** No schedule and no backups: nothing is taken. */
  public static final ChangeBackups NONE =
      new ChangeBackups(Policy.REQUIRED, Optional.empty(), Optional.empty(), Map.of());

  public ChangeBackups {
    backups = Map.copyOf(backups);
  }

  /** spec.backupBeforeChanges. */
  public enum Policy {
    /** Take it, wait for it, and hold the change while it failed (the default). */
    REQUIRED,
    /** Take it, wait for it, and go on whether it failed or not. */
    BEST_EFFORT,
    /** Take none. */
    NEVER;

    /** The field's value; absent or unknown (the CRD admits no other) is the default. */
    public static Policy of(String value) {
      if ("BestEffort".equals(value)) {
        return BEST_EFFORT;
      }
      return "Never".equals(value) ? NEVER : REQUIRED;
    }
  }

  /**
   * One EtcdBackup as the cache shows it.
   *
   * @param phase status.phase (empty until the backup controller wrote it)
   * @param message status.message, why it failed
   */
  public record Seen(String phase, String message) {}

  /** Whether a backup is taken before changes: a schedule names the cluster and policy allows. */
  public boolean wanted() {
    return policy != Policy.NEVER && destination.isPresent();
  }
}
