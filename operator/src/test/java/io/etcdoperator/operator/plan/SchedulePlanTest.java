package io.etcdoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.plan.SchedulePlan.OwnedBackup;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The schedule's decisions: firing, skipping while a backup runs, retention. */
class SchedulePlanTest {
  static final Instant CREATED = Instant.parse("2026-11-29T00:00:00Z");

  static SchedulePlan.View view(
      Instant now, String schedule, int keepLast, String keepFor, OwnedBackup... backups) {
    return new SchedulePlan.View(
        now,
        "nightly",
        schedule,
        CREATED,
        List.of(),
        keepLast,
        keepFor,
        1,
        Optional.empty(),
        List.of(backups),
        false);
  }

  static OwnedBackup done(String name, Instant at) {
    return new OwnedBackup(name, at, "Complete", Optional.of(at.plusSeconds(5)), "", "");
  }

  static OwnedBackup failed(String name, Instant at) {
    return new OwnedBackup(
        name, at, "Failed", Optional.of(at.plusSeconds(5)), "AgentFailed", "store down");
  }

  @Test
  void firesOnceForTheLatestDueFiringNamedAfterIt() {
    var d =
        SchedulePlan.decide(
            view(Instant.parse("2026-11-29T06:30:00Z"), "0 */6 * * *", 3, ""), null);
    assertThat(d.create())
        .contains(
            new SchedulePlan.Create("nightly-202611290600", Instant.parse("2026-11-29T06:00:00Z")));
    assertThat(d.status().getActive()).isEqualTo("nightly-202611290600");
    assertThat(d.requeueAfter()).isLessThanOrEqualTo(Duration.ofMinutes(5).plusMillis(50));
  }

  @Test
  void nothingDueNothingCreated() {
    Instant six = Instant.parse("2026-11-29T06:00:00Z");
    var d =
        SchedulePlan.decide(
            view(six.plusSeconds(60), "0 */6 * * *", 3, "", done("nightly-202611290600", six)),
            null);
    assertThat(d.create()).isEmpty();
    assertThat(d.status().getLastSuccessfulBackup()).isEqualTo("nightly-202611290600");
    assertThat(d.status().getNextScheduleTime()).isEqualTo("2026-11-29T12:00:00Z");
  }

  @Test
  void aFiringWhileABackupStillRunsStartsNone() {
    Instant t = Instant.parse("2026-11-29T06:00:00Z");
    OwnedBackup running =
        new OwnedBackup("nightly-202611290600", t, "Started", Optional.empty(), "", "");
    var d =
        SchedulePlan.decide(
            view(Instant.parse("2026-11-29T12:00:30Z"), "0 */6 * * *", 3, "", running), null);
    assertThat(d.create()).isEmpty();
    assertThat(d.status().getLastScheduleTime()).isEqualTo("2026-11-29T12:00:00Z");
    assertThat(d.status().getConditions().get(0).getMessage()).contains("skipped", "still runs");
  }

  @Test
  void aSkippedFiringIsNotStartedLater() {
    Instant t = Instant.parse("2026-11-29T06:00:00Z");
    var v =
        new SchedulePlan.View(
            Instant.parse("2026-11-29T12:10:00Z"),
            "nightly",
            "0 */6 * * *",
            CREATED,
            List.of(),
            3,
            "",
            1,
            Optional.of(Instant.parse("2026-11-29T12:00:00Z")),
            List.of(done("nightly-202611290600", t)),
            false);
    assertThat(SchedulePlan.decide(v, null).create()).isEmpty();
  }

  /**
   * A continuous schedule takes its first backup at once (the change log needs a base); after that,
   * and for a schedule that is not continuous, only firings create backups.
   */
  @Test
  void aContinuousScheduleTakesItsFirstBaseAtOnce() {
    Instant now = Instant.parse("2026-11-29T06:31:20Z");
    Instant created = Instant.parse("2026-11-29T06:30:10Z");
    Instant six = Instant.parse("2026-11-29T06:00:00Z");
    record Row(
        boolean continuous,
        Optional<Instant> lastScheduleTime,
        List<OwnedBackup> backups,
        Optional<SchedulePlan.Create> expected) {}
    for (Row row :
        List.of(
            new Row(
                true,
                Optional.empty(),
                List.of(),
                Optional.of(new SchedulePlan.Create("nightly-202611290630", created))),
            new Row(false, Optional.empty(), List.of(), Optional.empty()),
            new Row(true, Optional.of(six), List.of(), Optional.empty()),
            new Row(
                true,
                Optional.empty(),
                List.of(failed("nightly-202611290600", six)),
                Optional.empty()))) {
      var v =
          new SchedulePlan.View(
              now,
              "nightly",
              "0 0 * * *",
              created,
              List.of(),
              3,
              "",
              1,
              row.lastScheduleTime(),
              row.backups(),
              row.continuous());
      var d = SchedulePlan.decide(v, null);
      assertThat(d.create()).as(row.toString()).isEqualTo(row.expected());
      if (row.expected().isPresent()) {
        assertThat(d.status().getLastScheduleTime()).isEqualTo(created.toString());
        assertThat(d.status().getNextScheduleTime()).isEqualTo("2026-11-30T00:00:00Z");
      }
    }
  }

  @Test
  void keepsTheLastNCompleteAndOneFailedDeletingTheRest() {
    Instant t = Instant.parse("2026-11-29T00:00:00Z");
    var d =
        SchedulePlan.decide(
            view(
                t.plus(Duration.ofHours(5)).plusSeconds(30),
                "0 * * * *",
                2,
                "",
                done("b0", t),
                done("b1", t.plusSeconds(3600)),
                failed("b2", t.plusSeconds(7200)),
                done("b3", t.plusSeconds(10800)),
                failed("b4", t.plusSeconds(14400)),
                done("b5", t.plusSeconds(18000))),
            null);
    assertThat(d.delete()).containsExactlyInAnyOrder("b1", "b0", "b2");
    assertThat(d.status().getKept()).isEqualTo(2);
    assertThat(d.status().getConditions().get(1).getStatus()).isEqualTo("False");
  }

  @Test
  void keepForDeletesOldOnesButNeverTheNewestComplete() {
    Instant t = Instant.parse("2026-11-20T00:00:00Z");
    var d =
        SchedulePlan.decide(
            view(
                Instant.parse("2026-11-29T00:10:00Z"),
                "0 0 1 1 *",
                10,
                "3d",
                done("old", t),
                done("older", t.minusSeconds(60))),
            null);
    assertThat(d.delete()).containsExactly("older");
  }

  @Test
  void lastBackupFailedIsReported() {
    Instant t = Instant.parse("2026-11-29T06:00:00Z");
    var d =
        SchedulePlan.decide(
            view(t.plusSeconds(60), "0 */6 * * *", 3, "", failed("nightly-202611290600", t)), null);
    var failedCondition = d.status().getConditions().get(1);
    assertThat(failedCondition.getStatus()).isEqualTo("True");
    assertThat(failedCondition.getReason()).isEqualTo("AgentFailed");
    assertThat(failedCondition.getMessage()).contains("store down");
  }

  @Test
  void anInvalidScheduleIsReportedAndNothingHappens() {
    var d = SchedulePlan.decide(view(CREATED.plusSeconds(3600), "61 * * * *", 3, ""), null);
    assertThat(d.create()).isEmpty();
    assertThat(d.status().getConditions().get(0).getMessage())
        .contains("spec.schedule: invalid cron expression: minute 61");
    var every = SchedulePlan.decide(view(CREATED.plusSeconds(3600), "@every 1h", 3, ""), null);
    assertThat(every.status().getConditions().get(0).getMessage())
        .contains("@every expressions are not supported");
  }

  @Test
  void keepForParses() {
    assertThat(SchedulePlan.keepFor("7d")).contains(Duration.ofDays(7));
    assertThat(SchedulePlan.keepFor("1h30m")).contains(Duration.ofMinutes(90));
    assertThat(SchedulePlan.keepFor("7 days")).isEmpty();
  }
}
