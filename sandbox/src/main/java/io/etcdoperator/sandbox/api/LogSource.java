package io.etcdoperator.sandbox.api;

/** Serves {@code kubectl logs}: the text a container wrote, or null when there is none. */
@FunctionalInterface
public interface LogSource {
  /**
   * @param container the container, or null for the pod's only (first) one
   */
  String log(String namespace, String pod, String container) throws Exception;
}
