package io.etcdoperator.operator.etcd;

import io.etcdoperator.testing.LocalEtcdCluster;
import io.etcdoperator.testing.LocalEtcdMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

/**
 * How long {@link EtcdService#probeAll} takes on real local clusters of 3, 5 and 7 members, all
 * healthy and with one member frozen (SIGSTOP), with the default 1 s deadline. Prints median and
 * p95 per case, and ratios against two baselines measured in the same run: one Status call to one
 * healthy member (the floor of any probe) and the deadline (the ceiling).
 *
 * <p>Run from the repository root (it starts etcd processes on 127.10.0.0/16 and stops them):
 *
 * <pre>
 * mvn -B -q -pl operator -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test \
 *     -Dspotless.check.skip=true
 * java -cp operator/target/test-classes:operator/target/classes:$(cat \
 *     operator/target/test-classpath.txt) io.etcdoperator.operator.etcd.ProbeBenchmark [rounds]
 * </pre>
 *
 * <p>{@code rounds} (default 100) is the number of healthy rounds per size; frozen rounds are a
 * fifth of it (each costs about one deadline).
 */
public final class ProbeBenchmark {
  private static final int WARM_UP = 30;

  private ProbeBenchmark() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int frozenRounds = Math.max(5, rounds / 5);
    EtcdServiceConfig config = EtcdServiceConfig.defaults();
    System.out.printf(
        "probeAll, deadline %d ms, %d healthy / %d frozen rounds per size, %d cores%n",
        config.deadline().toMillis(),
        rounds,
        frozenRounds,
        Runtime.getRuntime().availableProcessors());
    System.out.printf(
        "%-28s %10s %10s %10s %12s %12s%n",
        "case", "median ms", "p95 ms", "max ms", "x one call", "x deadline");
    double oneCall = Double.NaN;
    for (int size : new int[] {3, 5, 7}) {
      try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(size).start();
          JetcdEtcdService etcd = new JetcdEtcdService(config)) {
        cluster.awaitHealthy(Duration.ofSeconds(60));
        String key = "bench/" + cluster.name();
        List<String> urls = cluster.clientUrls();
        String one = urls.get(0);
        for (int i = 0; i < WARM_UP; i++) {
          etcd.probeAll(key, urls);
          etcd.status(key, one);
        }
        if (Double.isNaN(oneCall)) {
          List<Long> single = measure(rounds, () -> etcd.status(key, one).reachable());
          oneCall = percentile(single, 50);
          print("one Status call (baseline)", single, oneCall, config);
        }
        print(
            size + " members, healthy",
            measure(rounds, () -> etcd.probeAll(key, urls).reachable().size() == size),
            oneCall,
            config);
        String leader = etcd.probeAll(key, urls).leaderEndpoint().orElse("");
        LocalEtcdMember follower =
            cluster.members().stream()
                .filter(m -> !m.clientUrl().equals(leader))
                .findFirst()
                .orElseThrow();
        follower.freeze();
        print(
            size + " members, 1 frozen",
            measure(frozenRounds, () -> etcd.probeAll(key, urls).reachable().size() == size - 1),
            oneCall,
            config);
        follower.thaw();
      }
    }
  }

  /** Round times in nanoseconds; a round whose result is not the expected one is reported. */
  private static List<Long> measure(int rounds, Supplier<Boolean> round) {
    List<Long> nanos = new ArrayList<>();
    int unexpected = 0;
    for (int i = 0; i < rounds; i++) {
      long start = System.nanoTime();
      boolean expected = round.get();
      nanos.add(System.nanoTime() - start);
      if (!expected) {
        unexpected++;
      }
    }
    if (unexpected > 0) {
      System.out.printf("  (%d of %d rounds did not see what was expected)%n", unexpected, rounds);
    }
    return nanos;
  }

  private static void print(String name, List<Long> nanos, double oneCall, EtcdServiceConfig c) {
    double median = percentile(nanos, 50);
    System.out.printf(
        "%-28s %10.2f %10.2f %10.2f %12.1f %12.2f%n",
        name,
        median / 1e6,
        percentile(nanos, 95) / 1e6,
        Collections.max(nanos) / 1e6,
        median / oneCall,
        median / c.deadline().toNanos());
  }

  private static double percentile(List<Long> values, int p) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }
}
