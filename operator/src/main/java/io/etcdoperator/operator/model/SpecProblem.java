package io.etcdoperator.operator.model;

import java.util.Objects;

/**
 * One reason a spec cannot be run: the field's path as the user wrote it (for example {@code
 * spec.options.data-dir}) and what is wrong with it.
 */
public record SpecProblem(String field, String message) {
  public SpecProblem {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return field + ": " + message;
  }
}
