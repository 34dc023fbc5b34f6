package io.etcdoperator.testing.robustness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Histories recorded by real runs, kept in {@code src/test/resources/robustness/} and replayed:
 * each one's verdict is part of the checker's contract. A violation found by a run gets its history
 * here, with the verdict it must keep (fixed: none; etcd's own: reported as such).
 */
class HistoryReplayTest {
  private static History read(String name) throws IOException {
    try (InputStream in = HistoryReplayTest.class.getResourceAsStream("/robustness/" + name)) {
      assertThat(in).as(name).isNotNull();
      return HistoryFile.read(in, true);
    }
  }

  private static History withVersions(History h, String versions) {
    Map<String, String> about = new HashMap<>(h.about());
    about.put("etcd versions", versions);
    return new History(h.prefix(), h.baseRevision(), h.ops(), h.watches(), h.spans(), about);
  }

  private static Checker.Property property(Checker.Report r, String name) {
    return r.properties().stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
  }

  @Test
  void membersKilledAndRestartedOnEtcd35() throws IOException {
    Checker.Report report = new Checker().check(read("kill-restart-etcd-3.5.30.json.gz"));
    assertThat(report.ok()).as(report.describe(5)).isTrue();
  }

  @Test
  void twoClustersBehindOneSetOfEndpoints() throws IOException {
    Checker.Report report = new Checker().check(read("two-clusters.json.gz"));
    assertThat(report.linearization().verdict()).isEqualTo(Linearizer.Verdict.VIOLATED);
  }

  /**
   * A soak run (seed 100013: defragmentation + the leader cut off from its peers) whose watcher was
   * cancelled for a compaction, broke again and resumed at the compaction revision, whose first
   * event etcd sent without its compacted-away previous value: both etcd's documented behaviour,
   * both once reported by the checker, now not.
   */
  @Test
  void aWatchResumedAtACompactionRevision() throws IOException {
    Checker.Report report = new Checker().check(read("soak-100013-compacted-resume.json.gz"));
    assertThat(report.ok()).as(report.describe(5)).isTrue();
  }

  /**
   * An upgrade's run (seed 2803) on etcd 3.4.23: a requested progress notification at revision 85
   * came before the event of revision 85, etcd-io/etcd#15220. With 3.4.23 in the history it is
   * etcd's own known issue and nothing else is wrong; the same history said to be from 3.5.30
   * (which has the fix) is a violation of the watch's reliability.
   */
  @Test
  void aProgressNotificationBeforeItsEventsOnEtcd3423IsEtcdsOwnKnownIssue() throws IOException {
    History h = read("progress-before-events-etcd-3.4.23.json.gz");
    Checker.Report on34 = new Checker().check(withVersions(h, "3.4.23,3.5.30"));
    assertThat(on34.ok()).as(on34.describe(5)).isTrue();
    assertThat(property(on34, KnownIssues.PROPERTY)).isNotNull();
    assertThat(property(on34, KnownIssues.PROPERTY).note())
        .contains("etcd-io/etcd#15220")
        .contains("revision 85");
    Checker.Report on35 = new Checker().check(withVersions(h, "3.5.30"));
    assertThat(property(on35, WatchChecker.RELIABLE).holds()).isFalse();
    assertThat(property(on35, WatchChecker.ORDERED).holds()).as(on35.describe(5)).isTrue();
  }
}
