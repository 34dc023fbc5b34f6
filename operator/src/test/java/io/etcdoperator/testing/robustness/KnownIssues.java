package io.etcdoperator.testing.robustness;

import java.util.Arrays;
import java.util.List;

/**
 * etcd's own bugs that a history can show, and the etcd versions that have them: what one of them
 * explains is reported apart, as etcd's, with its issue, never as a violation of ours, and only
 * when a version that has it ran during the history ({@code about["etcd versions"]}, comma
 * separated, e.g. {@code 3.4.23,3.5.30}).
 */
final class KnownIssues {
  static final String PROPERTY = "etcd's own known issues";

  /**
   * A requested progress notification sent before the events it covers: etcd-io/etcd#15220
   * ("Requested watcher progress notifications are not synchronised with stream"), fixed in 3.4.25
   * and 3.5.8 (etcd-io/etcd#15697, #15695).
   */
  static final String EARLY_PROGRESS = "etcd-io/etcd#15220 (fixed in 3.4.25 and 3.5.8)";

  private KnownIssues() {}

  /** Whether a version with etcd-io/etcd#15220 ran during the history. */
  static boolean earlyProgress(History history) {
    for (String v : versions(history)) {
      int[] x = parse(v);
      if (x == null) {
        continue;
      }
      boolean has = x[0] == 3 && (x[1] < 4 || x[1] == 4 && x[2] < 25 || x[1] == 5 && x[2] < 8);
      if (has) {
        return true;
      }
    }
    return false;
  }

  static List<String> versions(History history) {
    String v = history.about().getOrDefault("etcd versions", "");
    return v.isBlank() ? List.of() : Arrays.stream(v.split(",")).map(String::trim).toList();
  }

  private static int[] parse(String version) {
    String[] parts = version.replaceFirst("^v", "").split("\\.");
    if (parts.length < 3) {
      return null;
    }
    try {
      return new int[] {
        Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])
      };
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
