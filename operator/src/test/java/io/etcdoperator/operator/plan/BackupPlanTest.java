package io.etcdoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
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
        waiting.isEmpty() ? "" : "secret \"s3\" not found");
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
                d -> assertThat(failed(d)).contains("disappeared before it reported a result")))
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
