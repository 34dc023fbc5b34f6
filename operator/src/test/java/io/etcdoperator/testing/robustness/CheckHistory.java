package io.etcdoperator.testing.robustness;

import java.nio.file.Path;

/**
 * Checks recorded histories again with the checker as it is now (say, a failed soak run's, after a
 * fix): prints each one's report; exit code 1 when any breaks a guarantee.
 *
 * <pre>
 * java -cp operator/target/test-classes:operator/target/classes:$(cat \
 *     operator/target/test-classpath.txt) io.etcdoperator.testing.robustness.CheckHistory \
 *     e2e/target/robustness/run-&lt;seed&gt;/history.json.gz ...
 * </pre>
 */
public final class CheckHistory {
  private CheckHistory() {}

  public static void main(String[] args) throws Exception {
    boolean allOk = true;
    for (String file : args) {
      History history = HistoryFile.read(Path.of(file));
      Checker.Report report = new Checker().check(history);
      allOk &= report.ok();
      System.out.println(
          file
              + ": "
              + history.about().getOrDefault("action", "")
              + ", "
              + history.ops().size()
              + " operations: "
              + (report.ok() ? "OK" : report.violationCount() + " violations"));
      System.out.print(report.describe(5));
    }
    System.exit(allOk ? 0 : 1);
  }
}
