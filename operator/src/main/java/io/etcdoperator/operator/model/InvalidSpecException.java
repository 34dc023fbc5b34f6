package io.etcdoperator.operator.model;

import java.util.List;
import java.util.stream.Collectors;

/**
 * An {@code EtcdCluster} whose spec cannot be run, with every problem found (not only the first),
 * so that a user fixes them in one round. Expected, not retried: the operator reports it and
 * changes nothing.
 */
public final class InvalidSpecException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient List<SpecProblem> problems;

  public InvalidSpecException(List<SpecProblem> problems) {
    super(join(problems));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an invalid spec has at least one problem");
    }
    this.problems = List.copyOf(problems);
  }

  /** Every problem, in the order of the spec's fields. */
  public List<SpecProblem> problems() {
    return problems;
  }

  private static String join(List<SpecProblem> problems) {
    return problems.stream().map(SpecProblem::toString).collect(Collectors.joining("; "));
  }
}
