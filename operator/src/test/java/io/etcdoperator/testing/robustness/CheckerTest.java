package io.etcdoperator.testing.robustness;

import static io.etcdoperator.testing.robustness.Histories.deleteEvent;
import static io.etcdoperator.testing.robustness.Histories.failedCompare;
import static io.etcdoperator.testing.robustness.Histories.kv;
import static io.etcdoperator.testing.robustness.Histories.putEvent;
import static io.etcdoperator.testing.robustness.Histories.succeeded;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.testing.robustness.Checker.Property;
import io.etcdoperator.testing.robustness.Checker.Report;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The checker on histories written by hand: each known-bad one must be reported under the right
 * property, and each good one (with indeterminate writes applied, not applied, or applied unseen)
 * must pass. Times are in milliseconds; the base revision is 1.
 */
class CheckerTest {

  private static Property property(Report report, String name) {
    return report.properties().stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static void assertOk(Report report) {
    assertThat(report.ok()).as(report.describe(10)).isTrue();
  }

  private static void assertViolated(Report report, String name, String messagePart) {
    Property p = property(report, name);
    assertThat(p.holds()).as(report.describe(10)).isFalse();
    assertThat(p.violations())
        .as(report.describe(10))
        .anyMatch(v -> v.message().contains(messagePart));
  }

  @Nested
  class Linearizable {
    @Test
    void sequentialPutsAndReads() {
      assertOk(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .get(1, 2, 3, "a", kv("a", "c0.1", 2, 2, 1), 2)
              .put(0, 4, 5, "a", "c0.2", 3)
              .get(1, 6, 7, "a", kv("a", "c0.2", 2, 3, 2), 3)
              .delete(0, 8, 9, "a", 1, 4)
              .get(1, 10, 11, "a", null, 4)
              .check());
    }

    @Test
    void aReadConcurrentWithAWriteMaySeeEitherState() {
      assertOk(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 10, "a", "c0.2", 3)
              .get(1, 3, 4, "a", kv("a", "c0.1", 2, 2, 1), 2)
              .get(2, 5, 6, "a", kv("a", "c0.2", 2, 3, 2), 3)
              .check());
    }

    @Test
    void anIndeterminatePutReadLaterWasApplied() {
      Report report =
          new Histories(1)
              .putFailed(0, 0, 5, "a", "c0.1")
              .get(1, 6, 7, "a", kv("a", "c0.1", 2, 2, 1), 2)
              .check();
      assertOk(report);
      assertThat(report.linearization().indeterminateApplied()).isEqualTo(1);
    }

    @Test
    void anIndeterminatePutNeverSeenMayNotHaveHappened() {
      Report report =
          new Histories(1).putFailed(0, 0, 5, "a", "c0.1").get(1, 6, 7, "a", null, 1).check();
      assertOk(report);
      assertThat(report.linearization().indeterminateLeftOut()).isEqualTo(1);
    }

    @Test
    void anIndeterminatePutAppliedAfterItFailedFillsTheRevisionItTook() {
      // the put timed out at 5 but was applied after a read at 6: the revision counter shows it
      assertOk(
          new Histories(1)
              .putFailed(0, 0, 5, "a", "c0.1")
              .get(1, 6, 7, "a", null, 1)
              .put(1, 8, 9, "a", "c1.1", 3)
              .get(1, 10, 11, "a", kv("a", "c1.1", 2, 3, 2), 3)
              .check());
    }

    @Test
    void anIndeterminateDeleteExplainsAGap() {
      assertOk(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .deleteFailed(0, 2, 5, "a")
              .put(1, 6, 7, "b", "c1.1", 4)
              .range(1, 8, 9, List.of(kv("b", "c1.1", 4, 4, 1)), 4)
              .check());
    }

    @Test
    void aTransactionWhoseCompareFailedReadsTheCurrentValue() {
      assertOk(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .casPut(1, 2, 3, "a", 2, "c1.1", succeeded(), 3)
              .casPut(0, 4, 5, "a", 2, "c0.2", failedCompare(kv("a", "c1.1", 2, 3, 2)), 3)
              .check());
    }

    @Test
    void aRevocationDeletesTheKeysOfItsLease() {
      assertOk(
          new Histories(1)
              .putLease(0, 0, 1, "l1", "c0.1", 7, 2)
              .revoke(0, 2, 3, 7, 3)
              .get(1, 4, 5, "l1", null, 3)
              .check());
    }

    @Test
    void aRevocationOfALeaseWithoutKeysChangesNothing() {
      assertOk(
          new Histories(1)
              .putFailed(0, 0, 1, "l1", "c0.1")
              .revoke(0, 2, 3, 7, 1)
              .get(1, 4, 5, "l1", null, 1)
              .check());
    }

    @Test
    void aLeaseThatExpiredAfterAFailedRevocationDeletedItsKeyLater() {
      assertOk(
          new Histories(1)
              .putLease(0, 0, 1, "l1", "c0.1", 7, 2)
              .revokeFailed(0, 2, 3, 7)
              .get(1, 4, 5, "l1", new Kv(Histories.P + "l1", "c0.1", 2, 2, 1, 7), 2)
              .get(1, 30, 31, "l1", null, 3)
              .check());
    }

    @Test
    void theSearchGoesBackWhenTheFirstCandidateIsWrong() {
      // two deletes fail and one of them took revision 4; the first sent (of a) is tried first and
      // is wrong: a read at revision 5 still shows a
      Report report =
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "b", "c0.2", 3)
              .deleteFailed(0, 4, 10, "a")
              .deleteFailed(1, 5, 10, "b")
              .put(2, 11, 12, "c", "c2.1", 5)
              .range(2, 13, 14, List.of(kv("a", "c0.1", 2, 2, 1), kv("c", "c2.1", 5, 5, 1)), 5)
              .check();
      assertOk(report);
      assertThat(report.linearization().steps().get(2).op().id()).isEqualTo(3);
      assertThat(report.linearization().modelSteps()).isGreaterThan(4);
    }
  }

  @Nested
  class NotLinearizable {
    @Test
    void aStaleRead() {
      Report report =
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "a", "c0.2", 3)
              .get(1, 4, 5, "a", kv("a", "c0.1", 2, 2, 1), 2)
              .check();
      assertViolated(report, Linearizer.PROPERTY, "stale read");
      assertThat(report.linearization().violations().get(0).ops())
          .extracting(Op::id)
          .containsExactly(1, 2);
    }

    @Test
    void anOldValueAtTheCurrentRevision() {
      assertViolated(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "a", "c0.2", 3)
              .get(1, 4, 5, "a", kv("a", "c0.1", 2, 2, 1), 3)
              .check(),
          Linearizer.PROPERTY,
          "etcd should have answered Range[kvs=[/r/a=c0.2@3");
    }

    @Test
    void aLostAcknowledgedWrite() {
      assertViolated(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "b", "c0.2", 3)
              .range(1, 4, 5, List.of(kv("b", "c0.2", 3, 3, 1)), 3)
              .check(),
          Linearizer.PROPERTY,
          "should have answered");
    }

    @Test
    void aWriteSeenBeforeItWasMade() {
      assertViolated(
          new Histories(1)
              .get(1, 0, 1, "a", kv("a", "c0.1", 2, 2, 1), 2)
              .put(0, 5, 6, "a", "c0.1", 2)
              .check(),
          Linearizer.PROPERTY,
          "cannot come after");
    }

    @Test
    void anIndeterminateWriteSeenBeforeItWasSent() {
      assertViolated(
          new Histories(1)
              .get(1, 0, 1, "a", kv("a", "c0.1", 2, 2, 1), 2)
              .putFailed(0, 5, 6, "a", "c0.1")
              .check(),
          Linearizer.PROPERTY,
          "seen before it was made");
    }

    @Test
    void aRevisionGoingBackwards() {
      Report report =
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "b", "c0.2", 3)
              .get(0, 4, 5, "b", null, 2)
              .check();
      assertViolated(report, Checker.REVISIONS, "saw revision 2 after revision 3");
      assertViolated(report, Linearizer.PROPERTY, "stale read");
    }

    @Test
    void twoValuesAtOneRevision() {
      assertViolated(
          new Histories(1).put(0, 0, 1, "a", "c0.1", 2).put(1, 0, 1, "b", "c1.1", 2).check(),
          Linearizer.PROPERTY,
          "two different writes at revision 2");
    }

    @Test
    void aRevisionNoOperationWrote() {
      // two clusters behind one Service: each counts its own revisions
      assertViolated(
          new Histories(1).put(0, 0, 1, "a", "c0.1", 2).put(1, 2, 3, "b", "c1.1", 4).check(),
          Linearizer.PROPERTY,
          "something else writes");
    }

    @Test
    void aValueNobodyWrote() {
      assertViolated(
          new Histories(1).get(0, 0, 1, "a", kv("a", "stranger", 2, 2, 1), 2).check(),
          Linearizer.PROPERTY,
          "no operation of the history wrote");
    }

    @Test
    void noPlacementOfTheIndeterminateWritesExplainsTheReads() {
      // one failed put could have taken revision 2, but the read there shows a key it never wrote
      assertViolated(
          new Histories(1)
              .putFailed(0, 0, 10, "a", "c0.1")
              .put(1, 11, 12, "b", "c1.1", 3)
              .get(1, 13, 14, "a", null, 3)
              .check(),
          Linearizer.PROPERTY,
          "revision 3");
    }

    @Test
    void anAnsweredTransactionThatCouldNotHaveSucceeded() {
      assertViolated(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "a", "c0.2", 3)
              .casPut(1, 4, 5, "a", 2, "c1.1", succeeded(), 4)
              .check(),
          Linearizer.PROPERTY,
          "would change nothing");
    }
  }

  @Nested
  class SerializableReads {
    @Test
    void aStaleSerializableReadOfAStateThatExistedIsFine() {
      assertOk(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "a", "c0.2", 3)
              .getSerializable(1, 4, 5, "a", kv("a", "c0.1", 2, 2, 1), 2, 7)
              .check());
    }

    @Test
    void aSerializableReadOfAStateThatNeverExisted() {
      assertViolated(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "a", "c0.2", 3)
              .getSerializable(1, 4, 5, "a", null, 3, 7)
              .check(),
          Checker.SERIALIZABLE,
          "a state that existed");
    }

    @Test
    void aMemberThatGoesBackForOneClient() {
      assertViolated(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .put(0, 2, 3, "a", "c0.2", 3)
              .getSerializable(1, 4, 5, "a", kv("a", "c0.2", 2, 3, 2), 3, 7)
              .getSerializable(1, 6, 7, "a", kv("a", "c0.1", 2, 2, 1), 2, 7)
              .check(),
          Checker.SERIALIZABLE,
          "after it had answered at 3");
    }
  }

  @Nested
  class Watches {
    /** Three puts at revisions 2, 3, 4 and a watcher from revision 2. */
    private Histories threePuts() {
      return new Histories(1)
          .put(0, 0, 1, "a", "c0.1", 2)
          .put(0, 2, 3, "b", "c0.2", 3)
          .put(0, 4, 5, "a", "c0.3", 4)
          .watchRequested(0, 0, 0, 2);
    }

    private static final Watch.Event A1 = putEvent(kv("a", "c0.1", 2, 2, 1));
    private static final Watch.Event B1 = putEvent(kv("b", "c0.2", 3, 3, 1));
    private static final Watch.Event A2 = putEvent(kv("a", "c0.3", 2, 4, 2));

    @Test
    void everyEventInOrder() {
      assertOk(
          threePuts()
              .watchEvents(0, 0, 2, 2, A1)
              .watchEvents(0, 0, 6, 4, B1, A2)
              .watchProgress(0, 0, 7, 4)
              .check());
    }

    @Test
    void aDuplicatedEvent() {
      assertViolated(
          threePuts().watchEvents(0, 0, 2, 2, A1).watchEvents(0, 0, 3, 3, A1, B1).check(),
          WatchChecker.UNIQUE,
          "a second time");
    }

    @Test
    void reorderedEvents() {
      assertViolated(
          threePuts().watchEvents(0, 0, 2, 3, A1).watchEvents(0, 0, 6, 4, A2, B1).check(),
          WatchChecker.ORDERED,
          "after one of 4");
    }

    @Test
    void aSkippedEvent() {
      assertViolated(
          threePuts().watchEvents(0, 0, 6, 4, A1, A2).check(),
          WatchChecker.RELIABLE,
          "revisions 3..3 were skipped");
    }

    @Test
    void aProgressNotificationBeforeTheEvents() {
      assertViolated(
          threePuts().watchEvents(0, 0, 2, 2, A1).watchProgress(0, 0, 6, 4).check(),
          WatchChecker.RELIABLE,
          "progress notification at revision 4");
    }

    @Test
    void anEarlyProgressNotificationIsEtcdsOwnOnVersionsWithTheBug() {
      Report report =
          threePuts()
              .etcd("3.4.23")
              .watchEvents(0, 0, 2, 2, A1)
              .watchProgress(0, 0, 6, 4)
              .watchEvents(0, 0, 7, 4, B1, A2)
              .check();
      assertOk(report);
      assertThat(property(report, KnownIssues.PROPERTY).note()).contains("etcd-io/etcd#15220");
    }

    @Test
    void aRevisionSplitOverTwoResponses() {
      // one revocation deletes two keys at revision 4: both deletions must come together
      Report report =
          new Histories(1)
              .putLease(0, 0, 1, "l1", "c0.1", 7, 2)
              .putLease(0, 2, 3, "l2", "c0.2", 7, 3)
              .revoke(0, 4, 5, 7, 4)
              .watchRequested(0, 0, 0, 4)
              .watchEvents(0, 0, 6, 4, deleteEvent("l1", 4))
              .watchEvents(0, 0, 7, 4, deleteEvent("l2", 4))
              .check();
      assertViolated(report, WatchChecker.ATOMIC, "came in two responses");
    }

    @Test
    void aStreamResumedPastWhatItMissed() {
      assertViolated(
          threePuts()
              .watchEvents(0, 0, 2, 2, A1)
              .watchBroken(0, 0, 3)
              .watchRequested(0, 1, 4, 4)
              .watchEvents(0, 1, 6, 4, A2)
              .check(),
          WatchChecker.RESUMABLE,
          "revisions 3..3 are never delivered");
    }

    @Test
    void aStreamResumesAtTheCompactionRevisionEvenAfterAnotherBreak() {
      // found by the soak (seed 100013): cancelled for a compaction at 4, the next stream broke at
      // once, and the one after also started at 4
      assertOk(
          threePuts()
              .compact(1, 6, 7, 4, 4)
              .watchEvents(0, 0, 2, 2, A1)
              .watchBroken(0, 0, 3)
              .watchRequested(0, 1, 8, 3)
              .watchCompacted(0, 1, 8, 4)
              .watchRequested(0, 2, 9, 4)
              .watchBroken(0, 2, 9)
              .watchRequested(0, 3, 10, 4)
              .watchEvents(0, 3, 11, 4, A2)
              .check());
    }

    @Test
    void aPreviousValueCompactedAwayMayBeLeftOutOfAnEvent() {
      // etcd reads prev_kv at rev - 1; with the history compacted at 4, revision 3 is gone
      Histories h =
          threePuts()
              .compact(1, 6, 7, 4, 4)
              .watchRequestedWithPrevKv(1, 0, 8, 4)
              .watchEvents(1, 0, 9, 4, A2);
      assertOk(h.check());
    }

    @Test
    void aPreviousValueLeftOutWhereNothingWasCompacted() {
      assertViolated(
          threePuts().watchRequestedWithPrevKv(1, 0, 8, 4).watchEvents(1, 0, 9, 4, A2).check(),
          WatchChecker.MATCHES,
          "changed /r/a");
    }

    @Test
    void anEventThatDoesNotMatchTheWrite() {
      assertViolated(
          threePuts().watchEvents(0, 0, 2, 2, putEvent(kv("a", "c0.1", 2, 2, 7))).check(),
          WatchChecker.MATCHES,
          "changed /r/a");
    }

    @Test
    void aDeletionDeliveredAsAPut() {
      assertViolated(
          new Histories(1)
              .put(0, 0, 1, "a", "c0.1", 2)
              .delete(0, 2, 3, "a", 1, 3)
              .watchRequested(0, 0, 0, 3)
              .watchEvents(0, 0, 4, 3, putEvent(kv("a", "c0.1", 2, 3, 2)))
              .check(),
          WatchChecker.MATCHES,
          "deleted");
    }
  }

  @Test
  void aViolationNamesWhatWasBeingDoneToTheCluster() {
    Report report =
        new Histories(1)
            .put(0, 0, 1, "a", "c0.1", 2)
            .put(0, 2, 3, "a", "c0.2", 3)
            .get(1, 4, 5, "a", kv("a", "c0.1", 2, 2, 1), 2)
            .span("action roll", 3, 10)
            .check();
    assertThat(report.describe(5)).contains("during [action roll]").contains("#2 client 1");
  }

  /**
   * A cluster rebuilt from a survivor at revision 3 (the opt-in at 20 ms): the writes acknowledged
   * above it are the rebuild's documented loss, reported and not a violation; a write at or below
   * it missing after the rebuild, or one above it still there, is one.
   */
  @Nested
  class Rebuilt {
    private static final long OPT_IN = 20_000_000;

    private Histories beforeTheLoss() {
      return new Histories(1)
          .put(0, 0, 1, "a", "c0.1", 2)
          .put(1, 2, 3, "b", "c1.1", 3)
          // acknowledged by the old majority, never reached the survivor (at revision 3)
          .put(0, 4, 5, "a", "c0.2", 4)
          .put(1, 6, 7, "c", "c1.2", 5)
          .watchRequested(0, 0, 0, 2)
          .watchEvents(0, 0, 2, 2, putEvent(kv("a", "c0.1", 2, 2, 1)))
          .watchEvents(0, 0, 4, 3, putEvent(kv("b", "c1.1", 3, 3, 1)))
          .watchEvents(0, 0, 6, 4, putEvent(kv("a", "c0.2", 2, 4, 2)));
    }

    @Test
    void theLossAboveTheRevisionIsReportedAndNothingElse() {
      History h =
          beforeTheLoss()
              .range(2, 30, 31, List.of(kv("a", "c0.1", 2, 2, 1), kv("b", "c1.1", 3, 3, 1)), 3)
              .build();
      Report report = new Checker().checkRebuilt(h, 3, OPT_IN);
      assertOk(report);
      Property lost = property(report, Checker.REBUILD_LOSS);
      assertThat(lost.checked()).isEqualTo(2);
      assertThat(lost.note()).contains("2 acknowledged writes above revision 3, revisions 4 to 5");
      // Checked as a plain history, the same is a violation: the rebuild is what explains it.
      assertThat(new Checker().check(h).ok()).isFalse();
    }

    @Test
    void aWriteBelowTheRevisionMissingAfterTheRebuildIsAViolation() {
      History h = beforeTheLoss().range(2, 30, 31, List.of(kv("a", "c0.1", 2, 2, 1)), 3).build();
      assertThat(new Checker().checkRebuilt(h, 3, OPT_IN).ok()).isFalse();
    }

    @Test
    void aWriteAboveTheRevisionStillThereAfterTheRebuildIsAViolation() {
      History h =
          beforeTheLoss()
              .range(
                  2,
                  30,
                  31,
                  List.of(
                      kv("a", "c0.1", 2, 2, 1), kv("b", "c1.1", 3, 3, 1), kv("c", "c1.2", 5, 5, 1)),
                  3)
              .build();
      assertThat(new Checker().checkRebuilt(h, 3, OPT_IN).ok()).isFalse();
    }

    @Test
    void aRebuiltClusterThatMovedOnWithoutTheHistoryIsAViolation() {
      History h =
          beforeTheLoss()
              .range(2, 30, 31, List.of(kv("a", "c0.1", 2, 2, 1), kv("b", "c1.1", 3, 3, 1)), 7)
              .build();
      assertThat(new Checker().checkRebuilt(h, 3, OPT_IN).ok()).isFalse();
    }
  }
}
