package io.etcdoperator.operator.cli;

/**
 * Contributes a picocli subcommand to {@link Main}; registered through {@link
 * java.util.ServiceLoader}.
 */
public interface SubcommandProvider {
  /** A picocli {@code @Command}-annotated object or a {@link picocli.CommandLine}. */
  Object command();
}
