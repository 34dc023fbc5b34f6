package io.etcdoperator.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.operator.status.Transitions.Notice;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TransitionsTest {
  static EtcdClusterStatus status(
      String available, String reason, String ready, String readyReason, MemberStatus... members) {
    EtcdClusterStatus s = new EtcdClusterStatus();
    s.setConditions(
        new ArrayList<>(
            List.of(
                cond("Available", available, reason),
                cond("Ready", ready, readyReason),
                cond("Degraded", "False", "X"))));
    s.setMembers(new ArrayList<>(List.of(members)));
    return s;
  }

  static Condition cond(String type, String status, String reason) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(reason + " message")
        .build();
  }

  /** The status with condition {@code type} set (replaced when present). */
  static EtcdClusterStatus with(
      EtcdClusterStatus s, String type, String status, String reason, String... message) {
    s.getConditions().removeIf(c -> c.getType().equals(type));
    Condition c = cond(type, status, reason);
    if (message.length > 0) {
      c.setMessage(message[0]);
    }
    s.getConditions().add(c);
    return s;
  }

  static MemberStatus member(String name, String id, boolean healthy) {
    MemberStatus m = member(name, healthy);
    m.setId(id);
    return m;
  }

  static MemberStatus member(String name, boolean healthy) {
    MemberStatus m = new MemberStatus();
    m.setName(name);
    m.setHealthy(healthy);
    m.setMessage(healthy ? null : "unreachable: connection refused");
    return m;
  }

  /** The operator cannot reach test-1 (its pod is Ready): its health is unknown. */
  static EtcdClusterStatus outOfSight() {
    MemberStatus m = new MemberStatus();
    m.setName("test-1");
    m.setId("1f");
    m.setMessage("health unknown: the operator cannot reach it");
    return status("Unknown", "CannotReachMembers", "Unknown", "CannotReachMembers", m);
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        Arguments.of(
            "first look at a new cluster",
            null,
            status("False", "Bootstrapping", "False", "Bootstrapping"),
            List.of("Normal BootstrapStarted")),
        Arguments.of(
            "bootstrap finished",
            status("False", "Bootstrapping", "False", "Bootstrapping"),
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            List.of("Normal BootstrapFinished")),
        Arguments.of(
            "quorum lost",
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            status("False", "QuorumLost", "False", "QuorumLost"),
            List.of("Warning QuorumLost")),
        Arguments.of(
            "quorum regained",
            status("False", "QuorumLost", "False", "QuorumLost"),
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            List.of("Normal QuorumRegained")),
        Arguments.of(
            "split brain",
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            status("False", "SplitBrain", "False", "SplitBrain"),
            List.of("Warning SplitBrain")),
        Arguments.of(
            "a majority lost its data while quorum was already lost",
            status("False", "QuorumLost", "False", "QuorumLost"),
            status("False", "MajorityDataLost", "False", "MajorityDataLost"),
            List.of("Warning MajorityDataLost")),
        Arguments.of(
            "a majority lost its data at once",
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            status("False", "MajorityDataLost", "False", "MajorityDataLost"),
            List.of("Warning MajorityDataLost")),
        Arguments.of(
            "still a majority without data: no repeat",
            status("False", "MajorityDataLost", "False", "MajorityDataLost"),
            status("False", "MajorityDataLost", "False", "MajorityDataLost"),
            List.of()),
        Arguments.of(
            "invalid spec",
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            status("True", "QuorumHeld", "False", "InvalidSpec"),
            List.of("Warning InvalidSpec")),
        Arguments.of(
            "still invalid, same message: no repeat",
            status("True", "QuorumHeld", "False", "InvalidSpec"),
            status("True", "QuorumHeld", "False", "InvalidSpec"),
            List.of()),
        Arguments.of(
            "member unhealthy",
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-1", true)),
            status("True", "QuorumHeld", "False", "MembersUnreachable", member("test-1", false)),
            List.of("Warning MemberUnhealthy")),
        Arguments.of(
            "member removed by a scale-down, its pod still there: no warning",
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-3", "3f", true)),
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-3", null, false)),
            List.of()),
        Arguments.of(
            "a member of the list goes unhealthy: warning",
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-3", "3f", true)),
            status(
                "True", "QuorumHeld", "False", "MembersUnreachable", member("test-3", "3f", false)),
            List.of("Warning MemberUnhealthy")),
        Arguments.of(
            "hibernating: members stopping is no warning",
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-1", "1f", true)),
            status("True", "QuorumHeld", "False", "Hibernated", member("test-1", "1f", false)),
            List.of()),
        Arguments.of(
            "waking up from hibernation: no quorum yet, and that is expected",
            status("False", "Hibernated", "False", "Hibernated"),
            status("False", "QuorumLost", "False", "QuorumLost"),
            List.of("Normal WakingUp")),
        Arguments.of(
            "member back",
            status("True", "QuorumHeld", "False", "MembersUnreachable", member("test-1", false)),
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-1", true)),
            List.of("Normal MemberHealthy")),
        Arguments.of(
            "the operator loses sight of the members: one warning, no member called unhealthy",
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-1", "1f", true)),
            outOfSight(),
            List.of("Warning CannotReachMembers")),
        Arguments.of("still out of sight: no repeat", outOfSight(), outOfSight(), List.of()),
        Arguments.of(
            "sight regained: one notice, no member called back",
            outOfSight(),
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-1", "1f", true)),
            List.of("Normal MembersReachable")),
        Arguments.of(
            "bootstrap finished with every member healthy: one notice, no member called back",
            status("False", "Bootstrapping", "False", "Bootstrapping", member("test-0", false)),
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-0", "af", true)),
            List.of("Normal BootstrapFinished")),
        Arguments.of(
            "NOSPACE raised: one warning",
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            with(status("True", "QuorumHeld", "False", "NoSpace"), "Degraded", "True", "NoSpace"),
            List.of("Warning NoSpace")),
        Arguments.of(
            "NOSPACE still being recovered, its message changed: no repeat",
            with(status("True", "QuorumHeld", "False", "NoSpace"), "Degraded", "True", "NoSpace"),
            with(
                status("True", "QuorumHeld", "False", "NoSpace"),
                "Degraded",
                "True",
                "NoSpace",
                "recovering: defragment test-1"),
            List.of()),
        Arguments.of(
            "NOSPACE disarmed: one notice",
            with(status("True", "QuorumHeld", "False", "NoSpace"), "Degraded", "True", "NoSpace"),
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            List.of("Normal SpaceRecovered")),
        Arguments.of(
            "paused, then resumed",
            status("True", "QuorumHeld", "True", "AllMembersReady"),
            with(
                status("True", "QuorumHeld", "True", "AllMembersReady"),
                "Paused",
                "True",
                "PausedByAnnotation"),
            List.of("Normal Paused")),
        Arguments.of(
            "resumed",
            with(
                status("True", "QuorumHeld", "True", "AllMembersReady"),
                "Paused",
                "True",
                "PausedByAnnotation"),
            with(
                status("True", "QuorumHeld", "True", "AllMembersReady"),
                "Paused",
                "False",
                "NotPaused"),
            List.of("Normal Resumed")),
        Arguments.of(
            "nothing changed",
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-1", true)),
            status("True", "QuorumHeld", "True", "AllMembersReady", member("test-1", true)),
            List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void notices(
      String name, EtcdClusterStatus before, EtcdClusterStatus after, List<String> expected) {
    assertThat(Transitions.between(before, after))
        .extracting((Notice n) -> (n.warning() ? "Warning " : "Normal ") + n.reason())
        .containsExactlyElementsOf(expected);
  }

  @org.junit.jupiter.api.Test
  void aMemberHealthyAgainAndAMemberThatJoinedAreToldApart() {
    EtcdClusterStatus before =
        status(
            "True",
            "QuorumHeld",
            "False",
            "MembersUnreachable",
            unhealthySince(member("test-1", "1f", false), "2026-12-01T12:00:00Z"),
            member("test-2", "2f", false),
            member("test-3", false));
    EtcdClusterStatus after =
        status(
            "True",
            "QuorumHeld",
            "True",
            "AllMembersReady",
            member("test-1", "1f", true),
            member("test-2", "2f", true),
            member("test-3", "3f", true));
    // test-2 was listed but never healthy (a slow start at bootstrap): not "again".
    assertThat(Transitions.between(before, after))
        .extracting(Notice::message)
        .containsExactly(
            "test-1 is healthy again",
            "test-2 is healthy (for the first time since it was listed)",
            "test-3 joined the cluster and is healthy");
  }

  static MemberStatus unhealthySince(MemberStatus m, String since) {
    m.setUnhealthySince(since);
    return m;
  }

  static MemberStatus on(MemberStatus m, String node, String unreachableSince) {
    m.setNode(node);
    m.setNodeUnreachableSince(unreachableSince);
    return m;
  }

  @org.junit.jupiter.api.Test
  void aMemberNodeLostThenBackIsToldOnceEach() {
    EtcdClusterStatus ok =
        status(
            "True",
            "QuorumHeld",
            "True",
            "AllMembersReady",
            on(member("test-1", "1f", true), "node-1", null));
    EtcdClusterStatus lost =
        status(
            "True",
            "QuorumHeld",
            "False",
            "MembersUnreachable",
            unhealthySince(
                on(member("test-1", "1f", false), "node-1", "2026-12-01T12:00:00Z"),
                "2026-12-01T12:00:00Z"));
    EtcdClusterStatus stillLost =
        status(
            "True",
            "QuorumHeld",
            "False",
            "MembersUnreachable",
            on(member("test-1", "1f", false), "node-1", "2026-12-01T12:00:00Z"));
    assertThat(Transitions.between(ok, lost))
        .extracting(Notice::reason)
        .containsExactly("MemberUnhealthy", "MemberNodeUnreachable");
    assertThat(Transitions.between(lost, stillLost)).isEmpty();
    assertThat(Transitions.between(lost, ok))
        .extracting(n -> n.reason() + ": " + n.message())
        .containsExactly(
            "MemberHealthy: test-1 is healthy again",
            "MemberNodeBack: test-1: node node-1 is reachable again");
  }

  @org.junit.jupiter.api.Test
  void aMemberReplacedOnAnotherNodeIsNotToldBackOnItsNode() {
    EtcdClusterStatus removed =
        status(
            "True",
            "QuorumHeld",
            "False",
            "MembersUnreachable",
            on(member("test-1", false), null, "2026-12-01T12:00:00Z"));
    EtcdClusterStatus replaced =
        status(
            "True",
            "QuorumHeld",
            "True",
            "AllMembersReady",
            on(member("test-1", "2f", true), "node-0", null));
    assertThat(Transitions.between(removed, replaced))
        .extracting(Notice::reason)
        .doesNotContain("MemberNodeBack");
  }

  @org.junit.jupiter.api.Test
  void membersThatNewlyShareANodeAreToldOnce() {
    EtcdClusterStatus apart =
        status(
            "True",
            "QuorumHeld",
            "True",
            "AllMembersReady",
            on(member("test-0", "af", true), "node-0", null),
            on(member("test-1", "bf", true), "node-1", null));
    EtcdClusterStatus together =
        status(
            "True",
            "QuorumHeld",
            "True",
            "AllMembersReady",
            on(member("test-0", "af", true), "node-0", null),
            on(member("test-1", "bf", true), "node-0", null));
    assertThat(Transitions.between(apart, together))
        .extracting(n -> n.reason() + ": " + n.message())
        .singleElement()
        .asString()
        .startsWith(
            "MembersShareNode: test-0, test-1 run on node node-0: losing it loses them all");
    assertThat(Transitions.between(together, together)).isEmpty();
  }
}
