package io.etcdoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.RestoreProgress;
import io.etcdoperator.operator.status.StatusRenderer;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A cluster that starts from a snapshot: restoring, refused (naming each member's reason, nothing
 * started in its place), recorded once formed, reported in status; and the newest backup named when
 * the data is gone.
 */
class RestorePlanTest {
  static final String URI = "s3://backups/test/nightly.db";

  static Target restoring(int replicas) {
    return Target.valid(
        Views.NS,
        Views.NAME,
        3,
        new Target.Desired(
            replicas,
            Views.HASH,
            true,
            "token",
            Views.desired(replicas).image(),
            Optional.of(URI)));
  }

  static ClusterView with(ClusterView v, RestoreProgress r) {
    return v.withRestore(r);
  }

  static String condition(Plan p, String type) {
    var c =
        StatusRenderer.render(p).getConditions().stream()
            .filter(x -> x.getType().equals(type))
            .findFirst()
            .orElseThrow();
    return c.getStatus() + "/" + c.getReason();
  }

  static String message(Plan p, String type) {
    return StatusRenderer.render(p).getConditions().stream()
        .filter(x -> x.getType().equals(type))
        .findFirst()
        .orElseThrow()
        .getMessage();
  }

  @Test
  void whileMembersRestoreTheClusterSaysSo() {
    Plan p = Planner.plan(restoring(3), Views.bootstrapping(3).build());
    assertThat(p.rule()).isEqualTo("Bootstrap");
    assertThat(condition(p, "Ready")).isEqualTo("False/Restoring");
    assertThat(condition(p, "Progressing")).isEqualTo("True/Restoring");
    assertThat(message(p, "Ready")).contains("restoring every member from " + URI);
  }

  @Test
  void aRefusedRestoreNamesEachMembersReasonAndStartsNothing() {
    RestoreProgress refused =
        new RestoreProgress(
            new TreeMap<>(
                Map.of(
                    0,
                        "restore refused: sha256 mismatch: s3://backups/test/nightly.db hashes to ab but its manifest says cd",
                    2, "CreateContainerConfigError: secret \"s3\" not found")),
            Optional.empty());
    Plan p = Planner.plan(restoring(3), with(Views.bootstrapping(3).build(), refused));
    assertThat(p.rule()).isEqualTo("Bootstrap");
    assertThat(p.step()).isInstanceOf(Step.None.class);
    assertThat(condition(p, "Available")).isEqualTo("False/RestoreFailed");
    assertThat(condition(p, "Ready")).isEqualTo("False/RestoreFailed");
    assertThat(condition(p, "Progressing")).isEqualTo("False/RestoreFailed");
    assertThat(condition(p, "Degraded")).isEqualTo("True/RestoreFailed");
    assertThat(message(p, "Ready"))
        .contains(
            "test-0: restore refused: sha256 mismatch",
            "test-2: CreateContainerConfigError: secret \"s3\" not found")
        .contains("no member starts without its data", "spec.bootstrap.restore.source");
  }

  @Test
  void onceFormedTheRestoreIsRecordedAndReported() {
    RestoreProgress done =
        new RestoreProgress(
            new TreeMap<>(),
            Optional.of(
                "{\"restored\":true,\"uri\":\""
                    + URI
                    + "\",\"revision\":1234,\"sha256\":\"abcd\",\"why\":\"restored at 2026-11-29T11:59:00Z\"}"));
    Plan p = Planner.plan(restoring(3), with(Views.healthy(3).build(), done));
    assertThat(p.rule()).isEqualTo("InSync");
    String record =
        p.decision()
            .keep()
            .clusterState()
            .orElseThrow()
            .annotation(Names.RESTORED_FROM_ANNOTATION)
            .orElseThrow();
    assertThat(record).isEqualTo(URI + "@1234@abcd@2026-11-29T11:59:00Z");

    // the next reconcile reads it from the ConfigMap, pods or no pods
    var v = Views.healthy(3).build();
    var state = v.clusterState().orElseThrow();
    var recorded =
        new io.etcdoperator.operator.model.ClusterState(
            state.kind(),
            state.members(),
            state.token(),
            Map.of(Names.RESTORED_FROM_ANNOTATION, record));
    ClusterView later =
        new ClusterView(
            v.now(),
            v.statefulSet(),
            v.pods(),
            v.claims(),
            Optional.of(recorded),
            v.probes(),
            v.memberList());
    var status = StatusRenderer.render(Planner.plan(restoring(3), later)).getRestore();
    assertThat(status.getSource()).isEqualTo(URI);
    assertThat(status.getRevision()).isEqualTo(1234);
    assertThat(status.getChecksum()).isEqualTo("sha256:abcd");
    assertThat(
            Planner.plan(restoring(3), later)
                .decision()
                .keep()
                .clusterState()
                .orElseThrow()
                .annotation(Names.RESTORED_FROM_ANNOTATION))
        .contains(record);
  }

  @Test
  void whenTheDataIsGoneTheNewestBackupIsTheWayOut() {
    Target t =
        Views.target(5)
            .withNewestBackup(
                Optional.of(
                    "EtcdBackup nightly-202611290600 (revision 42, taken 2026-11-29T06:00:05Z, s3://backups/test/nightly-202611290600.db)"));
    Plan p = Planner.plan(t, SurvivorRebuildTest.threeOfFiveWiped().build());
    assertThat(p.rule()).isEqualTo("MajorityDataLost");
    assertThat(message(p, "Ready"))
        .contains("The newest backup is EtcdBackup nightly-202611290600 (revision 42")
        .contains("spec.bootstrap.restore.source");
    Plan none = Planner.plan(Views.target(5), SurvivorRebuildTest.threeOfFiveWiped().build());
    assertThat(message(none, "Ready")).contains("No complete EtcdBackup of this cluster exists");
  }
}
