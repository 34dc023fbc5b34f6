package io.etcdoperator.sandbox.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Median, p99 and maximum of a few durations, as one line. */
record Stats(int n, Duration p50, Duration p99, Duration max) {
  static Stats of(List<Duration> xs) {
    if (xs.isEmpty()) {
      return new Stats(0, Duration.ZERO, Duration.ZERO, Duration.ZERO);
    }
    List<Duration> sorted = new ArrayList<>(xs);
    sorted.sort(null);
    return new Stats(
        sorted.size(),
        sorted.get((sorted.size() - 1) / 2),
        sorted.get((int) Math.ceil(0.99 * sorted.size()) - 1),
        sorted.get(sorted.size() - 1));
  }

  @Override
  public String toString() {
    return n == 0
        ? "(none seen)"
        : String.format(
            "p50 %.2f s, p99 %.2f s, max %.2f s (n=%d)",
            p50.toMillis() / 1000.0, p99.toMillis() / 1000.0, max.toMillis() / 1000.0, n);
  }
}
