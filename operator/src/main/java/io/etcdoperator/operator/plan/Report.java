package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.status.StatusRenderer;
import java.util.Objects;

/**
 * What a decision reports: the status, reason and message of each of the four conditions. The rule
 * that decides writes it; {@link StatusRenderer} only renders it.
 */
public record Report(Line available, Line ready, Line progressing, Line degraded) {
  public Report {
    Objects.requireNonNull(available, "available");
    Objects.requireNonNull(ready, "ready");
    Objects.requireNonNull(progressing, "progressing");
    Objects.requireNonNull(degraded, "degraded");
  }

  /**
   * One condition: True or False (or Unknown, when the operator cannot tell), a CamelCase reason, a
   * message naming members.
   */
  public record Line(boolean status, String reason, String message, boolean known) {
    public Line {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }

    public Line(boolean status, String reason, String message) {
      this(status, reason, message, true);
    }

    /** A condition the operator cannot tell: Unknown. */
    public static Line unknown(String reason, String message) {
      return new Line(false, reason, message, false);
    }

    /** As Kubernetes spells it: True, False or Unknown. */
    public String statusText() {
      return !known ? "Unknown" : status ? "True" : "False";
    }
  }
}
