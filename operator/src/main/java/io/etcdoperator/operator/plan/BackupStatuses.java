package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.BackupSnapshot;
import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.operator.model.Conditions;
import io.etcdoperator.operator.model.Manifest;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How {@link BackupPlan} writes an EtcdBackup's status: its phases, attempts and conditions. */
final class BackupStatuses {
  private BackupStatuses() {}

  /** Agent pods started so far, as the status records them (a Started one from before: 1). */
  static int attempts(EtcdBackupStatus recorded) {
    if (recorded.getAttempts() != null) {
      return recorded.getAttempts();
    }
    return EtcdBackupStatus.STARTED.equals(recorded.getPhase()) ? 1 : 0;
  }

  /** {@code recorded} with the attempts a pod of attempt {@code attempt} shows were made. */
  static EtcdBackupStatus withAttempts(EtcdBackupStatus recorded, int attempt) {
    if (attempt <= attempts(recorded)) {
      return recorded;
    }
    EtcdBackupStatus s = status(recorded.getPhase(), recorded);
    s.setConditions(recorded.getConditions());
    s.setAttempts(attempt);
    return s;
  }

  /** A new status in {@code phase}, keeping the recorded start time and attempts. */
  static EtcdBackupStatus status(String phase, EtcdBackupStatus recorded) {
    EtcdBackupStatus s = new EtcdBackupStatus();
    s.setPhase(phase);
    s.setStartTime(recorded.getStartTime());
    s.setAttempts(recorded.getAttempts());
    return s;
  }

  /**
   * Started, Complete, Failed. {@code complete} and {@code failed} null: not reported yet. The
   * reason and message go to the condition that is True last in that order.
   */
  static List<Condition> conditions(
      EtcdBackupStatus recorded,
      Instant now,
      boolean started,
      String reason,
      String message,
      Boolean complete,
      Boolean failed) {
    List<Condition> out = new ArrayList<>();
    boolean last = complete == null && failed == null;
    out.add(
        condition(
            recorded,
            now,
            "Started",
            started,
            last || !started ? reason : "Started",
            last || !started ? message : "the agent was started"));
    if (complete != null) {
      out.add(condition(recorded, now, "Complete", complete, reason, message));
      out.add(condition(recorded, now, "Failed", failed, reason, message));
    }
    return out;
  }

  static Condition condition(
      EtcdBackupStatus recorded,
      Instant now,
      String type,
      boolean status,
      String reason,
      String message) {
    return Conditions.keepingSince(recorded.getConditions(), now, type, status, reason, message);
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
  }

  /** Complete, with what the agent's manifest says. */
  static EtcdBackupStatus complete(EtcdBackupStatus recorded, Instant now, Manifest m) {
    EtcdBackupStatus s = status(EtcdBackupStatus.COMPLETE, recorded);
    BackupSnapshot snap = new BackupSnapshot();
    snap.setUri(m.uri());
    snap.setSizeBytes(m.sizeBytes());
    snap.setChecksum("sha256:" + m.sha256());
    snap.setRevision(m.revision());
    snap.setClusterID(m.clusterId());
    snap.setEtcdVersion(m.etcdVersion());
    snap.setMember(m.member());
    snap.setManifest(m.uri() + ".manifest.json");
    s.setSnapshot(snap);
    s.setStartTime(m.startTime());
    s.setCompletionTime(m.completionTime());
    s.setDuration(seconds(Duration.ofMillis(m.durationMillis())));
    String message =
        "revision "
            + m.revision()
            + " of cluster "
            + m.clusterId()
            + " from "
            + m.member()
            + ": "
            + m.sizeBytes()
            + " bytes in "
            + s.getDuration()
            + " to "
            + m.uri();
    s.setConditions(conditions(recorded, now, true, "BackupComplete", message, true, false));
    return s;
  }
}
