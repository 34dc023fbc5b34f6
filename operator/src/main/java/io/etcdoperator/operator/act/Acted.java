package io.etcdoperator.operator.act;

import java.util.List;

/**
 * What acting did in one reconcile: the object writes the API server refused, and the step's
 * outcome (nothing, when a refused write kept the step from being taken).
 *
 * @param refused the refused writes, each to become a condition and an Event
 * @param outcome what came of the step
 */
public record Acted(List<ApiRefusal> refused, Outcome outcome) {
  public Acted {
    refused = List.copyOf(refused);
  }
}
