package io.etcdoperator.sandbox.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runs the {@link FaultSuite}: by default two runs of four faults each (CI), with seeds drawn at
 * random and printed. For a long run on demand: {@code scripts/fault-suite RUNS [SEED]}, which sets
 * {@code FAULT_SUITE_RUNS}, {@code FAULT_SUITE_SEED} (the first run's seed; run i uses seed + i)
 * and optionally {@code FAULT_SUITE_FAULTS}. Every run's line and the totals are printed and
 * appended to {@code target/fault-suite/results.txt}; a failed run's sandbox directory (pod logs
 * under {@code logs/}) is kept under {@code target/fault-suite/}.
 */
class FaultSuiteE2EIT {
  @Test
  void seededRandomFaultsLoseNoAcknowledgedWrite() throws Exception {
    int runs = env("FAULT_SUITE_RUNS", 2);
    int faults = env("FAULT_SUITE_FAULTS", 4);
    String given = System.getenv("FAULT_SUITE_SEED");
    long first =
        given == null || given.isBlank()
            ? ThreadLocalRandom.current().nextLong(1, 1_000_000_000L)
            : Long.parseLong(given.trim());
    Path base = Path.of("target", "fault-suite").toAbsolutePath();
    Path results = base.resolve("results.txt");
    String header =
        "fault-suite: "
            + runs
            + " runs of "
            + faults
            + " faults, seeds "
            + first
            + ".."
            + (first + runs - 1);
    System.out.println(header);
    FaultSuite.append(results, header);
    List<FaultSuite.Run> done = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      long seed = first + i;
      Path dir = base.resolve("run-" + seed);
      FaultSuite.Run run;
      try {
        run = FaultSuite.run(seed, faults, dir);
      } catch (Exception | AssertionError e) {
        run = new FaultSuite.Run(seed, List.of(), null, List.of("the run threw " + e));
        e.printStackTrace();
      }
      done.add(run);
      System.out.println(run.line());
      FaultSuite.append(results, run.line());
      if (run.ok()) {
        delete(dir);
      }
    }
    String totals = FaultSuite.totals(done);
    System.out.print(totals);
    FaultSuite.append(results, totals);
    assertThat(done).allSatisfy(r -> assertThat(r.problems()).as("seed " + r.seed()).isEmpty());
  }

  private static int env(String name, int fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : Integer.parseInt(v.trim());
  }

  private static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted((a, b) -> b.getNameCount() - a.getNameCount())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (java.io.IOException e) {
                  // left behind; target/ is scratch
                }
              });
    } catch (java.io.IOException e) {
      // left behind
    }
  }
}
