package io.etcdoperator.sandbox;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ServiceLoader;

/**
 * The seam through which the sandbox runs the operator in its own JVM, against its API server. The
 * operator module plugs its real entry point in; tests of the stand-in use {@link #NONE}.
 */
@FunctionalInterface
public interface OperatorLauncher {
  /** Runs no operator. */
  OperatorLauncher NONE = client -> () -> {};

  /** The first launcher registered through {@link java.util.ServiceLoader}, or null. */
  static OperatorLauncher onClassPath() {
    for (OperatorLauncher l : ServiceLoader.load(OperatorLauncher.class)) {
      return l;
    }
    return null;
  }

  /**
   * Starts the operator with a client of the sandbox's API server (the client belongs to the
   * sandbox and is closed by it after the returned handle).
   *
   * @return a handle whose {@code close()} stops the operator
   */
  AutoCloseable start(KubernetesClient client) throws Exception;
}
