package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.BackupSnapshot;
import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.operator.model.Manifest;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.plan.BackupView.AgentPod;
import io.etcdoperator.operator.plan.Facts.Member;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Decides the next step of one EtcdBackup, and its status. Pure: the same view gives the same plan.
 *
 * <h2>The algorithm, in order; the first that applies decides</h2>
 *
 * <ol>
 *   <li><b>Recorded</b>: the status says Complete or Failed: it is a record, final; nothing to do,
 *       except deleting the agent pod of a Failed backup that still runs or waits (the failure that
 *       decided it was recorded first, so that the deletion cannot look like a lost pod).
 *   <li><b>InvalidSpec</b>: Failed, naming each field; nothing is started.
 *   <li><b>ClusterNotFound</b>: the EtcdCluster does not exist: Failed.
 *   <li><b>AgentSucceeded</b>: the agent pod succeeded: Complete, with what its manifest says (the
 *       agent reports the manifest only after writing it, so a snapshot without one never counts).
 *   <li><b>AgentFailed</b>: the pod failed, or cannot start (its Secret or key is missing, its
 *       image cannot be pulled), or ran past {@link #AGENT_DEADLINE}: Failed with what it said; the
 *       pod is deleted if it still runs.
 *   <li><b>AgentRunning</b>: Started, naming the member.
 *   <li><b>AgentLost</b>: the status says Started but the pod is gone (deleted, evicted, its node
 *       lost): Failed; whatever it wrote has no manifest.
 *   <li><b>NoMember</b>: no member is healthy and caught up: wait (Pending) up to {@link
 *       #MEMBER_DEADLINE}, then Failed.
 *   <li><b>Start</b>: create the agent pod for the best member: a healthy, caught-up follower (a
 *       snapshot loads the member it is read from; the leader has the most to do), the one with the
 *       highest raft index, else the leader; never a learner.
 * </ol>
 */
public final class BackupPlan {
  /** How long a backup waits for a healthy member before it fails. */
  public static final Duration MEMBER_DEADLINE = Duration.ofMinutes(5);

  /** How long the agent may run (its own limit is 30 minutes of streaming). */
  public static final Duration AGENT_DEADLINE = Duration.ofMinutes(45);

  static final Duration WATCH = Duration.ofSeconds(2);

  private BackupPlan() {}

  /** What to do. */
  public sealed interface Action {
    /** Nothing to change. */
    record None() implements Action {}

    /** Create the agent pod that snapshots {@code member} at {@code clientUrl}. */
    record CreatePod(String member, String clientUrl) implements Action {}

    /**
     * Delete the agent pod (it failed without ending). Done only after the status that says why was
     * written: see the Recorded rule.
     */
    record DeletePod(String name) implements Action {}
  }

  /**
   * The decision.
   *
   * @param rule which rule decided (as the class Javadoc names them)
   * @param action the one change to make
   * @param status the status to write (unchanged when equal to the recorded one)
   * @param requeueAfter when to look again; empty: only on a change
   */
  public record Decision(
      String rule, Action action, EtcdBackupStatus status, Optional<Duration> requeueAfter) {}

  public static Decision decide(BackupView v) {
    EtcdBackupStatus recorded = v.recorded().orElseGet(EtcdBackupStatus::new);
    String phase = recorded.getPhase();
    if (EtcdBackupStatus.COMPLETE.equals(phase) || EtcdBackupStatus.FAILED.equals(phase)) {
      Action action =
          EtcdBackupStatus.FAILED.equals(phase)
                  && v.pod().filter(p -> STILL_UP.contains(p.phase())).isPresent()
              ? new Action.DeletePod(v.pod().get().name())
              : none();
      return new Decision("Recorded", action, recorded, Optional.empty());
    }
    if (!v.problems().isEmpty()) {
      return failed(v, recorded, "InvalidSpec", String.join("; ", v.problems()), none());
    }
    if (v.clusterView().isEmpty()) {
      return failed(
          v,
          recorded,
          "ClusterNotFound",
          "EtcdCluster "
              + v.cluster()
              + " not found in namespace "
              + v.namespace()
              + "; check spec.clusterRef.name",
          none());
    }
    if (v.pod().isPresent()) {
      return withPod(v, recorded, v.pod().get());
    }
    if (EtcdBackupStatus.STARTED.equals(phase)) {
      return failed(
          v,
          recorded,
          "AgentPodLost",
          "the agent pod "
              + Names.backupPod(nameOf(v))
              + " disappeared before it reported a result (deleted, evicted, or its node lost);"
              + " nothing it wrote is a complete backup",
          none());
    }
    Facts f = Facts.of(v.namespace(), v.cluster(), v.clusterView().get());
    Optional<Member> source = source(f);
    if (source.isEmpty()) {
      String why = whyNoMember(f);
      if (Duration.between(v.created(), v.now()).compareTo(MEMBER_DEADLINE) > 0) {
        return failed(
            v,
            recorded,
            "NoHealthyMember",
            why + " for " + MEMBER_DEADLINE.toMinutes() + " min",
            none());
      }
      EtcdBackupStatus s = status(EtcdBackupStatus.PENDING, recorded);
      s.setConditions(
          conditions(recorded, v.now(), false, "NoHealthyMember", "waiting: " + why, null, null));
      return new Decision("NoMember", none(), s, Optional.of(WATCH));
    }
    Member m = source.get();
    // The URL the member advertises: https when it serves clients over TLS.
    String url =
        m.etcd().clientUrls().isEmpty()
            ? Names.clientUrl(v.namespace(), v.cluster(), m.ordinal())
            : m.etcd().clientUrls().get(0);
    EtcdBackupStatus s = status(EtcdBackupStatus.STARTED, recorded);
    s.setStartTime(v.now().toString());
    s.setConditions(
        conditions(
            recorded,
            v.now(),
            true,
            "AgentCreated",
            "agent pod "
                + Names.backupPod(nameOf(v))
                + " takes the snapshot from "
                + m.name()
                + (m.id() == f.leaderId()
                    ? " (the leader: no follower is healthy and caught up)"
                    : ""),
            null,
            null));
    return new Decision("Start", new Action.CreatePod(m.name(), url), s, Optional.of(WATCH));
  }

  private static Decision withPod(BackupView v, EtcdBackupStatus recorded, AgentPod pod) {
    if ("Succeeded".equals(pod.phase())) {
      Optional<Manifest> m = Manifest.parse(pod.message());
      if (m.isEmpty()) {
        return failed(
            v,
            recorded,
            "NoManifest",
            "the agent pod " + pod.name() + " ended without reporting a manifest: " + pod.message(),
            none());
      }
      return complete(v, recorded, m.get());
    }
    if ("Failed".equals(pod.phase())) {
      String said =
          pod.message().isBlank() ? "exit code " + pod.exitCode().orElse(-1) : pod.message();
      return failed(v, recorded, "AgentFailed", said.trim(), none());
    }
    if (CANNOT_START.contains(pod.waitingReason())) {
      return failed(
          v,
          recorded,
          pod.waitingReason(),
          "the agent pod " + pod.name() + " cannot start: " + pod.waitingMessage(),
          new Action.DeletePod(pod.name()));
    }
    Instant since = pod.startedAt().orElse(v.created());
    if (Duration.between(since, v.now()).compareTo(AGENT_DEADLINE) > 0) {
      return failed(
          v,
          recorded,
          "AgentTimedOut",
          "the agent pod "
              + pod.name()
              + " ran for more than "
              + AGENT_DEADLINE.toMinutes()
              + " min",
          new Action.DeletePod(pod.name()));
    }
    EtcdBackupStatus s = status(EtcdBackupStatus.STARTED, recorded);
    if (s.getStartTime() == null) {
      s.setStartTime(since.toString());
    }
    String message =
        recorded.getConditions().stream()
            .filter(c -> "Started".equals(c.getType()))
            .map(Condition::getMessage)
            .findFirst()
            .orElse("agent pod " + pod.name() + " is " + pod.phase());
    s.setConditions(conditions(recorded, v.now(), true, "AgentRunning", message, null, null));
    return new Decision("AgentRunning", none(), s, Optional.of(WATCH));
  }

  /** Phases of a pod that has not ended. */
  static final List<String> STILL_UP = List.of("Pending", "Running", "Unknown");

  /** Why a pod cannot start, as the kubelet says: none of these heals by waiting for the agent. */
  static final List<String> CANNOT_START =
      List.of(
          "CreateContainerConfigError",
          "CreateContainerError",
          "ErrImagePull",
          "ImagePullBackOff",
          "InvalidImageName",
          "RunContainerError");

  /** The member to read the snapshot from: see the class Javadoc. */
  static Optional<Member> source(Facts f) {
    List<Member> caughtUp =
        f.voters().stream().filter(m -> m.ordinal() >= 0 && f.caughtUp(m)).toList();
    Comparator<Member> mostAdvanced =
        Comparator.comparingLong((Member m) -> f.probeOf(m).map(p -> p.raftIndex()).orElse(0L))
            .reversed()
            .thenComparingInt(Member::ordinal);
    Optional<Member> follower =
        caughtUp.stream().filter(m -> m.id() != f.leaderId()).sorted(mostAdvanced).findFirst();
    return follower.or(() -> caughtUp.stream().filter(m -> m.id() == f.leaderId()).findFirst());
  }

  private static String whyNoMember(Facts f) {
    if (!f.quorum()) {
      return "the cluster has no quorum, so no member is known to hold every acknowledged write";
    }
    List<String> why = new ArrayList<>();
    f.voters().forEach(m -> why.add(m.name() + ": " + f.whyUnhealthy(m)));
    return "no voting member is healthy and caught up (" + String.join("; ", why) + ")";
  }

  private static Decision complete(BackupView v, EtcdBackupStatus recorded, Manifest m) {
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
    s.setConditions(conditions(recorded, v.now(), true, "BackupComplete", message, true, false));
    return new Decision("AgentSucceeded", none(), s, Optional.empty());
  }

  private static Decision failed(
      BackupView v, EtcdBackupStatus recorded, String reason, String message, Action action) {
    EtcdBackupStatus s = status(EtcdBackupStatus.FAILED, recorded);
    s.setCompletionTime(v.now().toString());
    s.setSnapshot(null);
    boolean started = recorded.getStartTime() != null;
    s.setConditions(conditions(recorded, v.now(), started, reason, message, false, true));
    String rule =
        reason.equals("AgentPodLost")
            ? "AgentLost"
            : reason.equals("InvalidSpec")
                ? "InvalidSpec"
                : reason.equals("ClusterNotFound")
                    ? "ClusterNotFound"
                    : reason.equals("NoHealthyMember") ? "NoMember" : "AgentFailed";
    return new Decision(rule, action, s, Optional.empty());
  }

  private static EtcdBackupStatus status(String phase, EtcdBackupStatus recorded) {
    EtcdBackupStatus s = new EtcdBackupStatus();
    s.setPhase(phase);
    s.setStartTime(recorded.getStartTime());
    return s;
  }

  /**
   * Started, Complete, Failed. {@code complete} and {@code failed} null: not reported yet. The
   * reason and message go to the condition that is True last in that order.
   */
  private static List<Condition> conditions(
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

  private static Condition condition(
      EtcdBackupStatus recorded,
      Instant now,
      String type,
      boolean status,
      String reason,
      String message) {
    String value = status ? "True" : "False";
    String since =
        recorded.getConditions().stream()
            .filter(c -> type.equals(c.getType()) && value.equals(c.getStatus()))
            .map(Condition::getLastTransitionTime)
            .findFirst()
            .orElse(now.truncatedTo(ChronoUnit.SECONDS).toString());
    return new ConditionBuilder()
        .withType(type)
        .withStatus(value)
        .withReason(reason)
        .withMessage(message)
        .withLastTransitionTime(since)
        .build();
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
  }

  private static String nameOf(BackupView v) {
    return v.name();
  }

  private static Action none() {
    return new Action.None();
  }
}
