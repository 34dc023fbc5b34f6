package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Thousands of probe rounds against a real cluster with one member frozen must not grow threads,
 * file descriptors or cached connections. The deadline is short (20 ms) so that 2000 rounds fit in
 * well under a minute; the frozen member costs one deadline per round.
 */
class ProbeLeakIT {
  private static final int WARM_UP_ROUNDS = 100;
  private static final int ROUNDS = 2000;
  private static final Duration DEADLINE = Duration.ofMillis(20);

  @Test
  void twoThousandRoundsWithAFrozenMemberLeakNothing() throws IOException {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start();
        JetcdEtcdService etcd =
            new JetcdEtcdService(EtcdServiceConfig.defaults().withDeadline(DEADLINE))) {
      cluster.awaitHealthy(Duration.ofSeconds(30));
      String key = "it/" + cluster.name();
      List<String> urls = cluster.clientUrls();
      LocalEtcdMember frozen = cluster.member(2);
      frozen.freeze();

      for (int i = 0; i < WARM_UP_ROUNDS; i++) {
        etcd.probeAll(key, urls);
      }
      int threadsBefore = liveThreads();
      long fdsBefore = openFileDescriptors();
      int maxThreads = threadsBefore;
      long maxFds = fdsBefore;
      int healthyAnswers = 0;
      long slowestNanos = 0;
      long start = System.nanoTime();
      for (int round = 1; round <= ROUNDS; round++) {
        long roundStart = System.nanoTime();
        ClusterProbe probe = etcd.probeAll(key, urls);
        slowestNanos = Math.max(slowestNanos, System.nanoTime() - roundStart);
        assertThat(probe.find(frozen.clientUrl()).orElseThrow().reachable()).isFalse();
        healthyAnswers += probe.reachable().size();
        if (round % 50 == 0) {
          maxThreads = Math.max(maxThreads, liveThreads());
          maxFds = Math.max(maxFds, openFileDescriptors());
          assertThat(etcd.openChannels()).isEqualTo(3);
        }
      }
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.printf(
          "%d rounds in %s (slowest %d ms); threads %d -> max %d; fds %d -> max %d;"
              + " healthy answers %d of %d%n",
          ROUNDS,
          took,
          slowestNanos / 1_000_000,
          threadsBefore,
          maxThreads,
          fdsBefore,
          maxFds,
          healthyAnswers,
          2 * ROUNDS);

      assertThat(maxThreads).isLessThanOrEqualTo(threadsBefore + 4);
      assertThat(maxFds).isLessThanOrEqualTo(fdsBefore + 16);
      assertThat(etcd.openChannels()).isEqualTo(3);
      // Most rounds must really reach the two live members; a loaded machine may miss a few.
      assertThat(healthyAnswers).isGreaterThan(2 * ROUNDS * 9 / 10);
      assertThat(took).isLessThan(Duration.ofSeconds(60));
      frozen.thaw();
    }
  }

  private static int liveThreads() {
    return ManagementFactory.getThreadMXBean().getThreadCount();
  }

  private static long openFileDescriptors() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }
}
