package io.etcdoperator.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The test utility itself: process control, files, and that nothing outlives a cluster. */
class LocalEtcdClusterIT {
  private static final Duration HEALTHY = Duration.ofSeconds(30);

  @Test
  void membersGetOwnAddressesFilesAndNames() {
    try (LocalEtcdCluster cluster =
        LocalEtcdCluster.builder().name("util").memberNames("a", "b").token("tok").start()) {
      cluster.awaitHealthy(HEALTHY);
      LocalEtcdMember a = cluster.member("a");
      LocalEtcdMember b = cluster.member(1);

      assertThat(a.host()).startsWith("127.10.").isNotEqualTo(b.host());
      assertThat(a.clientUrl()).isEqualTo("http://" + a.host() + ":2379");
      assertThat(a.peerUrl()).isEqualTo("http://" + a.host() + ":2380");
      assertThat(cluster.clientUrls()).containsExactly(a.clientUrl(), b.clientUrl());
      assertThat(LocalEtcdCluster.initialCluster(cluster.members()))
          .isEqualTo("a=" + a.peerUrl() + ",b=" + b.peerUrl());
      assertThat(a.dataDir()).isDirectory();
      assertThat(a.logFile()).isRegularFile();
      assertThat(a.logTail(200)).contains("--initial-cluster-token=tok");
      assertThat(cluster.dir().getFileName().toString()).startsWith("util-");
      assertThatThrownBy(() -> cluster.newMember("a")).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> a.startNew("a=" + a.peerUrl()))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void stopFreezeThawRestartKillAndWipe() {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(1).start()) {
      cluster.awaitHealthy(HEALTHY);
      LocalEtcdMember m = cluster.member(0);
      long firstPid = m.pid();

      m.freeze();
      assertThat(m.isRunning()).isTrue();
      assertThat(m.isHealthy(Duration.ofMillis(300))).isFalse();
      m.thaw();
      cluster.awaitHealthy(HEALTHY);

      m.stop();
      assertThat(m.isRunning()).isFalse();
      assertThat(m.exitCode()).isPresent();
      assertThatThrownBy(m::freeze).isInstanceOf(IllegalStateException.class);

      m.restart();
      assertThat(m.pid()).isNotEqualTo(firstPid);
      cluster.awaitHealthy(HEALTHY);
      assertThatThrownBy(m::wipeData).isInstanceOf(IllegalStateException.class);

      m.kill();
      assertThat(m.exitCode()).hasValue(137);
      m.wipeData();
      assertThat(Files.exists(m.dataDir())).isFalse();
      m.restart();
      cluster.awaitHealthy(HEALTHY);
      assertThat(m.dataDir()).isDirectory();
      assertThat(m.logTail(10_000).split("=== ").length - 1).isEqualTo(3);
    }
  }

  @Test
  void closeKillsEveryProcessEvenFrozenOnesWhenATestFailsHalfWay() {
    List<ProcessHandle> started = new ArrayList<>();
    List<LocalEtcdMember> members = new ArrayList<>();
    assertThatThrownBy(
            () -> {
              try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(2).start()) {
                LocalEtcdMember extra = cluster.newMember("extra");
                members.addAll(cluster.members());
                cluster.members().stream()
                    .filter(LocalEtcdMember::isRunning)
                    .forEach(m -> started.add(ProcessHandle.of(m.pid()).orElseThrow()));
                cluster.member(0).freeze();
                assertThat(extra.isRunning()).isFalse();
                throw new IllegalStateException("the test fails half-way");
              }
            })
        .hasMessage("the test fails half-way");

    assertThat(started).hasSize(2).noneMatch(ProcessHandle::isAlive);
    assertThat(members).allMatch(m -> !Files.exists(m.dataDir()));
    assertThat(members.get(0).logFile()).isRegularFile();
  }

  @Test
  void addressesAreRandomFreeAndNotReused() {
    String a = LoopbackAddresses.allocate(2379, 2380);
    String b = LoopbackAddresses.allocate(2379, 2380);
    assertThat(a).startsWith("127.10.").isNotEqualTo(b);
    assertThat(LoopbackAddresses.isFree(a, 2379)).isTrue();
  }
}
