package io.etcdoperator.sandbox.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live objects of a JVM by class, as {@code jcmd <pid> GC.class_histogram} prints them (after a
 * full collection), and what grew between two of them: where the heap of each cluster goes.
 *
 * @param byClass instances and bytes, by class name
 */
record HeapHistogram(Map<String, long[]> byClass) {
  /** A row of the histogram: {@code " 1: 12345 678900 java.lang.String (java.base@17)"}. */
  private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

  /** One class's growth per cluster. */
  record Growth(String className, double bytesPerCluster, double instancesPerCluster) {
    String line() {
      return String.format(
          Locale.ROOT,
          "%9.2f KiB %9.1f objects  %s",
          bytesPerCluster / 1024.0,
          instancesPerCluster,
          className);
    }
  }

  static HeapHistogram parse(String text) {
    Map<String, long[]> rows = new HashMap<>();
    for (String line : text.split("\n")) {
      Matcher m = ROW.matcher(line);
      if (m.find()) {
        rows.merge(
            m.group(3),
            new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))},
            (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
      }
    }
    return new HeapHistogram(Map.copyOf(rows));
  }

  /** Bytes of every class together. */
  long totalBytes() {
    return byClass.values().stream().mapToLong(r -> r[1]).sum();
  }

  /** The {@code top} classes that grew most in bytes from {@code before}, per one of {@code n}. */
  List<Growth> growthSince(HeapHistogram before, int n, int top) {
    Set<String> names = new HashSet<>(byClass.keySet());
    names.addAll(before.byClass.keySet());
    List<Growth> all = new ArrayList<>();
    for (String name : names) {
      long[] now = byClass.getOrDefault(name, new long[2]);
      long[] then = before.byClass.getOrDefault(name, new long[2]);
      all.add(new Growth(name, (now[1] - then[1]) / (double) n, (now[0] - then[0]) / (double) n));
    }
    all.sort(Comparator.comparingDouble(Growth::bytesPerCluster).reversed());
    return all.subList(0, Math.min(top, all.size()));
  }
}
