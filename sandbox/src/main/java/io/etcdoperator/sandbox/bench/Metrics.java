package io.etcdoperator.sandbox.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/** Reading a Prometheus text page, as much as the benchmark needs. */
final class Metrics {
  private Metrics() {}

  /** The sum of every sample of {@code name} whose label part passes {@code labels}. */
  static double sum(String page, String name, Predicate<String> labels) {
    double total = 0;
    for (String line : page.split("\n")) {
      if (line.startsWith(name) && !line.startsWith("#")) {
        String rest = line.substring(name.length());
        if (rest.startsWith("{") || rest.startsWith(" ")) {
          int space = line.lastIndexOf(' ');
          String labelPart = rest.startsWith("{") ? rest.substring(0, rest.indexOf('}') + 1) : "";
          if (labels.test(labelPart)) {
            total += Double.parseDouble(line.substring(space + 1));
          }
        }
      }
    }
    return total;
  }

  /** Each sample of {@code name} by the value of its {@code label} (e.g. a cluster's name). */
  static Map<String, Double> byLabel(String page, String name, String label) {
    Map<String, Double> out = new HashMap<>();
    String key = label + "=\"";
    for (String line : page.split("\n")) {
      if (line.startsWith(name + "{")) {
        int at = line.indexOf(key);
        if (at < 0) {
          continue;
        }
        int from = at + key.length();
        String value = line.substring(from, line.indexOf('"', from));
        out.merge(
            value, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
      }
    }
    return out;
  }
}
