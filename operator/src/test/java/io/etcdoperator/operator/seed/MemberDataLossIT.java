package io.etcdoperator.operator.seed;

import static io.etcdoperator.operator.seed.RealClusterPlans.CLUSTER;
import static io.etcdoperator.operator.seed.RealClusterPlans.HEALTHY;
import static io.etcdoperator.operator.seed.RealClusterPlans.keys;
import static io.etcdoperator.operator.seed.RealClusterPlans.logSinceLastStart;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcdoperator.operator.etcd.ClusterProbe;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What etcd 3.4.23 does when one member of a healthy 3-member cluster loses its data directory and
 * is started again with the same name and peer URL: how the operator can tell, from the process's
 * exit code and its last words, that a member lost its data.
 *
 * <ul>
 *   <li>With {@code --initial-cluster-state=existing}: the member fetches the member list from its
 *       peers and starts with an empty raft log. If the leader is the one that had this member's
 *       acknowledgements (it remembers how far the member's log went), its first heartbeat commits
 *       up to that index and the member panics: exit code 2, "tocommit(N) is out of range
 *       [lastIndex(0)]. Was the raft log corrupted, truncated, or lost?". It panics again on every
 *       restart for as long as that leader leads. Under a leader elected after the data was lost
 *       (or after leadership moved), it joins and receives the data (log or snapshot).
 *   <li>With {@code --initial-cluster-state=new}: it asks its peers whether it is already known,
 *       and exits with code 1: "member <id> has already been bootstrapped" (logged as fatal,
 *       "discovery failed"). Every time.
 * </ul>
 */
@ParameterizedClass(name = "etcd {0}")
@ValueSource(strings = {"3.4", "3.5"})
class MemberDataLossIT {
  /** The etcd version this run of the class uses (both supported ones run). */
  @Parameter String version;

  private static final Pattern TOCOMMIT =
      Pattern.compile(
          "panic: tocommit\\((\\d+)\\) is out of range \\[lastIndex\\(0\\)\\]\\. Was the raft log"
              + " corrupted, truncated, or lost\\?");
  private static final Duration EXIT = Duration.ofSeconds(20);
  private static RealClusterPlans real;

  @BeforeAll
  static void start() {
    real = new RealClusterPlans();
  }

  @AfterAll
  static void stop() {
    real.close();
  }

  @Test
  void wipedFollowerStartedAsExistingPanicsUntilLeadershipMoves() throws Exception {
    try (LocalEtcdCluster cluster =
        LocalEtcdCluster.builder().version(version).name(CLUSTER).members(3).start()) {
      cluster.awaitHealthy(HEALTHY);
      List<LocalEtcdMember> all = cluster.members();
      real.put(cluster, all, keys("k", 20));
      EtcdStatus leader = real.awaitQuorum(cluster, all).leader().orElseThrow();
      LocalEtcdMember victim = follower(cluster, leader);
      long victimId = real.probe(cluster, List.of(victim)).members().get(0).status().memberId();
      List<LocalEtcdMember> others = all.stream().filter(m -> m != victim).toList();

      victim.kill();
      victim.wipeData();
      real.put(cluster, others, keys("during", 1));
      victim.startExisting(LocalEtcdCluster.initialCluster(all));
      OptionalInt firstExit = victim.awaitExit(EXIT);
      String firstLog = logSinceLastStart(victim);
      EtcdStatus leaderNow = real.awaitQuorum(cluster, others).leader().orElseThrow();
      assumeTrue(
          leaderNow.memberId() == leader.memberId() && leaderNow.raftTerm() == leader.raftTerm(),
          "leadership changed meanwhile: the member joins instead of panicking");

      assertThat(firstExit).as(tail(firstLog)).hasValue(2);
      Matcher panic = TOCOMMIT.matcher(firstLog);
      assertThat(panic.find()).as(tail(firstLog)).isTrue();
      assertThat(Long.parseLong(panic.group(1))).isPositive();
      assertThat(firstLog)
          .contains("\"level\":\"panic\"")
          .contains("\"msg\":\"tocommit(" + panic.group(1) + ") is out of range [lastIndex(0)]");
      report("existing, first start", firstExit, firstLog);

      // The data directory now has a WAL: the next start is a restart of this member, and it
      // panics the same way while the same leader leads.
      victim.restart();
      OptionalInt secondExit = victim.awaitExit(EXIT);
      String secondLog = logSinceLastStart(victim);
      assertThat(secondExit).as(tail(secondLog)).hasValue(2);
      assertThat(TOCOMMIT.matcher(secondLog).find()).as(tail(secondLog)).isTrue();
      assertThat(Files.exists(victim.dataDir().resolve("member/wal"))).isTrue();

      // A new leader knows nothing of this member's log: the member joins and gets the data.
      LocalEtcdMember other = others.stream().filter(m -> !isLeader(m, leader)).findFirst().get();
      long otherId = real.probe(cluster, List.of(other)).members().get(0).status().memberId();
      real.etcd.moveLeader(
          RealClusterPlans.key(cluster), leader.endpoint(), leader.clusterId(), otherId);
      victim.restart();
      cluster.awaitHealthy(HEALTHY);
      await("the wiped member caught up")
          .atMost(HEALTHY)
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> real.localValue(victim, "during1").isPresent());
      assertThat(real.localValue(victim, "k20")).contains("v20");
      EtcdStatus rejoined = real.probe(cluster, List.of(victim)).members().get(0).status();
      assertThat(rejoined.memberId()).isEqualTo(victimId);
      assertThat(rejoined.clusterId()).isEqualTo(leader.clusterId());
      assertThat(victim.isRunning()).isTrue();
    }
  }

  @Test
  void wipedMemberStartedAsNewExitsBecauseItWasBootstrapped() throws Exception {
    try (LocalEtcdCluster cluster =
        LocalEtcdCluster.builder().version(version).name(CLUSTER).members(3).start()) {
      cluster.awaitHealthy(HEALTHY);
      List<LocalEtcdMember> all = cluster.members();
      real.put(cluster, all, keys("k", 5));
      EtcdStatus leader = real.awaitQuorum(cluster, all).leader().orElseThrow();
      LocalEtcdMember victim = follower(cluster, leader);
      long victimId = real.probe(cluster, List.of(victim)).members().get(0).status().memberId();

      victim.kill();
      victim.wipeData();
      victim.startNew(LocalEtcdCluster.initialCluster(all));
      OptionalInt exit = victim.awaitExit(EXIT);
      String log = logSinceLastStart(victim);

      String refusal = "member " + Long.toHexString(victimId) + " has already been bootstrapped";
      assertThat(exit).as(tail(log)).hasValue(1);
      assertThat(lastLine(log))
          .contains("\"level\":\"fatal\"")
          .contains("\"msg\":\"discovery failed\"")
          .contains("\"error\":\"" + refusal + "\"");
      report("new, first start", exit, log);

      victim.restart();
      OptionalInt again = victim.awaitExit(EXIT);
      assertThat(again).hasValue(1);
      assertThat(lastLine(logSinceLastStart(victim))).contains(refusal);
      // nothing was written but an empty backend: a later start as existing is a fresh join
      assertThat(Files.exists(victim.dataDir().resolve("member/wal"))).isFalse();
      ClusterProbe rest = real.awaitQuorum(cluster, all.stream().filter(m -> m != victim).toList());
      assertThat(rest.memberList().orElseThrow().find(victimId)).isPresent();
    }
  }

  private static LocalEtcdMember follower(LocalEtcdCluster cluster, EtcdStatus leader) {
    return cluster.members().stream().filter(m -> !isLeader(m, leader)).findFirst().orElseThrow();
  }

  private static boolean isLeader(LocalEtcdMember m, EtcdStatus leader) {
    return m.clientUrl().equals(leader.endpoint());
  }

  private static String lastLine(String log) {
    String[] lines = log.strip().split("\n");
    return lines[lines.length - 1];
  }

  private static String tail(String log) {
    String[] lines = log.split("\n");
    return String.join(
        "\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 12), lines.length));
  }

  /**
   * Prints what a Kubernetes termination message would hold ({@code FallbackToLogsOnError}: the
   * last 2048 bytes or 80 lines of the log, whichever is smaller) and whether the line that says
   * what happened is in it.
   */
  private static void report(String what, OptionalInt exit, String log) {
    String[] lines = log.split("\n");
    int from = Math.max(0, lines.length - 80);
    String last80 = String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
    byte[] bytes = last80.getBytes(StandardCharsets.UTF_8);
    String message =
        bytes.length <= 2048
            ? last80
            : new String(bytes, bytes.length - 2048, 2048, StandardCharsets.UTF_8);
    boolean panicLine = TOCOMMIT.matcher(message).find();
    boolean refusal = message.contains("has already been bootstrapped");
    System.out.println(
        "member data loss, "
            + what
            + ": exit "
            + exit
            + ", "
            + lines.length
            + " log lines; termination message (last 2048 bytes) holds the tocommit panic: "
            + panicLine
            + ", the bootstrapped refusal: "
            + refusal
            + "; last line: "
            + lastLine(log));
  }
}
