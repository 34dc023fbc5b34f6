package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.EtcdBackupScheduleStatus;
import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.operator.model.Conditions;
import io.etcdoperator.operator.model.Cron;
import io.etcdoperator.operator.model.Durations;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Decides what one EtcdBackupSchedule does now, and its status. Pure.
 *
 * <h2>The algorithm</h2>
 *
 * <ol>
 *   <li>An invalid spec (schedule, destination, clusterRef): report it; create and delete nothing.
 *   <li>The last firing due: the latest firing after the last one handled (the newest {@code
 *       scheduled-at} of the schedule's backups, or {@code status.lastScheduleTime}, or the
 *       schedule's creation) and not after now. Firings missed while the operator was away are not
 *       made up: one backup, for the latest.
 *   <li>A continuous schedule that has never fired (no backup, no {@code lastScheduleTime}) takes
 *       its first backup now, as if a firing were due: the change log is replayed onto a full
 *       backup, so until there is one nothing the archiver keeps can be restored, and a daily
 *       schedule would leave the first day unprotected. Its firing is the schedule's creation, so
 *       that every reconcile until it is seen names the same backup.
 *   <li>If one is due and one of the schedule's backups is still Pending or Started, the firing is
 *       skipped (Kubernetes CronJob's {@code concurrencyPolicy: Forbid}): it is recorded as handled
 *       and nothing is created. Otherwise a backup named {@code <schedule>-<yyyyMMddHHmm>} (the
 *       firing, UTC) is created: the name makes creating it twice impossible.
 *   <li>Retention, over the schedule's finished backups, newest first: Complete ones beyond {@code
 *       retention.keepLast} (else {@code successfulJobsHistoryLimit}, default 3), or completed
 *       longer ago than {@code retention.keepFor}, are deleted, but never the newest Complete one;
 *       Failed ones beyond {@code failedJobsHistoryLimit} (default 1). Their data goes with them
 *       (they carry the delete-data annotation).
 *   <li>Look again at the next firing (at most {@link #MAX_WAIT} away).
 * </ol>
 */
public final class SchedulePlan {
  static final Duration MAX_WAIT = Duration.ofMinutes(5);
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC);

  private SchedulePlan() {}

  /**
   * One backup of the schedule.
   *
   * @param name its name
   * @param scheduledAt the firing it was created for
   * @param phase its status phase (null: not reported yet)
   * @param completedAt when it became Complete or Failed
   * @param reason the reason of its Failed condition, if failed
   * @param message the message of its Failed condition, if failed
   */
  public record OwnedBackup(
      String name,
      Instant scheduledAt,
      String phase,
      Optional<Instant> completedAt,
      String reason,
      String message) {
    boolean finished() {
      return EtcdBackupStatus.COMPLETE.equals(phase) || EtcdBackupStatus.FAILED.equals(phase);
    }

    boolean complete() {
      return EtcdBackupStatus.COMPLETE.equals(phase);
    }
  }

  /**
   * What was seen.
   *
   * @param problems what is wrong with the spec (field: reason)
   * @param keepLast complete backups to keep
   * @param keepFor how long to keep complete backups, as written ("" for ever)
   * @param keepFailed failed backups to keep
   * @param lastScheduleTime the status's record of the last firing handled, if any
   * @param backups the schedule's backups that are not being deleted
   * @param continuous whether {@code spec.continuous.enabled}
   */
  public record View(
      Instant now,
      String name,
      String schedule,
      Instant created,
      List<String> problems,
      int keepLast,
      String keepFor,
      int keepFailed,
      Optional<Instant> lastScheduleTime,
      List<OwnedBackup> backups,
      boolean continuous) {}

  /**
   * The decision.
   *
   * @param create the backup to create (name and firing), if any
   * @param delete backups to delete
   */
  public record Decision(
      Optional<Create> create,
      List<String> delete,
      EtcdBackupScheduleStatus status,
      Duration requeueAfter) {}

  public record Create(String name, Instant scheduledAt) {}

  public static Decision decide(View v, EtcdBackupScheduleStatus previous) {
    EtcdBackupScheduleStatus s = new EtcdBackupScheduleStatus();
    List<String> problems = new ArrayList<>(v.problems());
    Cron.problem(v.schedule()).ifPresent(p -> problems.add("spec.schedule: " + p));
    if (!problems.isEmpty()) {
      s.setConditions(
          List.of(
              condition(
                  previous, v.now(), "Ready", false, "InvalidSpec", String.join("; ", problems))));
      return new Decision(Optional.empty(), List.of(), s, Decisions.INVALID_RESYNC);
    }
    Cron cron = Cron.parse(v.schedule());
    Instant handled =
        v.backups().stream()
            .map(OwnedBackup::scheduledAt)
            .max(Comparator.naturalOrder())
            .orElse(v.created());
    if (v.lastScheduleTime().isPresent() && v.lastScheduleTime().get().isAfter(handled)) {
      handled = v.lastScheduleTime().get();
    }
    Optional<Instant> due = cron.lastBetween(handled, v.now());
    if (due.isEmpty()
        && v.continuous()
        && v.backups().isEmpty()
        && v.lastScheduleTime().isEmpty()) {
      due = Optional.of(v.created());
    }
    Optional<OwnedBackup> active = v.backups().stream().filter(b -> !b.finished()).findFirst();
    Optional<Create> create = Optional.empty();
    String readyMessage =
        "next backup at " + cron.next(v.now()).map(Instant::toString).orElse("never");
    if (due.isPresent()) {
      if (active.isPresent()) {
        readyMessage =
            "skipped the firing of "
                + due.get()
                + ": backup "
                + active.get().name()
                + " still runs";
      } else {
        create = Optional.of(new Create(v.name() + "-" + STAMP.format(due.get()), due.get()));
      }
      handled = due.get();
    }
    s.setLastScheduleTime(
        v.backups().isEmpty() && due.isEmpty() && v.lastScheduleTime().isEmpty()
            ? null
            : handled.toString());

    List<OwnedBackup> newestFirst =
        v.backups().stream()
            .sorted(Comparator.comparing(OwnedBackup::scheduledAt).reversed())
            .toList();
    List<OwnedBackup> complete = newestFirst.stream().filter(OwnedBackup::complete).toList();
    List<OwnedBackup> failed =
        newestFirst.stream().filter(b -> b.finished() && !b.complete()).toList();
    List<String> delete = new ArrayList<>();
    Optional<Instant> cutoff = keepFor(v.keepFor()).map(d -> v.now().minus(d));
    for (int i = 0; i < complete.size(); i++) {
      OwnedBackup b = complete.get(i);
      boolean tooMany = i >= v.keepLast();
      boolean tooOld =
          cutoff.isPresent() && b.completedAt().orElse(b.scheduledAt()).isBefore(cutoff.get());
      if (i > 0 && (tooMany || tooOld)) {
        delete.add(b.name());
      }
    }
    for (int i = v.keepFailed(); i < failed.size(); i++) {
      delete.add(failed.get(i).name());
    }

    Optional<OwnedBackup> newest = complete.stream().findFirst();
    s.setLastSuccessfulBackup(newest.map(OwnedBackup::name).orElse(null));
    s.setLastSuccessfulBackupTime(
        newest.map(b -> b.completedAt().orElse(b.scheduledAt()).toString()).orElse(null));
    s.setActive(create.map(Create::name).or(() -> active.map(OwnedBackup::name)).orElse(null));
    s.setKept((int) complete.stream().filter(b -> !delete.contains(b.name())).count());
    Optional<Instant> next = cron.next(v.now());
    s.setNextScheduleTime(next.map(Instant::toString).orElse(null));
    List<Condition> conditions = new ArrayList<>();
    conditions.add(condition(previous, v.now(), "Ready", true, "Scheduled", readyMessage));
    Optional<OwnedBackup> lastFinished =
        newestFirst.stream().filter(OwnedBackup::finished).findFirst();
    boolean lastFailed = lastFinished.map(b -> !b.complete()).orElse(false);
    conditions.add(
        condition(
            previous,
            v.now(),
            "Failed",
            lastFailed,
            lastFailed ? lastFinished.get().reason() : "LastBackupComplete",
            lastFailed
                ? "backup " + lastFinished.get().name() + " failed: " + lastFinished.get().message()
                : lastFinished
                    .map(b -> "backup " + b.name() + " is complete")
                    .orElse("no backup yet")));
    s.setConditions(conditions);
    Duration wait =
        next.map(n -> Duration.between(v.now(), n))
            .filter(d -> d.compareTo(MAX_WAIT) < 0)
            .orElse(MAX_WAIT);
    return new Decision(
        create, delete, s, wait.isNegative() ? Duration.ofSeconds(1) : wait.plusMillis(50));
  }

  /** A duration as {@code 7d}, {@code 36h}, {@code 1h30m}; empty when blank or unreadable. */
  static Optional<Duration> keepFor(String text) {
    return Durations.parse(text);
  }

  private static Condition condition(
      EtcdBackupScheduleStatus previous,
      Instant now,
      String type,
      boolean status,
      String reason,
      String message) {
    return Conditions.keepingSince(
        previous == null ? List.of() : previous.getConditions(),
        now,
        type,
        status,
        reason,
        message);
  }
}
