package io.etcdoperator.sandbox.kubelet;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The termination message the kubelet keeps of a container that failed under {@code
 * terminationMessagePolicy: FallbackToLogsOnError}: the tail of its log, at most the last 80 lines
 * and at most 2048 bytes (Kubernetes' limits), whichever is shorter.
 */
public final class TerminationMessage {
  /** Kubernetes keeps at most this many of the last lines... */
  public static final int MAX_LINES = 80;

  /** ...and at most this many bytes of them. */
  public static final int MAX_BYTES = 2048;

  private TerminationMessage() {}

  /**
   * The message from what the container printed since it started (the sandbox's own lines, which
   * start with {@code [sandbox }, left out); null when it printed nothing.
   */
  public static String fromLog(String output) {
    List<String> lines = output.lines().filter(l -> !l.startsWith("[sandbox ")).toList();
    String tail =
        String.join("\n", lines.subList(Math.max(0, lines.size() - MAX_LINES), lines.size()));
    byte[] bytes = tail.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_BYTES) {
      tail = new String(bytes, bytes.length - MAX_BYTES, MAX_BYTES, StandardCharsets.UTF_8);
    }
    return tail.isEmpty() ? null : tail;
  }
}
