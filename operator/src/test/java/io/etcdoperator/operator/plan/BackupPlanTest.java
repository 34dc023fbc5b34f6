package io.etcdoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.operator.model.BackupPods;
import io.etcdoperator.operator.model.Manifest;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.plan.BackupView.AgentPod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One row per situation of a backup: the rule that decides, the action, the status it writes. */
class BackupPlanTest {
  static final Instant NOW = Views.NOW;
  static final Instant CREATED = NOW.minusSeconds(10);

  static EtcdBackupStatus recorded(String phase) {
    EtcdBackupStatus s = new EtcdBackupStatus();
    s.setPhase(phase);
    s.setStartTime(CREATED.toString());
    return s;
  }

  static BackupView view(
      Optional<ClusterView> cluster, Optional<EtcdBackupStatus> recorded, Optional<AgentPod> pod) {
    return new BackupView(
        NOW, "b1", Views.NS, Views.NAME, CREATED, recorded, cluster, List.of(), pod);
  }

  static AgentPod pod(String phase, String message, String waiting) {
    return new AgentPod(
        "b1-backup",
        phase,
        Optional.of(CREATED),
        message,
        Optional.of(phase.equals("Failed") ? 1 : 0),
        waiting,
        waiting.isEmpty() ? "" : "secret \"s3\" not found",
        1,
        CREATED);
  }

  /** The pod of attempt {@code attempt}, failed because its member failed it. */
  static AgentPod memberFailed(int attempt) {
    return new AgentPod(
        "b1-backup",
        "Failed",
        Optional.of(CREATED),
        "backup failed: member test-1 (http://test-1:2379) does not answer: UNAVAILABLE",
        Optional.of(BackupPods.EXIT_MEMBER_FAILED),
        "",
        "",
        attempt,
        CREATED);
  }

  static AgentPod running(int attempt) {
    return new AgentPod(
        "b1-backup", "Running", Optional.of(NOW), "", Optional.empty(), "", "", attempt, NOW);
  }

  /** Started, attempt {@code attempts} under way. */
  static EtcdBackupStatus started(int attempts) {
    EtcdBackupStatus s = recorded(EtcdBackupStatus.STARTED);
    s.setAttempts(attempts);
    return s;
  }

  /** Attempt {@code attempts} failed; the next one is due at {@code next}. */
  static EtcdBackupStatus retrying(int attempts, Instant next) {
    EtcdBackupStatus s = recorded(EtcdBackupStatus.PENDING);
    s.setAttempts(attempts);
    s.setNextAttemptTime(next.toString());
    return s;
  }

  static final String MANIFEST =
      new Manifest(
              Manifest.FORMAT,
              "ns/test",
              "b1.db",
              "s3://bk/b1.db",
              24608,
              "ab",
              "cd",
              42,
              "c1",
              "a",
              "test-1",
              "3.5.17",
              CREATED.toString(),
              NOW.toString(),
              1500)
          .toJsonLine();

  record Row(
      String name,
      BackupView view,
      String rule,
      Class<?> action,
      String phase,
      Consumer<BackupPlan.Decision> more) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> rows() {
    Optional<ClusterView> healthy = Optional.of(Views.healthy(3).build());
    return Stream.of(
            new Row(
                "a finished backup is a record: nothing changes",
                view(healthy, Optional.of(recorded(EtcdBackupStatus.COMPLETE)), Optional.empty()),
                "Recorded",
                BackupPlan.Action.None.class,
                "Complete",
                d -> assertThat(d.requeueAfter()).isEmpty()),
            new Row(
                "a failed backup whose agent pod still waits: the pod deleted, the record kept",
                view(
                    healthy,
                    Optional.of(recorded(EtcdBackupStatus.FAILED)),
                    Optional.of(pod("Pending", "", "CreateContainerConfigError"))),
                "Recorded",
                BackupPlan.Action.DeletePod.class,
                "Failed",
                d ->
                    assertThat(((BackupPlan.Action.DeletePod) d.action()).name())
                        .isEqualTo("b1-backup")),
            new Row(
                "a failed backup whose agent pod ended: the pod kept for its log",
                view(
                    healthy,
                    Optional.of(recorded(EtcdBackupStatus.FAILED)),
                    Optional.of(pod("Failed", "backup failed", ""))),
                "Recorded",
                BackupPlan.Action.None.class,
                "Failed",
                d -> {}),
            new Row(
                "a complete backup's pod is never deleted by the plan",
                view(
                    healthy,
                    Optional.of(recorded(EtcdBackupStatus.COMPLETE)),
                    Optional.of(pod("Running", "", ""))),
                "Recorded",
                BackupPlan.Action.None.class,
                "Complete",
                d -> {}),
            new Row(
                "invalid spec: failed, naming the field",
                new BackupView(
                    NOW,
                    "b1",
                    Views.NS,
                    Views.NAME,
                    CREATED,
                    Optional.empty(),
                    healthy,
                    List.of("spec.destination: exactly one of s3 or pvc must be specified"),
                    Optional.empty()),
                "InvalidSpec",
                BackupPlan.Action.None.class,
                "Failed",
                d -> assertThat(failed(d)).contains("spec.destination: exactly one of s3 or pvc")),
            new Row(
                "no such cluster: failed, naming it",
                view(Optional.empty(), Optional.empty(), Optional.empty()),
                "ClusterNotFound",
                BackupPlan.Action.None.class,
                "Failed",
                d ->
                    assertThat(failed(d))
                        .contains("EtcdCluster test not found", "spec.clusterRef.name")),
            new Row(
                "healthy cluster: a follower, the agent started",
                view(healthy, Optional.empty(), Optional.empty()),
                "Start",
                BackupPlan.Action.CreatePod.class,
                "Started",
                d -> {
                  var c = (BackupPlan.Action.CreatePod) d.action();
                  assertThat(c.member()).isEqualTo("test-1");
                  assertThat(c.clientUrl()).isEqualTo(Names.clientUrl(Views.NS, Views.NAME, 1));
                }),
            new Row(
                "one member: the leader, said so",
                view(Optional.of(Views.healthy(1).build()), Optional.empty(), Optional.empty()),
                "Start",
                BackupPlan.Action.CreatePod.class,
                "Started",
                d -> assertThat(started(d)).contains("test-0 (the leader")),
            new Row(
                "quorum lost: wait, pending",
                view(
                    Optional.of(Views.healthy(3).down(1).down(2).build()),
                    Optional.empty(),
                    Optional.empty()),
                "NoMember",
                BackupPlan.Action.None.class,
                "Pending",
                d -> assertThat(started(d)).contains("no quorum")),
            new Row(
                "agent running: started",
                view(
                    healthy, Optional.of(recorded("Started")), Optional.of(pod("Running", "", ""))),
                "AgentRunning",
                BackupPlan.Action.None.class,
                "Started",
                d -> {}),
            new Row(
                "agent succeeded: complete, with what the manifest says",
                view(
                    healthy,
                    Optional.of(recorded("Started")),
                    Optional.of(pod("Succeeded", MANIFEST, ""))),
                "AgentSucceeded",
                BackupPlan.Action.None.class,
                "Complete",
                d -> {
                  assertThat(d.status().getSnapshot().getRevision()).isEqualTo(42);
                  assertThat(d.status().getSnapshot().getChecksum()).isEqualTo("sha256:ab");
                  assertThat(d.status().getSnapshot().getUri()).isEqualTo("s3://bk/b1.db");
                  assertThat(d.status().getDuration()).isEqualTo("1.5s");
                }),
            new Row(
                "agent succeeded without a manifest: failed, never complete",
                view(
                    healthy,
                    Optional.of(recorded("Started")),
                    Optional.of(pod("Succeeded", "done", ""))),
                "AgentFailed",
                BackupPlan.Action.None.class,
                "Failed",
                d -> assertThat(failed(d)).contains("without reporting a manifest")),
            new Row(
                "agent failed: failed with what it said",
                view(
                    healthy,
                    Optional.of(recorded("Started")),
                    Optional.of(
                        pod(
                            "Failed",
                            "backup failed: cannot reach the object store at http://s3",
                            ""))),
                "AgentFailed",
                BackupPlan.Action.None.class,
                "Failed",
                d ->
                    assertThat(failed(d))
                        .isEqualTo("backup failed: cannot reach the object store at http://s3")),
            new Row(
                "agent cannot start (no Secret): failed, pod deleted",
                view(
                    healthy,
                    Optional.of(recorded("Started")),
                    Optional.of(pod("Pending", "", "CreateContainerConfigError"))),
                "AgentFailed",
                BackupPlan.Action.DeletePod.class,
                "Failed",
                d -> assertThat(failed(d)).contains("cannot start: secret \"s3\" not found")),
            new Row(
                "agent pod gone while started (operator away, pod deleted): failed",
                view(healthy, Optional.of(recorded("Started")), Optional.empty()),
                "AgentLost",
                BackupPlan.Action.None.class,
                "Failed",
                d -> assertThat(failed(d)).contains("disappeared before it reported a result")),
            new Row(
                "agent killed (exit 137) with attempts left: failed, not tried again",
                view(
                    healthy,
                    Optional.of(started(1)),
                    Optional.of(
                        new AgentPod(
                            "b1-backup",
                            "Failed",
                            Optional.of(CREATED),
                            "",
                            Optional.of(137),
                            "",
                            "",
                            1,
                            CREATED))),
                "AgentFailed",
                BackupPlan.Action.None.class,
                "Failed",
                d -> assertThat(failed(d)).isEqualTo("exit code 137")),
            new Row(
                "a later attempt's pod not started yet: its deadline counts from its creation",
                new BackupView(
                    NOW,
                    "b1",
                    Views.NS,
                    Views.NAME,
                    NOW.minus(BackupPlan.AGENT_DEADLINE).minusSeconds(600),
                    Optional.of(started(3)),
                    healthy,
                    List.of(),
                    Optional.of(
                        new AgentPod(
                            "b1-backup",
                            "Pending",
                            Optional.empty(),
                            "",
                            Optional.empty(),
                            "",
                            "",
                            3,
                            NOW.minusSeconds(60)))),
                "AgentRunning",
                BackupPlan.Action.None.class,
                "Started",
                d -> assertThat(started(d)).contains("attempt 3 of 4")),
            new Row(
                "the next attempt succeeded but its Started was not stored: complete, attempts 2",
                view(
                    healthy,
                    Optional.of(retrying(1, NOW.minusSeconds(1))),
                    Optional.of(
                        new AgentPod(
                            "b1-backup",
                            "Succeeded",
                            Optional.of(CREATED),
                            MANIFEST,
                            Optional.of(0),
                            "",
                            "",
                            2,
                            CREATED))),
                "AgentSucceeded",
                BackupPlan.Action.None.class,
                "Complete",
                d -> assertThat(d.status().getAttempts()).isEqualTo(2)),
            new Row(
                "agent pod of the last attempt gone: failed",
                view(healthy, Optional.of(started(4)), Optional.empty()),
                "AgentLost",
                BackupPlan.Action.None.class,
                "Failed",
                d ->
                    assertThat(failed(d))
                        .contains("disappeared before it reported a result", "(attempt 4 of 4)")),
            new Row(
                "its member failed the agent: the pod deleted, tried again in 5 s",
                view(healthy, Optional.of(started(1)), Optional.of(memberFailed(1))),
                "Retry",
                BackupPlan.Action.DeletePod.class,
                "Pending",
                d -> {
                  assertThat(started(d))
                      .contains(
                          "attempt 1 of 4 failed (backup failed: member test-1",
                          "attempt 2 starts at " + NOW.plusSeconds(5),
                          "on a member that is healthy then");
                  assertThat(d.status().getAttempts()).isEqualTo(1);
                  assertThat(d.status().getNextAttemptTime()).isEqualTo(NOW.plusSeconds(5) + "");
                  assertThat(d.requeueAfter()).contains(Duration.ofSeconds(5));
                }),
            new Row(
                "its member failed the third attempt: the wait doubled twice, 20 s",
                view(healthy, Optional.of(started(3)), Optional.of(memberFailed(3))),
                "Retry",
                BackupPlan.Action.DeletePod.class,
                "Pending",
                d ->
                    assertThat(d.status().getNextAttemptTime())
                        .isEqualTo(NOW.plusSeconds(20) + "")),
            new Row(
                "its member failed the last attempt: failed, saying how many",
                view(healthy, Optional.of(started(4)), Optional.of(memberFailed(4))),
                "AgentFailed",
                BackupPlan.Action.None.class,
                "Failed",
                d -> {
                  assertThat(failed(d)).contains("member test-1", "(attempt 4 of 4)");
                  assertThat(d.status().getNextAttemptTime()).isNull();
                }),
            new Row(
                "the failed attempt's pod still there while the next waits: deleted",
                view(
                    healthy,
                    Optional.of(retrying(1, NOW.plusSeconds(3))),
                    Optional.of(memberFailed(1))),
                "OldAttempt",
                BackupPlan.Action.DeletePod.class,
                "Pending",
                d -> assertThat(d.status().getAttempts()).isEqualTo(1)),
            new Row(
                "waiting for the next attempt: nothing until its time",
                view(healthy, Optional.of(retrying(1, NOW.plusSeconds(3))), Optional.empty()),
                "Backoff",
                BackupPlan.Action.None.class,
                "Pending",
                d -> assertThat(d.requeueAfter()).contains(Duration.ofSeconds(3))),
            new Row(
                "the next attempt's time came: its pod created, on a healthy member",
                view(
                    Optional.of(Views.healthy(3).down(1).build()),
                    Optional.of(retrying(1, NOW.minusSeconds(1))),
                    Optional.empty()),
                "Start",
                BackupPlan.Action.CreatePod.class,
                "Started",
                d -> {
                  var c = (BackupPlan.Action.CreatePod) d.action();
                  assertThat(c.attempt()).isEqualTo(2);
                  assertThat(c.member()).isEqualTo("test-2");
                  assertThat(d.status().getAttempts()).isEqualTo(2);
                  assertThat(d.status().getNextAttemptTime()).isNull();
                  assertThat(d.status().getStartTime()).isEqualTo(CREATED.toString());
                  assertThat(started(d)).contains("from test-2; attempt 2 of 4");
                }),
            new Row(
                "the next attempt's pod runs but its Started was not stored: taken as running",
                view(
                    healthy,
                    Optional.of(retrying(1, NOW.minusSeconds(1))),
                    Optional.of(running(2))),
                "AgentRunning",
                BackupPlan.Action.None.class,
                "Started",
                d -> assertThat(d.status().getAttempts()).isEqualTo(2)),
            new Row(
                "no healthy member after a failed attempt: waits from that attempt, not creation",
                new BackupView(
                    NOW,
                    "b1",
                    Views.NS,
                    Views.NAME,
                    NOW.minus(BackupPlan.MEMBER_DEADLINE).minusSeconds(60),
                    Optional.of(retrying(1, NOW.minusSeconds(30))),
                    Optional.of(Views.healthy(3).down(1).down(2).build()),
                    List.of(),
                    Optional.empty()),
                "NoMember",
                BackupPlan.Action.None.class,
                "Pending",
                d ->
                    assertThat(d.status().getNextAttemptTime())
                        .isEqualTo(NOW.minusSeconds(30) + "")))
        .map(Arguments::of);
  }

  static String failed(BackupPlan.Decision d) {
    return d.status().getConditions().stream()
        .filter(c -> c.getType().equals("Failed"))
        .findFirst()
        .orElseThrow()
        .getMessage();
  }

  static String started(BackupPlan.Decision d) {
    return d.status().getConditions().stream()
        .filter(c -> c.getType().equals("Started"))
        .findFirst()
        .orElseThrow()
        .getMessage();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void decides(Row row) {
    BackupPlan.Decision d = BackupPlan.decide(row.view());
    assertThat(d.rule()).isEqualTo(row.rule());
    assertThat(d.action()).isInstanceOf(row.action());
    assertThat(d.status().getPhase()).isEqualTo(row.phase());
    row.more().accept(d);
  }

  @org.junit.jupiter.api.Test
  void waitingForAHealthyMemberEndsAfterTheDeadline() {
    BackupView late =
        new BackupView(
            NOW,
            "b1",
            Views.NS,
            Views.NAME,
            NOW.minus(BackupPlan.MEMBER_DEADLINE).minus(Duration.ofSeconds(1)),
            Optional.empty(),
            Optional.of(Views.healthy(3).down(1).down(2).build()),
            List.of(),
            Optional.empty());
    BackupPlan.Decision d = BackupPlan.decide(late);
    assertThat(d.status().getPhase()).isEqualTo("Failed");
    assertThat(failed(d)).contains("no quorum");
  }
}
