package io.etcdoperator.operator;

import org.slf4j.bridge.SLF4JBridgeHandler;

/** Sends java.util.logging (used by gRPC and the mock API server) through SLF4J, once. */
public final class JulBridge {
  private JulBridge() {}

  public static synchronized void install() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }
}
