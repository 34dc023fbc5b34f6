package io.etcdoperator.sandbox;

import io.etcdoperator.operator.EtcdOperator;
import io.etcdoperator.operator.OperatorSettings;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Runs the real operator, unchanged, against the sandbox's API server: all namespaces, no leader
 * election (one replica), no HTTP endpoint (the sandbox shows progress itself).
 */
public final class EtcdOperatorLauncher implements OperatorLauncher {
  private final OperatorSettings settings;

  public EtcdOperatorLauncher() {
    this(OperatorSettings.defaults());
  }

  public EtcdOperatorLauncher(OperatorSettings settings) {
    this.settings = settings;
  }

  @Override
  public AutoCloseable start(KubernetesClient client) {
    return EtcdOperator.start(client, settings);
  }
}
