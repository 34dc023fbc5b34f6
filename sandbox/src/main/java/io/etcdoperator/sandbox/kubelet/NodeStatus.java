package io.etcdoperator.sandbox.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What a kubelet writes about its node: the Node object, its status and its Lease. */
public final class NodeStatus {
  /** The namespace of the nodes' heartbeat Leases. */
  public static final String LEASE_NAMESPACE = "kube-node-lease";

  /** How often a kubelet posts an unchanged status (Kubernetes' nodeStatusReportFrequency). */
  static final Duration REPORT_FREQUENCY = Duration.ofMinutes(5);

  private NodeStatus() {}

  /** The labels a kubelet gives its node. */
  public static Map<String, String> labels(String node) {
    return Map.of(
        "kubernetes.io/hostname", node,
        "kubernetes.io/os", "linux",
        "kubernetes.io/arch", "amd64",
        "topology.kubernetes.io/zone", "sandbox");
  }

  /** Creates the Node object unless it exists. */
  static void register(KubernetesClient client, String node) {
    if (client.nodes().withName(node).get() != null) {
      return;
    }
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(node)
                .withLabels(labels(node))
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build())
        .create();
    post(client, node, null);
  }

  /** Renews the node's Lease (creating it, owned by the Node, if missing). */
  static void renewLease(KubernetesClient client, String node, Duration duration) {
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
    var leases = client.leases().inNamespace(LEASE_NAMESPACE);
    Lease lease = leases.withName(node).get();
    if (lease == null) {
      Node n = client.nodes().withName(node).get();
      if (n == null) {
        register(client, node);
        n = client.nodes().withName(node).get();
      }
      leases
          .resource(
              new LeaseBuilder()
                  .withNewMetadata()
                  .withName(node)
                  .withNamespace(LEASE_NAMESPACE)
                  .addNewOwnerReference()
                  .withApiVersion("v1")
                  .withKind("Node")
                  .withName(node)
                  .withUid(n.getMetadata().getUid())
                  .endOwnerReference()
                  .endMetadata()
                  .withNewSpec()
                  .withHolderIdentity(node)
                  .withLeaseDurationSeconds((int) duration.toSeconds())
                  .withRenewTime(now)
                  .endSpec()
                  .build())
          .create();
      return;
    }
    lease.getSpec().setRenewTime(now);
    leases.resource(lease).update();
  }

  /**
   * Posts the node's status (Ready True, addresses, capacity, node info) when its Ready condition
   * is not True, or {@code lastPosted} is null or five minutes ago; re-registers a deleted Node.
   * True if it posted.
   */
  static boolean post(KubernetesClient client, String node, Instant lastPosted) {
    Node n = client.nodes().withName(node).get();
    if (n == null) {
      register(client, node);
      return true;
    }
    NodeCondition ready = null;
    if (n.getStatus() != null && n.getStatus().getConditions() != null) {
      for (NodeCondition c : n.getStatus().getConditions()) {
        if ("Ready".equals(c.getType())) {
          ready = c;
        }
      }
    }
    boolean isReady = ready != null && "True".equals(ready.getStatus());
    if (isReady && lastPosted != null && lastPosted.plus(REPORT_FREQUENCY).isAfter(Instant.now())) {
      return false;
    }
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    List<NodeCondition> conditions = new ArrayList<>();
    for (String type : List.of("MemoryPressure", "DiskPressure", "PIDPressure")) {
      conditions.add(
          condition(
              n, type, "False", "KubeletHas" + noPressure(type), noPressureMessage(type), now));
    }
    conditions.add(
        condition(n, "Ready", "True", "KubeletReady", "kubelet is posting ready status", now));
    Map<String, Quantity> capacity =
        Map.of(
            "cpu", new Quantity("4"),
            "memory", new Quantity("8Gi"),
            "pods", new Quantity("110"),
            "ephemeral-storage", new Quantity("100Gi"));
    n.setStatus(
        new NodeStatusBuilder()
            .withConditions(conditions)
            .addNewAddress("127.0.0.1", "InternalIP")
            .addNewAddress(node, "Hostname")
            .withCapacity(capacity)
            .withAllocatable(capacity)
            .withNewNodeInfo()
            .withArchitecture("amd64")
            .withOperatingSystem("linux")
            .withOsImage("sandbox")
            .withKubeletVersion("v1.32.0-sandbox")
            .withKubeProxyVersion("v1.32.0-sandbox")
            .withContainerRuntimeVersion("sandbox://1.0")
            .withKernelVersion(System.getProperty("os.version"))
            .withMachineID(node)
            .withSystemUUID(node)
            .withBootID(node)
            .endNodeInfo()
            .build());
    client.nodes().resource(n).updateStatus();
    return true;
  }

  private static String noPressure(String type) {
    return switch (type) {
      case "MemoryPressure" -> "SufficientMemory";
      case "DiskPressure" -> "NoDiskPressure";
      default -> "SufficientPID";
    };
  }

  private static String noPressureMessage(String type) {
    return switch (type) {
      case "MemoryPressure" -> "kubelet has sufficient memory available";
      case "DiskPressure" -> "kubelet has no disk pressure";
      default -> "kubelet has sufficient PID available";
    };
  }

  /** A condition with the heartbeat now, its transition time kept while its status is. */
  private static NodeCondition condition(
      Node n, String type, String status, String reason, String message, String now) {
    String since = now;
    if (n.getStatus() != null && n.getStatus().getConditions() != null) {
      for (NodeCondition c : n.getStatus().getConditions()) {
        if (type.equals(c.getType()) && status.equals(c.getStatus())) {
          since = c.getLastTransitionTime();
        }
      }
    }
    return new NodeConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastHeartbeatTime(now)
        .withLastTransitionTime(since)
        .build();
  }
}
