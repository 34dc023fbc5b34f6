package io.etcdoperator.sandbox.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * The pod garbage collector of kube-controller-manager, for orphaned pods: each pass (at every
 * resync), every pod bound to a node that no longer exists is force-deleted (grace period 0: no
 * kubelet is left to stop it), Terminating or not.
 */
public final class PodGarbageCollector extends Controller {
  public PodGarbageCollector(KubernetesClient client, Duration resync) {
    super(client, "pod-garbage-collector", resync);
  }

  @Override
  public void start() {
    // no watch: the resync looks every second (more watches on the shared client delay requests)
    super.start();
  }

  @Override
  protected void reconcile() {
    Set<String> nodes = new HashSet<>();
    client.nodes().list().getItems().forEach(n -> nodes.add(n.getMetadata().getName()));
    for (Pod p : client.pods().inAnyNamespace().list().getItems()) {
      String node = p.getSpec().getNodeName();
      if (node == null || node.isEmpty() || nodes.contains(node)) {
        continue;
      }
      try {
        log.info(
            "force-deleting pod {}/{}: its node {} is gone",
            p.getMetadata().getNamespace(),
            p.getMetadata().getName(),
            node);
        client
            .pods()
            .inNamespace(p.getMetadata().getNamespace())
            .withName(p.getMetadata().getName())
            .withGracePeriod(0)
            .delete();
      } catch (KubernetesClientException e) {
        log.debug("pod {} not collected yet: {}", p.getMetadata().getName(), e.getMessage());
      }
    }
  }
}
