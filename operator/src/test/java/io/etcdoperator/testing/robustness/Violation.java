package io.etcdoperator.testing.robustness;

import java.util.List;

/**
 * A guarantee the history breaks: which one, what is wrong, and the smallest set of operations (and
 * watch records) found that cannot be explained together.
 */
public record Violation(String property, String message, List<Op> ops, List<Watch.Record> records) {
  public Violation {
    ops = List.copyOf(ops);
    records = List.copyOf(records);
  }

  public static Violation of(String property, String message, Op... ops) {
    return new Violation(property, message, List.of(ops), List.of());
  }

  /** The violation, each operation on a line, with what was being done to the cluster then. */
  public String describe(History history) {
    StringBuilder b = new StringBuilder(property).append(": ").append(message);
    for (Op op : ops) {
      b.append("\n    ").append(op.describe());
      List<String> during = history.inProgress(op.start(), op.end());
      if (!during.isEmpty()) {
        b.append("  during ").append(during);
      }
    }
    for (Watch.Record r : records) {
      b.append("\n    ").append(r.describe());
      List<String> during = history.inProgress(r.at(), r.at());
      if (!during.isEmpty()) {
        b.append("  during ").append(during);
      }
    }
    return b.toString();
  }
}
