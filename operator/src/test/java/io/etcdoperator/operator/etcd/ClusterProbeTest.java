package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClusterProbeTest {
  private static final long CLUSTER = 0xc1;
  private static final long OTHER_CLUSTER = 0xc2;

  /** A member: id, voter or learner, what it answers (null status = unreachable). */
  private record Row(long id, boolean learner, EtcdStatus status) {}

  private static String url(long id) {
    return "http://127.10.0." + id + ":2379";
  }

  private static Row up(long id, long leader, long term) {
    return new Row(id, false, status(id, CLUSTER, leader, term, false));
  }

  private static Row learner(long id, long leader) {
    return new Row(id, true, status(id, CLUSTER, leader, 2, true));
  }

  private static Row down(long id) {
    return new Row(
        id,
        false,
        EtcdStatus.unreachable(url(id), new ProbeFailure(EtcdFailure.UNREACHABLE, "refused")));
  }

  private static EtcdStatus status(long id, long cluster, long leader, long term, boolean learner) {
    return new EtcdStatus(
        url(id),
        Optional.empty(),
        cluster,
        id,
        leader,
        term,
        10,
        10,
        learner,
        "3.4.23",
        1,
        1,
        List.of(),
        7);
  }

  /** Every member that answers serves the same member list, made of all rows. */
  private static ClusterProbe probe(Row... rows) {
    List<EtcdMember> members = new ArrayList<>();
    for (Row r : rows) {
      members.add(
          new EtcdMember(
              r.id(),
              "m" + r.id(),
              List.of("http://p" + r.id()),
              List.of(url(r.id())),
              r.learner()));
    }
    List<EtcdProbe> probes = new ArrayList<>();
    for (Row r : rows) {
      Optional<EtcdMemberList> list =
          r.status().reachable() && !r.learner()
              ? Optional.of(new EtcdMemberList(url(r.id()), CLUSTER, r.id(), members))
              : Optional.empty();
      probes.add(new EtcdProbe(r.status(), list, Optional.empty()));
    }
    return ClusterProbe.of(probes, Duration.ZERO);
  }

  @ParameterizedTest(name = "{0} voters, {1} down, leader up: {2} -> quorum {3}")
  @CsvSource({
    "1, 0, true,  true",
    "1, 1, false, false",
    "2, 0, true,  true",
    "2, 1, true,  false",
    "3, 0, true,  true",
    "3, 1, true,  true",
    "3, 2, true,  false",
    "3, 1, false, false",
    "5, 2, true,  true",
    "5, 3, true,  false",
    "7, 3, true,  true",
    "7, 4, true,  false",
  })
  void quorumNeedsAMajorityOfVotersFollowingTheLeader(
      int voters, int down, boolean leaderUp, boolean expected) {
    List<Row> rows = new ArrayList<>();
    long leader = 1;
    int downLeft = down;
    if (!leaderUp) {
      rows.add(down(leader));
      downLeft--;
    } else {
      rows.add(up(leader, leader, 3));
    }
    for (long id = 2; id <= voters; id++) {
      rows.add(downLeft-- > 0 ? down(id) : up(id, leader, 3));
    }

    assertThat(probe(rows.toArray(Row[]::new)).hasQuorum()).isEqualTo(expected);
  }

  @Test
  void learnersDoNotCountTowardsQuorum() {
    ClusterProbe p = probe(up(1, 1, 3), down(2), down(3), learner(4, 1), learner(5, 1));
    assertThat(p.hasQuorum()).isFalse();
    assertThat(probe(up(1, 1, 3), up(2, 1, 3), down(3), learner(4, 1)).hasQuorum()).isTrue();
  }

  @Test
  void followersOfAnotherLeaderDoNotCount() {
    // 2 and 3 still follow 9 (an old leader) and have not heard of 1 yet.
    ClusterProbe p = probe(up(1, 1, 4), up(2, 9, 3), up(3, 9, 3));
    assertThat(p.hasQuorum()).isFalse();
  }

  @Test
  void noLeaderMeansNoQuorum() {
    ClusterProbe p = probe(up(1, 0, 3), up(2, 0, 3), up(3, 0, 3));
    assertThat(p.leader()).isEmpty();
    assertThat(p.hasQuorum()).isFalse();
    assertThat(p.memberList()).isPresent();
  }

  @Test
  void aDeposedLeaderLosesToTheHigherTerm() {
    ClusterProbe p = probe(up(1, 1, 3), up(2, 2, 4), up(3, 2, 4));
    assertThat(p.leader().orElseThrow().memberId()).isEqualTo(2);
    assertThat(p.leaderEndpoint()).contains(url(2));
    assertThat(p.memberList().orElseThrow().reportedBy()).isEqualTo(2);
    assertThat(p.hasQuorum()).isTrue();
  }

  @Test
  void memberListPrefersTheLeaderThenTheMostAdvancedVoter() {
    assertThat(probe(up(1, 0, 3), up(2, 2, 5), up(3, 2, 5)).memberList().get().reportedBy())
        .isEqualTo(2);
    assertThat(probe(up(1, 0, 3), up(2, 0, 7), down(3)).memberList().get().reportedBy())
        .isEqualTo(2);
    assertThat(probe(down(1), down(2)).memberList()).isEmpty();
  }

  @Test
  void twoClusterIdsAreSplitBrain() {
    Row foreign = new Row(4, false, status(4, OTHER_CLUSTER, 4, 2, false));
    ClusterProbe p = probe(up(1, 1, 3), up(2, 1, 3), up(3, 1, 3), foreign);
    assertThat(p.clusterIds()).containsExactly(CLUSTER, OTHER_CLUSTER);
    assertThat(p.splitBrain()).isTrue();
    assertThat(probe(up(1, 1, 3), down(2)).splitBrain()).isFalse();
    assertThat(probe(down(1)).clusterIds()).isEmpty();
  }

  @Test
  void reachableAndUnreachableAreSplitInOrder() {
    ClusterProbe p = probe(up(1, 1, 3), down(2), up(3, 1, 3));
    assertThat(p.reachable()).extracting(EtcdProbe::endpoint).containsExactly(url(1), url(3));
    assertThat(p.unreachable()).extracting(EtcdProbe::endpoint).containsExactly(url(2));
    assertThat(p.find(url(2))).isPresent();
    assertThat(p.find("http://nowhere:2379")).isEmpty();
  }
}
