package io.etcdoperator.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The informers' stores of the operator's own objects and of EtcdClusters drop managed fields; the
 * former also share their common strings ({@link CompactorTest}).
 */
class CacheStoresTest {
  static final List<io.fabric8.kubernetes.api.model.ManagedFieldsEntry> MANAGED =
      List.of(
          new ManagedFieldsEntryBuilder()
              .withManager("kubelet")
              .withOperation("Update")
              .withFieldsType("FieldsV1")
              .withFieldsV1(fields())
              .build());

  static FieldsV1 fields() {
    FieldsV1 f = new FieldsV1();
    f.setAdditionalProperty("f:status", Map.of());
    return f;
  }

  @Test
  void aCachedPodKeepsEverythingButItsManagedFields() {
    ItemStore<Pod> store = new TrimmingStore<>(ClusterEventSources::compacted);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("test-0")
            .withNamespace("default")
            .withLabels(Map.of("app", "etcd"))
            .withManagedFields(MANAGED)
            .endMetadata()
            .withNewSpec()
            .withNodeName(new String("node-0".toCharArray()))
            .endSpec()
            .build();
    store.put(store.getKey(pod), pod);
    Pod kept = store.get("default/test-0");
    assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(kept.getMetadata().getLabels()).containsEntry("app", "etcd");
    assertThat(kept.getSpec().getNodeName()).isEqualTo("node-0");
    assertThat(kept.getSpec().getNodeName()).isSameAs("node-0".intern());
  }

  @Test
  void aCachedEtcdClusterHasNoManagedFields() {
    ItemStore<EtcdCluster> store = EtcdClusterReconciler.store();
    EtcdCluster c = new EtcdCluster();
    c.setMetadata(
        new ObjectMetaBuilder()
            .withName("test")
            .withNamespace("default")
            .withManagedFields(MANAGED)
            .build());
    store.put(store.getKey(c), c);
    assertThat(store.get("default/test").getMetadata().getManagedFields()).isNullOrEmpty();
  }
}
