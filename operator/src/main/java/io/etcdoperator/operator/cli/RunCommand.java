package io.etcdoperator.operator.cli;

import io.etcdoperator.operator.EtcdOperator;
import io.etcdoperator.operator.OperatorSettings;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code etcd-operator run}: the operator, against a real Kubernetes API. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Run the operator against the cluster of the current kubeconfig, or in-cluster.",
      "Leader election on a Lease is on when --lease-namespace is given or OPERATOR_NAMESPACE is set"
          + " (as in the operator's Deployment)."
    })
public final class RunCommand implements Callable<Integer> {
  @Option(
      names = {"-n", "--namespace"},
      split = ",",
      description =
          "Namespace to watch (repeat or comma-separate); default: $WATCH_NAMESPACES, else all.")
  List<String> namespaces = fromEnv("WATCH_NAMESPACES");

  @Option(
      names = "--kubeconfig",
      description = "Kubeconfig file; default: $KUBECONFIG, ~/.kube/config, or in-cluster.")
  Path kubeconfig;

  @Option(
      names = "--lease-namespace",
      description = "Namespace of the leader-election Lease; default: $OPERATOR_NAMESPACE.")
  String leaseNamespace = System.getenv("OPERATOR_NAMESPACE");

  @Option(
      names = "--lease-name",
      description = "Name of the leader-election Lease (default: ${DEFAULT-VALUE}).")
  String leaseName = "etcd-operator-leader";

  @Option(
      names = "--http-host",
      description = "Address of /healthz, /readyz, /metrics (default: ${DEFAULT-VALUE}).")
  String httpHost = "0.0.0.0";

  @Option(
      names = "--http-port",
      description = "Port of /healthz, /readyz, /metrics; -1: none (default: ${DEFAULT-VALUE}).")
  int httpPort = 8080;

  @Option(
      names = "--etcd-timeout",
      description = "Deadline of every call to etcd, e.g. 1s, 500ms (default: ${DEFAULT-VALUE}).")
  String etcdTimeout = "1s";

  @Override
  public Integer call() throws Exception {
    if (kubeconfig != null) {
      if (!Files.isReadable(kubeconfig)) {
        System.err.println("etcd-operator: cannot read kubeconfig " + kubeconfig);
        return 2;
      }
      System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, kubeconfig.toAbsolutePath().toString());
    }
    OperatorSettings settings =
        OperatorSettings.defaults()
            .withNamespaces(new LinkedHashSet<>(namespaces))
            .withEtcdDeadline(parseDuration(etcdTimeout));
    String image = System.getenv("OPERATOR_IMAGE");
    if (image != null && !image.isBlank()) {
      // backup and restore pods run the operator's own image
      settings = settings.withOperatorImage(image);
    }
    if (httpPort >= 0) {
      settings = settings.withHttp(new OperatorSettings.Http(httpHost, httpPort));
    }
    if (leaseNamespace != null && !leaseNamespace.isBlank()) {
      settings =
          settings.withLeaderElection(
              new OperatorSettings.LeaderElection(leaseNamespace, leaseName, identity()));
    }
    KubernetesClient client = new KubernetesClientBuilder().build();
    EtcdOperator operator;
    try {
      client.getKubernetesVersion();
      operator = EtcdOperator.start(client, settings);
    } catch (KubernetesClientException e) {
      System.err.println(
          "etcd-operator: cannot reach the Kubernetes API at "
              + client.getMasterUrl()
              + ": "
              + e.getMessage());
      client.close();
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  operator.close();
                  client.close();
                  stopped.countDown();
                },
                "shutdown"));
    stopped.await();
    return 0;
  }

  private static List<String> fromEnv(String variable) {
    String value = System.getenv(variable);
    return value == null || value.isBlank()
        ? List.of()
        : Arrays.stream(value.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
  }

  private static String identity() {
    String pod = System.getenv("POD_NAME");
    if (pod != null && !pod.isBlank()) {
      return pod;
    }
    try {
      return InetAddress.getLocalHost().getHostName() + "-" + ProcessHandle.current().pid();
    } catch (UnknownHostException e) {
      return "etcd-operator-" + ProcessHandle.current().pid();
    }
  }

  /** {@code 1s}, {@code 500ms}, {@code 2m}, or an ISO-8601 duration. */
  static Duration parseDuration(String text) {
    String t = text.trim().toLowerCase();
    if (t.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
    }
    if (t.endsWith("s")) {
      return Duration.ofMillis(
          Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
    }
    if (t.endsWith("m")) {
      return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)) * 60);
    }
    return Duration.parse(text);
  }
}
