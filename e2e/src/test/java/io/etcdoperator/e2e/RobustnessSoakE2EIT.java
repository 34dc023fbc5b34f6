package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.e2e.RobustnessPlan.Action;
import io.etcdoperator.e2e.RobustnessPlan.Fault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * The robustness soak: seeded runs ({@link RobustnessPlan#of(long)}: an action and up to two faults
 * per seed), each checked for every guarantee ({@link Robustness}). {@code -Plong} runs 8; {@code
 * scripts/robustness --runs N --seed S} runs many (system properties {@code robustness.runs},
 * {@code robustness.seed}, {@code robustness.minutes}, {@code robustness.results}; {@code
 * robustness.plan}, e.g. {@code roll+partition-leader}, runs that plan every time). Prints a line
 * per run, then the totals and the matrix of actions by faults covered; a failed run's directory
 * (its history, the sandbox's pod logs) stays under {@code target/robustness/run-<seed>/}.
 */
class RobustnessSoakE2EIT {
  @Test
  void seededRunsBreakNoGuarantee() throws Exception {
    int runs = Integer.parseInt(FaultSuiteE2EIT.setting("robustness.runs", "ROBUSTNESS_RUNS", "8"));
    String given = FaultSuiteE2EIT.setting("robustness.seed", "ROBUSTNESS_SEED", "");
    long first =
        given.isBlank()
            ? ThreadLocalRandom.current().nextLong(1, 1_000_000_000L)
            : Long.parseLong(given);
    String minutes = FaultSuiteE2EIT.setting("robustness.minutes", "ROBUSTNESS_MINUTES", "");
    long stopStartingAt =
        minutes.isEmpty()
            ? Long.MAX_VALUE
            : System.nanoTime() + Duration.ofMinutes(Long.parseLong(minutes)).toNanos();
    Path base = Path.of("target", "robustness").toAbsolutePath();
    String file = FaultSuiteE2EIT.setting("robustness.results", "ROBUSTNESS_RESULTS", "");
    Path results = file.isBlank() ? base.resolve("results.txt") : Path.of(file).toAbsolutePath();
    String only = FaultSuiteE2EIT.setting("robustness.plan", "ROBUSTNESS_PLAN", "");
    String header =
        "robustness: "
            + runs
            + " runs, seeds "
            + first
            + ".."
            + (first + runs - 1)
            + (only.isBlank() ? "" : ", each " + only);
    System.out.println(header);
    FaultSuite.append(results, header);
    List<Robustness.Outcome> done = new ArrayList<>();
    for (int i = 0; i < runs && System.nanoTime() < stopStartingAt; i++) {
      RobustnessPlan plan =
          only.isBlank() ? RobustnessPlan.of(first + i) : RobustnessPlan.parse(first + i, only);
      Path dir = base.resolve("run-" + plan.seed());
      // A failed earlier run of this seed left its sandbox here: its claims' directories, named by
      // UIDs the next sandbox hands out again, would give this run that run's data.
      FaultSuiteE2EIT.delete(dir);
      Robustness.Outcome outcome;
      try {
        outcome = Robustness.run(plan, dir);
      } catch (Exception | AssertionError e) {
        e.printStackTrace();
        outcome =
            new Robustness.Outcome(plan, null, null, List.of("the run threw " + e), List.of(), dir);
      }
      done.add(outcome);
      System.out.println(outcome.line());
      FaultSuite.append(results, outcome.line());
      if (!outcome.ok() && outcome.report() != null) {
        FaultSuite.append(results, outcome.report().describe(5));
      }
      if (outcome.ok()) {
        FaultSuiteE2EIT.delete(dir);
      }
    }
    String totals = totals(done);
    System.out.print(totals);
    FaultSuite.append(results, totals);
    assertThat(done).allSatisfy(o -> assertThat(o.ok()).as(o.line()).isTrue());
  }

  /** The totals line, then the matrix: runs (failed) per action and fault. */
  static String totals(List<Robustness.Outcome> done) {
    long operations = done.stream().mapToLong(Robustness.Outcome::operations).sum();
    long violations = done.stream().mapToLong(Robustness.Outcome::violations).sum();
    long failed = done.stream().filter(o -> !o.ok()).count();
    StringBuilder b =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "robustness totals: %d runs, %d operations, %d violations, %d runs failed%n",
                done.size(),
                operations,
                violations,
                failed));
    Map<Action, Map<String, int[]>> matrix = new EnumMap<>(Action.class);
    for (Robustness.Outcome o : done) {
      List<String> columns = new ArrayList<>();
      if (o.plan().faults().isEmpty()) {
        columns.add("none");
      }
      o.plan().faults().forEach(f -> columns.add(f.label()));
      for (String c : columns) {
        int[] cell =
            matrix
                .computeIfAbsent(o.plan().action(), a -> new java.util.HashMap<>())
                .computeIfAbsent(c, k -> new int[2]);
        cell[0]++;
        if (!o.ok()) {
          cell[1]++;
        }
      }
    }
    List<String> columns = new ArrayList<>(List.of("none"));
    for (Fault f : Fault.values()) {
      columns.add(f.label());
    }
    b.append(String.format(Locale.ROOT, "%-18s", "action \\ fault"));
    columns.forEach(c -> b.append(String.format(Locale.ROOT, " %16s", c)));
    b.append('\n');
    for (Action a : Action.values()) {
      b.append(String.format(Locale.ROOT, "%-18s", a.label()));
      for (String c : columns) {
        int[] cell = matrix.getOrDefault(a, Map.of()).get(c);
        b.append(
            String.format(
                Locale.ROOT,
                " %16s",
                cell == null ? "-" : cell[0] + (cell[1] == 0 ? "" : " (" + cell[1] + " failed)")));
      }
      b.append('\n');
    }
    return b.toString();
  }
}
