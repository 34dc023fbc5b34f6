package io.etcdoperator.sandbox;

import io.etcdoperator.operator.EtcdOperator;
import io.etcdoperator.operator.OperatorSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Runs the real operator, unchanged, against the sandbox's API server, with the sandbox's client
 * (which acts as the operator's ServiceAccount): by default one replica, all namespaces, no leader
 * election, no HTTP endpoint (the sandbox shows progress itself); or several replicas, each with
 * its own settings (leader election on a Lease, as the Deployment of {@code deploy/} runs them).
 */
public final class EtcdOperatorLauncher implements OperatorLauncher {
  private final List<OperatorSettings> replicas;
  private final List<EtcdOperator> running = new CopyOnWriteArrayList<>();

  public EtcdOperatorLauncher() {
    this(OperatorSettings.defaults());
  }

  public EtcdOperatorLauncher(OperatorSettings settings) {
    this(List.of(settings));
  }

  private EtcdOperatorLauncher(List<OperatorSettings> replicas) {
    this.replicas = List.copyOf(replicas);
  }

  /** One replica per settings, all in this JVM, all with the sandbox's client. */
  public static EtcdOperatorLauncher replicas(List<OperatorSettings> replicas) {
    return new EtcdOperatorLauncher(replicas);
  }

  /** The replicas running now, in the order of their settings. */
  public List<EtcdOperator> running() {
    return List.copyOf(running);
  }

  @Override
  public AutoCloseable start(KubernetesClient client) {
    List<EtcdOperator> started = new ArrayList<>();
    for (OperatorSettings s : replicas) {
      started.add(EtcdOperator.start(client, s));
    }
    running.addAll(started);
    return () -> {
      for (EtcdOperator o : started) {
        running.remove(o);
        o.close();
      }
    };
  }
}
