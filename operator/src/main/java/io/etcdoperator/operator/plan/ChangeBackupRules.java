package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.operator.model.ChangeBackups;
import io.etcdoperator.operator.model.EtcdVersion;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.plan.Decision.Keep;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A backup before a change that cannot be taken back: a version upgrade (etcd does not go back to
 * the minor version it left) and scaling to 0 (every member stops; a claim lost meanwhile is a
 * member lost). etcd-druid backs up before every roll; we do before these two, when the user keeps
 * backups at all: an EtcdBackupSchedule names the cluster, and its destination is where the backup
 * goes ({@link ChangeBackups}).
 *
 * <h2>The rule</h2>
 *
 * <ol>
 *   <li>The change is pending: the image names a version above what every member that answers runs
 *       (an upgrade no member has started), or the spec asks for 0 members while they run with
 *       quorum.
 *   <li>The backup's name is made from the change and {@code metadata.generation} ({@code
 *       <cluster>-before-upgrade-3-5-30-g7}, {@code <cluster>-before-hibernation-g8}): the same
 *       change asked for once is backed up once, every reconcile and a restarted operator find it
 *       by name, and creating it twice is impossible. It is read from the world, never remembered.
 *   <li>No EtcdBackup of that name: create it (the step); the StatefulSet is left as it is, so no
 *       pod moves to the new template and none stops.
 *   <li>Not finished: wait, the StatefulSet still left as it is; status says which backup.
 *   <li>Complete: the rule no longer applies; the upgrade's roll or the scale to 0 goes on.
 *   <li>Failed: with {@code Required} (the default), the change is held and status names the backup
 *       and its error; deleting the failed EtcdBackup takes it again, {@code BestEffort} goes on
 *       without it. With {@code BestEffort} the change goes on.
 * </ol>
 *
 * <p>It comes first among the rules with quorum: a backup needs quorum, and the rules after it
 * would write the StatefulSet with the new template. Repairs (a learner, a lost member) wait behind
 * a backup in progress, which takes seconds; behind a failed one they wait as behind any refused
 * spec, until the user answers. Once the first member runs the new version, the upgrade has started
 * and the rule no longer applies.
 */
final class ChangeBackupRules {
  private ChangeBackupRules() {}

  /** A change the rule backs up before: how status names it, and the backup name's part. */
  record Change(String what, String label, String suffix) {}

  /** The change pending, if any: an upgrade no member started, or members still running at 0. */
  static Optional<Change> pending(Situation s) {
    long generation = s.target().generation();
    if (s.hibernating()) {
      return s.view().pods().isEmpty()
          ? Optional.empty()
          : Optional.of(
              new Change("scaling to 0", "hibernation", "-before-hibernation-g" + generation));
    }
    Optional<EtcdVersion> target = s.desired().etcdVersion();
    List<EtcdVersion> running = s.facts().answeringVersions();
    if (target.isEmpty()
        || running.isEmpty()
        || running.stream().anyMatch(v -> v.compareTo(target.get()) >= 0)) {
      return Optional.empty();
    }
    EtcdVersion to = target.get();
    return Optional.of(
        new Change(
            "the upgrade to etcd " + to,
            "upgrade",
            "-before-upgrade-"
                + to.major()
                + "-"
                + to.minor()
                + "-"
                + to.patch()
                + "-g"
                + generation));
  }

  /** The EtcdBackup taken before {@code change}. */
  static String backupName(Situation s, Change change) {
    return Names.shorten(s.name(), change.suffix());
  }

  /** See the class comment. */
  static final class BackupBeforeChange implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      ChangeBackups backups = s.target().changeBackups();
      if (!backups.wanted()) {
        return Optional.empty();
      }
      Optional<Change> pending = pending(s);
      if (pending.isEmpty()) {
        return Optional.empty();
      }
      Change change = pending.get();
      String name = backupName(s, change);
      ChangeBackups.Seen seen = backups.backups().get(name);
      if (seen == null) {
        return Optional.of(
            held(
                Decisions.withQuorum(
                    s,
                    Conditions.BACKING_UP_BEFORE_CHANGE,
                    new Step.CreateBackup(
                        name,
                        backups.schedule().orElseThrow(),
                        backups.destination().orElseThrow(),
                        change.what(),
                        change.label()))));
      }
      if (EtcdBackupStatus.COMPLETE.equals(seen.phase())) {
        return Optional.empty();
      }
      if (EtcdBackupStatus.FAILED.equals(seen.phase())) {
        if (backups.policy() == ChangeBackups.Policy.BEST_EFFORT) {
          return Optional.empty();
        }
        String message =
            "EtcdBackup "
                + name
                + ", taken before "
                + change.what()
                + ", failed ("
                + (seen.message() == null || seen.message().isBlank()
                    ? "no reason given"
                    : seen.message())
                + "), so "
                + change.what()
                + " waits and the members keep running as they are; fix what the backup"
                + " reports and delete EtcdBackup "
                + name
                + " to take it again, or set spec.backupBeforeChanges: BestEffort to go on"
                + " without it";
        return Optional.of(
            held(
                Decisions.withQuorum(
                    s,
                    Conditions.BACKUP_BEFORE_CHANGE_FAILED,
                    new Step.None(),
                    Optional.of(
                        new Decisions.Stuck(Conditions.BACKUP_BEFORE_CHANGE_FAILED, message)))));
      }
      return Optional.of(
          held(
              Decisions.withQuorum(
                  s,
                  Conditions.BACKING_UP_BEFORE_CHANGE,
                  new Step.Wait(
                      "EtcdBackup "
                          + name
                          + " to complete before "
                          + change.what()
                          + " (now "
                          + (seen.phase() == null || seen.phase().isBlank()
                              ? "not started"
                              : seen.phase())
                          + ")"))));
    }
  }

  /** The decision, with the StatefulSet left as it is: no pod gets the new template, none stops. */
  private static Decision held(Decision d) {
    Keep k = d.keep();
    return new Decision(
        d.step(),
        new Keep(k.objects(), k.clusterState(), OptionalInt.empty(), k.claimMarks(), k.clusterId()),
        d.report(),
        d.requeueAfter());
  }
}
