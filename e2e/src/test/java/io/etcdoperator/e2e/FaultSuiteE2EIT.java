package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runs the {@link FaultSuite}: by default two runs of four faults each (CI), the first seed drawn
 * at random and printed. For a long run on demand: {@code scripts/fault-suite --runs 200 [--seed
 * S]}, which sets the system properties {@code faults.runs}, {@code faults.seed} (the first run's
 * seed; run i uses seed + i), {@code faults.perRun}, {@code faults.minutes} (no run starts after
 * that long) and {@code faults.results} (environment variables {@code FAULT_SUITE_RUNS}, {@code
 * FAULT_SUITE_SEED}, {@code FAULT_SUITE_FAULTS} work too); {@code faults.tls} ({@code
 * FAULT_SUITE_TLS}, {@code scripts/fault-suite --tls}) runs {@code examples/tls/}'s cluster. Every
 * run's line and the totals are printed and appended to the results file (default {@code
 * target/fault-suite/results.txt}); a failed run's sandbox directory (pod logs under {@code logs/})
 * is kept under {@code target/fault-suite/}.
 */
class FaultSuiteE2EIT {
  @Test
  void seededRandomFaultsLoseNoAcknowledgedWrite() throws Exception {
    int runs = Integer.parseInt(setting("faults.runs", "FAULT_SUITE_RUNS", "2"));
    int faults = Integer.parseInt(setting("faults.perRun", "FAULT_SUITE_FAULTS", "4"));
    boolean tls = Boolean.parseBoolean(setting("faults.tls", "FAULT_SUITE_TLS", "false"));
    String given = setting("faults.seed", "FAULT_SUITE_SEED", "");
    long first =
        given == null || given.isBlank()
            ? ThreadLocalRandom.current().nextLong(1, 1_000_000_000L)
            : Long.parseLong(given.trim());
    Path base = Path.of("target", "fault-suite").toAbsolutePath();
    String minutes = setting("faults.minutes", "FAULT_SUITE_MINUTES", "");
    long stopStartingAt =
        minutes.isEmpty()
            ? Long.MAX_VALUE
            : System.nanoTime() + java.time.Duration.ofMinutes(Long.parseLong(minutes)).toNanos();
    String file = setting("faults.results", "FAULT_SUITE_RESULTS", "");
    Path results = file.isBlank() ? base.resolve("results.txt") : Path.of(file).toAbsolutePath();
    String header =
        "fault-suite: "
            + runs
            + " runs of "
            + faults
            + " faults, seeds "
            + first
            + ".."
            + (first + runs - 1)
            + (tls ? ", TLS (examples/tls/)" : "");
    System.out.println(header);
    FaultSuite.append(results, header);
    List<FaultSuite.Run> done = new ArrayList<>();
    for (int i = 0; i < runs && System.nanoTime() < stopStartingAt; i++) {
      long seed = first + i;
      Path dir = base.resolve("run-" + seed);
      // A failed earlier run of this seed left its sandbox here: its claims' directories, named by
      // UIDs the next sandbox hands out again, would give this run that run's data.
      delete(dir);
      FaultSuite.Run run;
      try {
        run = FaultSuite.run(seed, faults, dir, tls);
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

  /** A system property, else an environment variable, else the fallback; trimmed. */
  static String setting(String property, String env, String fallback) {
    String v = System.getProperty(property);
    if (v == null || v.isBlank()) {
      v = System.getenv(env);
    }
    return v == null || v.isBlank() ? fallback : v.trim();
  }

  static void delete(Path dir) {
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
