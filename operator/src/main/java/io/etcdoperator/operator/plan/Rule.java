package io.etcdoperator.operator.plan;

import java.util.Optional;

/**
 * One situation the planner recognises and what to do about it. The planner asks its rules in
 * order; the first that applies decides. A rule that does not apply says so with an empty result,
 * and the next one is asked.
 */
interface Rule {
  /** The rule's name, as the planner's Javadoc lists it. */
  default String name() {
    return getClass().getSimpleName();
  }

  /** The decision, or empty when this rule does not apply. */
  Optional<Decision> decide(Situation s);
}
