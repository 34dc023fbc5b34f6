package io.etcdoperator.operator.model;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Kubernetes' rules for label keys and values (a real API server refuses an object that breaks
 * them, so the operator refuses the spec before it writes one).
 */
final class Labels {
  private static final Pattern NAME =
      Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private Labels() {}

  /** Why {@code value} is no label value: at most 63 characters, alphanumeric at both ends. */
  static Optional<String> valueProblem(String value) {
    if (value == null) {
      return Optional.empty();
    }
    if (value.length() > 63) {
      return Optional.of("a label value must be at most 63 characters, got " + value.length());
    }
    if (!NAME.matcher(value).matches()) {
      return Optional.of(
          "a label value must be letters, digits, '-', '_' or '.', beginning and ending with a"
              + " letter or digit, got '"
              + value
              + "'");
    }
    return Optional.empty();
  }

  /** Why {@code key} is no label key: {@code [prefix/]name}, name at most 63 characters. */
  static Optional<String> keyProblem(String key) {
    int slash = key.indexOf('/');
    String prefix = slash < 0 ? null : key.substring(0, slash);
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (prefix != null && (prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches())) {
      return Optional.of("the prefix of a label key must be a DNS subdomain of at most 253");
    }
    if (name.isEmpty() || name.length() > 63 || !NAME.matcher(name).matches()) {
      return Optional.of(
          "the name of a label key must be 1 to 63 letters, digits, '-', '_' or '.', beginning"
              + " and ending with a letter or digit");
    }
    return Optional.empty();
  }
}
