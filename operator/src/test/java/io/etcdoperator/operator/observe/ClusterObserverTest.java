package io.etcdoperator.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.etcd.ClusterProbe;
import io.etcdoperator.operator.etcd.EtcdFailure;
import io.etcdoperator.operator.etcd.EtcdMember;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.ProbeFailure;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link ClusterObserver#fromProbe}: an etcd probe as the planner's records. */
class ClusterObserverTest {
  private static final String URL0 = "http://127.10.0.1:2379";
  private static final String URL1 = "http://127.10.0.2:2379";
  private static final String URL2 = "http://127.10.0.3:2379";
  private static final String STRANGER = "http://127.10.0.9:2379";
  private static final long CLUSTER = 0xc1;

  private static EtcdStatus answering(String url, long id, long leader, boolean learner) {
    return new EtcdStatus(
        url,
        Optional.empty(),
        CLUSTER,
        id,
        leader,
        7,
        42,
        42,
        learner,
        "3.4.23",
        20480,
        16384,
        List.of("memberID:256 alarm:NOSPACE "),
        99);
  }

  private static io.etcdoperator.operator.etcd.EtcdProbe probe(
      EtcdStatus status, Optional<io.etcdoperator.operator.etcd.EtcdMemberList> list) {
    return new io.etcdoperator.operator.etcd.EtcdProbe(status, list, Optional.empty());
  }

  private static io.etcdoperator.operator.etcd.EtcdMemberList list(String url, long reportedBy) {
    return new io.etcdoperator.operator.etcd.EtcdMemberList(
        url,
        CLUSTER,
        reportedBy,
        List.of(
            new EtcdMember(
                0x100, "etcd-0", List.of("http://127.10.0.1:2380"), List.of(URL0), false),
            new EtcdMember(0x101, "", List.of("http://127.10.0.2:2380"), List.of(), true)));
  }

  private static SortedMap<Integer, String> urls() {
    TreeMap<Integer, String> urls = new TreeMap<>();
    urls.put(0, URL0);
    urls.put(1, URL1);
    urls.put(2, URL2);
    return urls;
  }

  @Test
  void answersUnreachableMembersAndTheChosenListMapByOrdinal() {
    EtcdStatus down =
        new EtcdStatus(
            URL2,
            Optional.of(new ProbeFailure(EtcdFailure.DEADLINE_EXCEEDED, "after 1 s")),
            0,
            0,
            0,
            0,
            0,
            0,
            false,
            "",
            0,
            0,
            List.of(),
            0);
    ClusterProbe etcdProbe =
        new ClusterProbe(
            List.of(
                probe(answering(URL0, 0x100, 0x100, false), Optional.of(list(URL0, 0x100))),
                probe(answering(URL1, 0x101, 0x100, true), Optional.empty()),
                probe(down, Optional.empty())),
            Optional.of(list(URL0, 0x100)),
            Duration.ofMillis(30));

    Probes.Probed probed = Probes.fromProbe(urls(), etcdProbe);

    assertThat(probed.probes()).containsOnlyKeys(0, 1, 2);
    MemberProbe leader = probed.probes().get(0);
    assertThat(leader)
        .isEqualTo(
            new MemberProbe(
                0,
                URL0,
                true,
                null,
                CLUSTER,
                0x100,
                0x100,
                7,
                42,
                false,
                "3.4.23",
                20480,
                List.of("memberID:256 alarm:NOSPACE "),
                99,
                0,
                false,
                16384));
    assertThat(probed.probes().get(1).learner()).isTrue();
    assertThat(probed.probes().get(1).seesLeader()).isTrue();
    assertThat(probed.probes().get(2)).isEqualTo(MemberProbe.unreachable(2, URL2, "not answering"));
    MemberList memberList = probed.memberList().orElseThrow();
    assertThat(memberList.seenFromOrdinal()).isZero();
    assertThat(memberList.members())
        .containsExactly(
            new MemberList.Entry(
                0x100, "etcd-0", List.of("http://127.10.0.1:2380"), List.of(URL0), false),
            new MemberList.Entry(0x101, "", List.of("http://127.10.0.2:2380"), List.of(), true));
    assertThat(memberList.members().get(1).started()).isFalse();
  }

  @Test
  void membersNotAskedForAreIgnoredAndTheirListIsSeenFromNowhere() {
    ClusterProbe etcdProbe =
        new ClusterProbe(
            List.of(
                probe(answering(URL1, 0x101, 0x109, false), Optional.empty()),
                probe(
                    answering(STRANGER, 0x109, 0x109, false), Optional.of(list(STRANGER, 0x109)))),
            Optional.of(list(STRANGER, 0x109)),
            Duration.ofMillis(30));

    Probes.Probed probed = Probes.fromProbe(urls(), etcdProbe);

    assertThat(probed.probes()).containsOnlyKeys(1);
    assertThat(probed.memberList().orElseThrow().seenFromOrdinal()).isEqualTo(-1);
  }

  @Test
  void noAnswerNoList() {
    ClusterProbe etcdProbe = new ClusterProbe(List.of(), Optional.empty(), Duration.ZERO);

    Probes.Probed probed = Probes.fromProbe(urls(), etcdProbe);

    assertThat(probed.probes()).isEmpty();
    assertThat(probed.memberList()).isEmpty();
  }

  /**
   * The cluster version an earlier reconcile read is reused only while it cannot have changed: the
   * same members answer with the same single version, whose major.minor it already is.
   */
  @Test
  void clusterVersionIsAskedAgainUnlessItCannotHaveChanged() {
    record Row(List<String> servers, ClusterObserver.SeenVersion seen, boolean holds) {}
    var steady = new ClusterObserver.SeenVersion(List.of("3.5.30", "3.5.30", "3.5.30"), "3.5.0");
    for (Row row :
        List.of(
            new Row(List.of("3.5.30", "3.5.30", "3.5.30"), steady, true),
            // a member down or back: asked again
            new Row(List.of("3.5.30", "3.5.30"), steady, false),
            // a roll to a new patch version
            new Row(List.of("3.5.30", "3.5.30", "3.5.31"), steady, false),
            // every member upgraded, the cluster version not yet raised: asked until it is
            new Row(
                List.of("3.5.30", "3.5.30", "3.5.30"),
                new ClusterObserver.SeenVersion(List.of("3.5.30", "3.5.30", "3.5.30"), "3.4.0"),
                false),
            // mixed versions in the middle of an upgrade
            new Row(
                List.of("3.4.23", "3.5.30", "3.5.30"),
                new ClusterObserver.SeenVersion(List.of("3.4.23", "3.5.30", "3.5.30"), "3.4.0"),
                false),
            // nobody answers
            new Row(List.of(), steady, false))) {
      assertThat(ClusterObserver.versionHolds(row.servers(), row.seen()))
          .as(row.toString())
          .isEqualTo(row.holds());
    }
  }
}
