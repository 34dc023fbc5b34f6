package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.BackupStatuses.attempts;
import static io.etcdoperator.operator.plan.BackupStatuses.conditions;
import static io.etcdoperator.operator.plan.BackupStatuses.status;
import static io.etcdoperator.operator.plan.BackupStatuses.withAttempts;

import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.operator.model.BackupPods;
import io.etcdoperator.operator.model.Manifest;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.plan.BackupView.AgentPod;
import io.etcdoperator.operator.plan.Facts.Member;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
 *   <li><b>OldAttempt</b>: an attempt failed and its successor waits (Pending with {@code attempts}
 *       N), and the pod there is attempt N or older (its annotation says which): delete it; it is
 *       never read as the next attempt's.
 *   <li><b>AgentSucceeded</b>: the agent pod succeeded: Complete, with what its manifest says (the
 *       agent reports the manifest only after writing it, so a snapshot without one never counts).
 *   <li><b>Retry</b>: the pod failed because its member failed it (exit code {@link
 *       BackupPods#EXIT_MEMBER_FAILED}: the member stopped, was wiped or moved, its stream broke,
 *       stalled or failed etcd's checksum), and fewer than {@link #MAX_ATTEMPTS} attempts were
 *       made: Pending, with the next attempt's time ({@link #RETRY_BACKOFF} doubled per failed
 *       attempt) and what the failed one said; the failed pod is deleted once that is stored. A
 *       member that failed is unhealthy or behind when the next attempt chooses, so that one reads
 *       from another member.
 *   <li><b>AgentFailed</b>: the pod failed otherwise (the store refused, the claim is full: no
 *       other member would do better) or after the last attempt, or cannot start (its Secret or key
 *       is missing, its image cannot be pulled), or ran past {@link #AGENT_DEADLINE}: Failed with
 *       what it said; the pod is deleted if it still runs.
 *   <li><b>AgentRunning</b>: Started, naming the member.
 *   <li><b>AgentLost</b>: the status says Started but the pod is gone (deleted, evicted, its node
 *       lost): Failed; whatever it wrote has no manifest. Not tried again: a pod deleted by force
 *       may still run, and a second agent would write the same key.
 *   <li><b>Backoff</b>: Pending until the next attempt's time.
 *   <li><b>NoMember</b>: no member is healthy and caught up: wait (Pending) up to {@link
 *       #MEMBER_DEADLINE} from the backup's creation (or from the last failed attempt), then
 *       Failed.
 *   <li><b>Start</b>: create the agent pod of the next attempt for the best member: a healthy,
 *       caught-up follower (a snapshot loads the member it is read from; the leader has the most to
 *       do), the one with the highest raft index, else the leader; never a learner.
 * </ol>
 *
 * <p>Why retry at all, when a finished backup is a record as a Job's is: the operator chose the
 * member, and a member going away in the middle (a roll, a lost disk, a moved pod) is the kind of
 * event the operator itself causes. A Job would retry any failure ({@code backoffLimit}); here only
 * the failures another member can cure are retried, so a wrong secret still fails at once. The
 * agent says which by its exit code; a pod that ended otherwise (killed, out of memory) is final.
 */
public final class BackupPlan {
  /** How long a backup waits for a healthy member before it fails. */
  public static final Duration MEMBER_DEADLINE = Duration.ofMinutes(5);

  /** How long the agent may run (its own limit is 30 minutes of streaming). */
  public static final Duration AGENT_DEADLINE = Duration.ofMinutes(45);

  /** Attempts in all, the first included. */
  public static final int MAX_ATTEMPTS = 4;

  /** The wait after the first failed attempt; doubled after each further one. */
  public static final Duration RETRY_BACKOFF = Duration.ofSeconds(5);

  static final Duration WATCH = Duration.ofSeconds(2);

  private BackupPlan() {}

  /** What to do. */
  public sealed interface Action {
    /** Nothing to change. */
    record None() implements Action {}

    /** Create the agent pod of attempt {@code attempt} that snapshots {@code member}. */
    record CreatePod(String member, String clientUrl, int attempt) implements Action {}

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
    int attempts = attempts(recorded);
    Optional<Instant> next = Optional.ofNullable(recorded.getNextAttemptTime()).map(Instant::parse);
    if (v.pod().isPresent()) {
      AgentPod pod = v.pod().get();
      if (next.isPresent() && pod.attempt() <= attempts) {
        return new Decision(
            "OldAttempt", new Action.DeletePod(pod.name()), recorded, Optional.of(WATCH));
      }
      return withPod(v, recorded, pod);
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
    if (next.isPresent() && v.now().isBefore(next.get())) {
      return new Decision(
          "Backoff", none(), recorded, Optional.of(Duration.between(v.now(), next.get())));
    }
    Facts f = Facts.of(v.namespace(), v.cluster(), v.clusterView().get());
    Optional<Member> source = source(f);
    if (source.isEmpty()) {
      String why = whyNoMember(f);
      Instant since = next.orElse(v.created());
      if (Duration.between(since, v.now()).compareTo(MEMBER_DEADLINE) > 0) {
        return failed(
            v,
            recorded,
            "NoHealthyMember",
            why + " for " + MEMBER_DEADLINE.toMinutes() + " min",
            none());
      }
      EtcdBackupStatus s = status(EtcdBackupStatus.PENDING, recorded);
      s.setNextAttemptTime(recorded.getNextAttemptTime());
      s.setConditions(
          conditions(
              recorded,
              v.now(),
              recorded.getStartTime() != null,
              "NoHealthyMember",
              "waiting: " + why,
              null,
              null));
      return new Decision("NoMember", none(), s, Optional.of(WATCH));
    }
    Member m = source.get();
    // The URL the member advertises: https when it serves clients over TLS.
    String url =
        m.etcd().clientUrls().isEmpty()
            ? Names.clientUrl(v.namespace(), v.cluster(), m.ordinal())
            : m.etcd().clientUrls().get(0);
    int attempt = attempts + 1;
    EtcdBackupStatus s = status(EtcdBackupStatus.STARTED, recorded);
    if (s.getStartTime() == null) {
      s.setStartTime(v.now().toString());
    }
    s.setAttempts(attempt);
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
                    : "")
                + (attempt > 1 ? "; attempt " + attempt + " of " + MAX_ATTEMPTS : ""),
            null,
            null));
    return new Decision(
        "Start", new Action.CreatePod(m.name(), url, attempt), s, Optional.of(WATCH));
  }

  /**
   * Attempt {@code failedAttempt} failed in a way another member may cure: wait, then try again.
   * {@code action} deletes its pod, if there is one (after this status is stored).
   */
  private static Decision retry(
      BackupView v, EtcdBackupStatus recorded, int failedAttempt, String said, Action action) {
    Duration wait = RETRY_BACKOFF.multipliedBy(1L << Math.min(failedAttempt - 1, 10));
    Instant at = v.now().plus(wait);
    EtcdBackupStatus s = status(EtcdBackupStatus.PENDING, recorded);
    s.setAttempts(failedAttempt);
    s.setNextAttemptTime(at.toString());
    s.setConditions(
        conditions(
            recorded,
            v.now(),
            recorded.getStartTime() != null,
            "Retrying",
            "attempt "
                + failedAttempt
                + " of "
                + MAX_ATTEMPTS
                + " failed ("
                + said.trim()
                + "); attempt "
                + (failedAttempt + 1)
                + " starts at "
                + at.truncatedTo(ChronoUnit.SECONDS)
                + " on a member that is healthy then",
            null,
            null));
    return new Decision("Retry", action, s, Optional.of(wait));
  }

  private static Decision withPod(BackupView v, EtcdBackupStatus stored, AgentPod pod) {
    // the pod says which attempt it is, when the status that started it was not stored
    EtcdBackupStatus recorded = withAttempts(stored, pod.attempt());
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
      return new Decision(
          "AgentSucceeded",
          none(),
          BackupStatuses.complete(recorded, v.now(), m.get()),
          Optional.empty());
    }
    if ("Failed".equals(pod.phase())) {
      String said =
          pod.message().isBlank() ? "exit code " + pod.exitCode().orElse(-1) : pod.message();
      boolean memberFailed =
          pod.exitCode().filter(c -> c == BackupPods.EXIT_MEMBER_FAILED).isPresent();
      if (memberFailed && pod.attempt() < MAX_ATTEMPTS) {
        return retry(v, recorded, pod.attempt(), said, new Action.DeletePod(pod.name()));
      }
      return failed(v, withAttempts(recorded, pod.attempt()), "AgentFailed", said.trim(), none());
    }
    if (CANNOT_START.contains(pod.waitingReason())) {
      return failed(
          v,
          recorded,
          pod.waitingReason(),
          "the agent pod " + pod.name() + " cannot start: " + pod.waitingMessage(),
          new Action.DeletePod(pod.name()));
    }
    Instant since = pod.startedAt().orElse(pod.created());
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
    s.setAttempts(pod.attempt());
    String message =
        recorded.getConditions().stream()
            .filter(c -> "Started".equals(c.getType()) && "AgentCreated".equals(c.getReason()))
            .map(Condition::getMessage)
            .findFirst()
            .orElse(
                "agent pod "
                    + pod.name()
                    + " is "
                    + pod.phase()
                    + (pod.attempt() > 1
                        ? "; attempt " + pod.attempt() + " of " + MAX_ATTEMPTS
                        : ""));
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

  private static Decision failed(
      BackupView v, EtcdBackupStatus recorded, String reason, String message, Action action) {
    int attempts = attempts(recorded);
    if (attempts > 1) {
      message = message + " (attempt " + attempts + " of " + MAX_ATTEMPTS + ")";
    }
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

  private static String nameOf(BackupView v) {
    return v.name();
  }

  private static Action none() {
    return new Action.None();
  }
}
