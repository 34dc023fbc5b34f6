package io.etcdoperator.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Node informer keeps what placement reads of a Node, and nothing else. */
class NodeWatchTest {
  static Node busyNode() {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("node-1")
        .withResourceVersion("42")
        .withLabels(Map.of("kubernetes.io/hostname", "node-1"))
        .withAnnotations(Map.of("node.alpha.kubernetes.io/ttl", "0"))
        .endMetadata()
        .withNewSpec()
        .withUnschedulable(true)
        .withTaints(new Taint("NoSchedule", "node.kubernetes.io/unschedulable", null, null))
        .withPodCIDR("10.0.1.0/24")
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("MemoryPressure")
        .withStatus("False")
        .endCondition()
        .addNewCondition()
        .withType("Ready")
        .withStatus("False")
        .withLastTransitionTime("2026-12-06T10:00:00Z")
        .endCondition()
        .withImages(new ContainerImage(List.of("quay.io/coreos/etcd:v3.5.30"), 23_000_000L))
        .withCapacity(Map.of("cpu", new Quantity("2")))
        .endStatus()
        .build();
  }

  @Test
  void keepsCordonTaintsAndReadinessOnly() {
    Node kept = NodeWatch.whatIsRead(busyNode());

    assertThat(kept.getMetadata().getName()).isEqualTo("node-1");
    assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(kept.getMetadata().getLabels()).isNullOrEmpty();
    assertThat(kept.getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(kept.getSpec().getUnschedulable()).isTrue();
    assertThat(kept.getSpec().getTaints()).hasSize(1);
    assertThat(kept.getSpec().getPodCIDR()).isNull();
    assertThat(kept.getStatus().getConditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getType()).isEqualTo("Ready");
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-12-06T10:00:00Z");
            });
    assertThat(kept.getStatus().getImages()).isNullOrEmpty();
    assertThat(kept.getStatus().getCapacity()).isNullOrEmpty();
    // What a change is judged by reads the same on the whole Node and on what is kept.
    assertThat(NodeWatch.relevant(kept)).isEqualTo(NodeWatch.relevant(busyNode()));
  }

  @Test
  void theStoreKeysAsFabric8Does() {
    ItemStore<Node> store = new TrimmingStore<>(NodeWatch::whatIsRead);
    Node n = busyNode();
    assertThat(store.getKey(n)).isEqualTo("node-1");
    store.put(store.getKey(n), n);
    assertThat(store.get("node-1").getStatus().getImages()).isNullOrEmpty();
    assertThat(store.keySet()).containsExactly("node-1");
  }
}
