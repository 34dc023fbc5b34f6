package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.plan.Decision.Keep;
import io.etcdoperator.operator.plan.Report.Line;
import java.util.Optional;

/**
 * The annotation {@value Names#PAUSED_ANNOTATION}{@code : "true"} stops every change: no object is
 * written, no step taken, for as long as it stays. Status is still observed and reported: the
 * decision of the rule that would have fired gives Available, Ready and Degraded as they are;
 * Progressing (and the Paused condition) says the operator is paused and what it would do once
 * resumed.
 */
final class Pause {
  private Pause() {}

  /** First of all: nothing else may act while paused. */
  static final class Paused implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (!s.target().paused()) {
        return Optional.empty();
      }
      Decision inner = Planner.unpaused(s);
      Step step = inner.step();
      String would =
          step instanceof Step.None || step instanceof Step.Wait
              ? ""
              : "; once resumed it would " + step.describe();
      String message =
          "paused by the annotation "
              + Names.PAUSED_ANNOTATION
              + ": \"true\": the operator changes nothing until it is removed"
              + would;
      Report r = inner.report();
      return Optional.of(
          new Decision(
              new Step.None(),
              Keep.NOTHING,
              new Report(
                  r.available(),
                  r.ready(),
                  new Line(false, Conditions.PAUSED_BY_ANNOTATION, message),
                  r.degraded()),
              inner.requeueAfter().compareTo(Planner.READY_RESYNC) < 0
                  ? Planner.READY_RESYNC
                  : inner.requeueAfter()));
    }
  }
}
