package io.etcdoperator.sandbox.api;

/**
 * Answers the sandbox's own control requests ({@code POST /sandbox/v1/<verb>}), through which the
 * command-line fault verbs reach a running sandbox.
 */
@FunctionalInterface
public interface ControlHandler {
  /**
   * Carries out one request.
   *
   * @param verb the last path segment, e.g. {@code fault}
   * @param body the request body (JSON)
   * @return a one-line human-readable result
   * @throws IllegalArgumentException when the request names something that does not exist
   */
  String handle(String verb, String body) throws Exception;
}
