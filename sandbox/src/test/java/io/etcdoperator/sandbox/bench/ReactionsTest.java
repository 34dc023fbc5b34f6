package io.etcdoperator.sandbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** When the benchmark takes a cluster's status for settled, and what it reads from etcd's logs. */
class ReactionsTest {
  static EtcdCluster cluster(
      long generation, Long observed, String ready, String progressing, MemberStatus... members) {
    EtcdCluster c = new EtcdCluster();
    c.setMetadata(new ObjectMetaBuilder().withName("bench").withGeneration(generation).build());
    EtcdClusterStatus s = new EtcdClusterStatus();
    s.setObservedGeneration(observed);
    List<Condition> conditions = new ArrayList<>();
    if (ready != null) {
      conditions.add(new ConditionBuilder().withType("Ready").withStatus(ready).build());
    }
    if (progressing != null) {
      conditions.add(
          new ConditionBuilder().withType("Progressing").withStatus(progressing).build());
    }
    s.setConditions(conditions);
    s.setMembers(List.of(members));
    c.setStatus(s);
    return c;
  }

  static MemberStatus member(String name, boolean healthy, String role) {
    MemberStatus m = new MemberStatus();
    m.setName(name);
    m.setHealthy(healthy);
    m.setRole(role);
    return m;
  }

  static final MemberStatus V0 = member("bench-0", true, MemberStatus.VOTER);
  static final MemberStatus V1 = member("bench-1", true, MemberStatus.VOTER);
  static final MemberStatus V2 = member("bench-2", true, MemberStatus.VOTER);

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "all healthy voters, Ready, not progressing",
            cluster(2, 2L, "True", "False", V0, V1, V2),
            2,
            3,
            true),
        Arguments.of(
            "the new generation not yet observed",
            cluster(2, 1L, "True", "False", V0, V1, V2),
            2,
            3,
            false),
        Arguments.of(
            "no observed generation", cluster(2, null, "True", "False", V0, V1, V2), 2, 3, false),
        Arguments.of("Ready False", cluster(2, 2L, "False", "False", V0, V1, V2), 2, 3, false),
        Arguments.of("no Ready condition", cluster(2, 2L, null, "False", V0, V1, V2), 2, 3, false),
        Arguments.of("still progressing", cluster(2, 2L, "True", "True", V0, V1, V2), 2, 3, false),
        Arguments.of(
            "no Progressing condition: not progressing",
            cluster(2, 2L, "True", null, V0, V1, V2),
            2,
            3,
            true),
        Arguments.of("a member short", cluster(2, 2L, "True", "False", V0, V1), 2, 3, false),
        Arguments.of(
            "one unhealthy",
            cluster(2, 2L, "True", "False", V0, V1, member("bench-2", false, MemberStatus.VOTER)),
            2,
            3,
            false),
        Arguments.of(
            "a learner not yet promoted",
            cluster(
                2, 2L, "True", "False", V0, V1, V2, member("bench-3", true, MemberStatus.LEARNER)),
            2,
            4,
            false),
        Arguments.of(
            "four voters after a scale-up",
            cluster(
                3, 3L, "True", "False", V0, V1, V2, member("bench-3", true, MemberStatus.VOTER)),
            3,
            4,
            true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void settled(String why, EtcdCluster c, long generation, int members, boolean settled) {
    assertThat(Readings.settled(c, generation, members)).as(why).isEqualTo(settled);
  }

  @Test
  void etcdsLogTimesAreReadFromBothVersionsLines() {
    // etcd 3.5's zap line and 3.4's (milliseconds)
    assertThat(
            Readings.ts(
                "{\"level\":\"info\",\"ts\":\"2026-12-07T11:40:01.123456Z\",\"caller\":\"membership/cluster.go:472\",\"msg\":\"removed member\"}"))
        .contains(Instant.parse("2026-12-07T11:40:01.123456Z"));
    assertThat(
            Readings.ts(
                "{\"level\":\"info\",\"ts\":\"2026-12-07T11:40:01.123Z\",\"msg\":\"added member\"}"))
        .contains(Instant.parse("2026-12-07T11:40:01.123Z"));
    assertThat(Readings.ts("raft2026/12/07 11:40:01 INFO: not json")).isEmpty();
    assertThat(Readings.ts("{\"ts\":\"yesterday\"}")).isEmpty();
    assertThat(Readings.ts("{\"ts\":\"2026-12-07T11:40")).isEmpty();
  }

  static Pod exited(Integer exitCode, String finishedAt, boolean last) {
    ContainerState terminated =
        new ContainerStateBuilder()
            .withNewTerminated()
            .withExitCode(exitCode)
            .withFinishedAt(finishedAt)
            .endTerminated()
            .build();
    return new PodBuilder()
        .withNewStatus()
        .addNewContainerStatus()
        .withName("etcd")
        .withState(
            last ? new ContainerStateBuilder().withNewRunning().endRunning().build() : terminated)
        .withLastState(last ? terminated : null)
        .endContainerStatus()
        .endStatus()
        .build();
  }

  @Test
  void aContainersOwnExitIsToldFromTheKillBeforeIt() {
    Instant at = Instant.parse("2026-12-07T11:49:28.500Z");
    assertThat(Readings.exitedSince(exited(2, "2026-12-07T11:49:28.800Z", false), at)).isTrue();
    assertThat(Readings.exitedSince(exited(2, "2026-12-07T11:49:29.100Z", true), at))
        .as("in the last state, once restarted")
        .isTrue();
    assertThat(Readings.exitedSince(exited(2, "2026-12-07T11:49:28Z", true), at))
        .as("Kubernetes writes seconds: the same second counts")
        .isTrue();
    assertThat(Readings.exitedSince(exited(137, "2026-12-07T11:49:28.800Z", false), at))
        .as("the wipe's own kill")
        .isFalse();
    assertThat(Readings.exitedSince(exited(2, "2026-12-07T11:49:20Z", true), at))
        .as("an exit before the wipe")
        .isFalse();
    assertThat(Readings.exitedSince(exited(2, null, false), at)).isFalse();
    assertThat(Readings.exitedSince(new Pod(), at)).isFalse();
  }

  @Test
  void theSummaryGivesEachScenariosMediansWithTheirGoalsAndSaysWhatWasNotSeen() {
    Optional<Duration> none = Optional.empty();
    List<List<Reactions.Result>> runs =
        List.of(
            results(ms(400), ms(30), ms(20), ms(40), ms(10), ms(50), ms(5), ms(60)),
            results(ms(600), ms(50), none, none, ms(30), ms(70), ms(15), ms(80)),
            results(ms(500), ms(40), ms(60), ms(20), ms(20), ms(90), ms(25), ms(100)));
    String summary = Reactions.summary(runs);
    assertThat(summary)
        .contains(
            "member killed: kill -> status shows it 500 ms (goal <= 5 s); member back and Ready -> status 40 ms (goal <= 100 ms)")
        .contains("member wiped: its etcd's exit seen -> member removed 40 ms (goal <= 100 ms)")
        .contains("; new member promoted and Ready -> status 30 ms (goal <= 100 ms)")
        .contains(
            "roll of 3: spec seen -> first action 20 ms (goal <= 100 ms); last pod Ready -> status 70 ms")
        .contains(
            "scale-up 3 -> 4: spec seen -> first action 15 ms (goal <= 100 ms); new member promoted and Ready -> status 80 ms");
    assertThat(Reactions.summary(List.of(results(none, none, none, none, none, none, none, none))))
        .contains("member killed: kill -> status shows it (unseen)");
  }

  private static List<Reactions.Result> results(Optional<Duration>... figures) {
    List<Reactions.Result> out = new ArrayList<>();
    for (int i = 0; i < Reactions.SCENARIOS.size(); i++) {
      out.add(new Reactions.Result(Reactions.SCENARIOS.get(i), figures[2 * i], figures[2 * i + 1]));
    }
    return out;
  }

  private static Optional<Duration> ms(long ms) {
    return Optional.of(Duration.ofMillis(ms));
  }
}
