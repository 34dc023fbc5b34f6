package io.etcdoperator.sandbox.controller;

import static io.etcdoperator.sandbox.kubelet.NodeStatus.LEASE_NAMESPACE;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The node lifecycle controller, with its taint-based eviction, as kube-controller-manager runs
 * them.
 *
 * <p>Each pass (every resync), for each node:
 *
 * <ol>
 *   <li>Health: the node's Lease in {@code kube-node-lease} was last renewed at its {@code
 *       renewTime} (no Lease: the node's creation). When that is longer ago than the grace period
 *       ({@link io.etcdoperator.sandbox.SandboxConfig#nodeMonitorGracePeriod()}, Kubernetes: 40 s)
 *       and the node's Ready condition is not already Unknown, every condition becomes Unknown,
 *       reason {@code NodeStatusUnknown}, message "Kubelet stopped posting node status.", and every
 *       pod on the node gets Ready False.
 *   <li>Taints: a node whose Ready is Unknown carries {@code node.kubernetes.io/unreachable} with
 *       effects NoSchedule and NoExecute (timeAdded: when added); a node whose Lease is fresh and
 *       whose Ready is True (the kubelet posts it when back) loses them.
 *   <li>Eviction: while the unreachable NoExecute taint is on, each pod on the node not yet being
 *       deleted is deleted gracefully (it gets a deletionTimestamp; its kubelet, away, completes
 *       nothing) once its toleration of the taint runs out: at timeAdded + tolerationSeconds; a pod
 *       without a toleration at once; a toleration without tolerationSeconds never.
 * </ol>
 */
public final class NodeLifecycleController extends Controller {
  public static final String UNREACHABLE = "node.kubernetes.io/unreachable";
  private final Duration grace;

  public NodeLifecycleController(KubernetesClient client, Duration resync, Duration grace) {
    super(client, "node-lifecycle-controller", resync);
    this.grace = grace;
  }

  @Override
  public void start() {
    // no watch: the resync looks every second (more watches on the shared client delay requests)
    super.start();
  }

  @Override
  protected void reconcile() {
    Instant now = Instant.now();
    Map<String, Lease> leases = new HashMap<>();
    for (Lease l : client.leases().inNamespace(LEASE_NAMESPACE).list().getItems()) {
      leases.put(l.getMetadata().getName(), l);
    }
    List<Pod> pods = null;
    for (Node node : client.nodes().list().getItems()) {
      String name = node.getMetadata().getName();
      try {
        Instant renewed = renewed(node, leases.get(name));
        boolean stale = renewed.plus(grace).isBefore(now);
        String ready = readyStatus(node);
        if (stale && !"Unknown".equals(ready)) {
          markUnknown(node, now);
          ready = "Unknown";
        }
        if ("Unknown".equals(ready)) {
          taint(name, now);
          if (pods == null) {
            pods = client.pods().inAnyNamespace().list().getItems();
          }
          Node current = client.nodes().withName(name).get();
          Taint noExecute = unreachable(current, "NoExecute");
          for (Pod p : pods) {
            if (name.equals(p.getSpec().getNodeName())) {
              markNotReady(p);
              if (noExecute != null) {
                evictIfDue(p, noExecute, now);
              }
            }
          }
        } else if (!stale && "True".equals(ready) && unreachable(node, null) != null) {
          untaint(name);
        }
      } catch (KubernetesClientException e) {
        log.debug("node {} not handled yet: {}", name, e.getMessage());
      }
    }
  }

  private static Instant renewed(Node node, Lease lease) {
    if (lease != null && lease.getSpec() != null && lease.getSpec().getRenewTime() != null) {
      return lease.getSpec().getRenewTime().toInstant();
    }
    return Instant.parse(node.getMetadata().getCreationTimestamp());
  }

  private static String readyStatus(Node node) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return null;
    }
    for (NodeCondition c : node.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return c.getStatus();
      }
    }
    return null;
  }

  private void markUnknown(Node node, Instant now) {
    String at = now.truncatedTo(ChronoUnit.SECONDS).toString();
    Node n = client.nodes().withName(node.getMetadata().getName()).get();
    if (n == null) {
      return;
    }
    List<NodeCondition> conditions = new ArrayList<>();
    List<NodeCondition> old =
        n.getStatus() == null || n.getStatus().getConditions() == null
            ? List.of(new NodeConditionBuilder().withType("Ready").build())
            : n.getStatus().getConditions();
    for (NodeCondition c : old) {
      NodeCondition u = new NodeCondition();
      u.setType(c.getType());
      u.setStatus("Unknown");
      u.setReason("NodeStatusUnknown");
      u.setMessage("Kubelet stopped posting node status.");
      u.setLastHeartbeatTime(c.getLastHeartbeatTime());
      u.setLastTransitionTime(at);
      conditions.add(u);
    }
    if (n.getStatus() == null) {
      n.setStatus(new NodeStatus());
    }
    n.getStatus().setConditions(conditions);
    client.nodes().resource(n).updateStatus();
    log.info(
        "node {}: Kubelet stopped posting node status; Ready is Unknown",
        node.getMetadata().getName());
  }

  private static Taint unreachable(Node node, String effect) {
    if (node == null || node.getSpec() == null || node.getSpec().getTaints() == null) {
      return null;
    }
    for (Taint t : node.getSpec().getTaints()) {
      if (UNREACHABLE.equals(t.getKey()) && (effect == null || effect.equals(t.getEffect()))) {
        return t;
      }
    }
    return null;
  }

  private void taint(String name, Instant now) {
    Node n = client.nodes().withName(name).get();
    if (n == null || unreachable(n, "NoSchedule") != null && unreachable(n, "NoExecute") != null) {
      return;
    }
    client
        .nodes()
        .withName(name)
        .edit(
            x -> {
              List<Taint> taints =
                  x.getSpec().getTaints() == null
                      ? new ArrayList<>()
                      : new ArrayList<>(x.getSpec().getTaints());
              for (String effect : List.of("NoSchedule", "NoExecute")) {
                if (unreachable(x, effect) == null) {
                  taints.add(
                      new TaintBuilder()
                          .withKey(UNREACHABLE)
                          .withEffect(effect)
                          .withTimeAdded(now.truncatedTo(ChronoUnit.SECONDS).toString())
                          .build());
                }
              }
              x.getSpec().setTaints(taints);
              return x;
            });
    log.info("node {} tainted {}", name, UNREACHABLE);
  }

  private void untaint(String name) {
    client
        .nodes()
        .withName(name)
        .edit(
            x -> {
              List<Taint> kept = new ArrayList<>();
              for (Taint t : x.getSpec().getTaints()) {
                if (!UNREACHABLE.equals(t.getKey())) {
                  kept.add(t);
                }
              }
              x.getSpec().setTaints(kept);
              return x;
            });
    log.info("node {} is Ready again; taint {} removed", name, UNREACHABLE);
  }

  private void markNotReady(Pod p) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return;
    }
    boolean changed = false;
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    for (PodCondition c : p.getStatus().getConditions()) {
      if ("Ready".equals(c.getType()) && !"False".equals(c.getStatus())) {
        c.setStatus("False");
        c.setLastTransitionTime(now);
        changed = true;
      }
    }
    if (changed) {
      client.pods().resource(p).updateStatus();
    }
  }

  /**
   * When a pod with these tolerations is to be evicted for the NoExecute taint: timeAdded plus the
   * tolerationSeconds of the toleration that matches it (negative counts as 0), {@code now} if none
   * matches, null (never) if the one that matches has no tolerationSeconds.
   */
  static Instant evictionDue(Taint taint, List<Toleration> tolerations, Instant now) {
    Toleration t = Placement.toleration(taint, tolerations);
    if (t == null) {
      return now;
    }
    if (t.getTolerationSeconds() == null) {
      return null;
    }
    Instant added = taint.getTimeAdded() == null ? now : Instant.parse(taint.getTimeAdded());
    return added.plusSeconds(Math.max(0, t.getTolerationSeconds()));
  }

  /**
   * Deletes the pod once its toleration of the taint has run out (see the class comment); when it
   * has not yet, the next passes look again.
   */
  private void evictIfDue(Pod p, Taint taint, Instant now) {
    if (p.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    Instant due = evictionDue(taint, p.getSpec().getTolerations(), now);
    if (due == null) {
      return;
    }
    if (now.isBefore(due)) {
      return;
    }
    log.info(
        "evicting pod {}/{} from unreachable node {}",
        p.getMetadata().getNamespace(),
        p.getMetadata().getName(),
        p.getSpec().getNodeName());
    client
        .pods()
        .inNamespace(p.getMetadata().getNamespace())
        .withName(p.getMetadata().getName())
        .delete();
  }
}
