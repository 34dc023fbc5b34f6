package io.etcdoperator.operator.act;

/** What came of a step ({@link StepExecutor}). */
public sealed interface Outcome {
  /** Done: an Event says what. */
  record Done(String reason, String message) implements Outcome {}

  /** Not done yet, and that is normal (a learner still catching up). */
  record NotYet(String message) implements Outcome {}

  /**
   * An expected failure: a condition and a Warning Event say what; the next reconcile tries again.
   */
  record Failed(String reason, String message) implements Outcome {}

  /** There was nothing to do. */
  record Nothing() implements Outcome {}
}
