package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deleting an owner deletes what its ownerReferences tie to it, down the whole tree. */
class GarbageCollectionIT {
  @TempDir Path dir;

  static final ResourceDefinitionContext ETCD =
      new ResourceDefinitionContext.Builder()
          .withGroup("etcd.aenix.io")
          .withVersion("v1alpha1")
          .withPlural("etcdclusters")
          .withKind("EtcdCluster")
          .withNamespaced(true)
          .build();

  @Test
  void deletingACustomResourceDeletesItsTree() {
    try (Sandbox sandbox = SandboxFixture.start(dir)) {
      KubernetesClient k = sandbox.client();
      GenericKubernetesResource cluster =
          k.genericKubernetesResources(ETCD)
              .inNamespace("default")
              .resource(
                  new GenericKubernetesResourceBuilder()
                      .withApiVersion("etcd.aenix.io/v1alpha1")
                      .withKind("EtcdCluster")
                      .withNewMetadata()
                      .withName("test")
                      .withNamespace("default")
                      .endMetadata()
                      .withAdditionalProperties(Map.of("spec", Map.of("replicas", 1)))
                      .build())
              .create();
      var owner =
          new OwnerReferenceBuilder()
              .withApiVersion("etcd.aenix.io/v1alpha1")
              .withKind("EtcdCluster")
              .withName("test")
              .withUid(cluster.getMetadata().getUid())
              .withController(true)
              .build();
      k.configMaps()
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("test-cluster-state")
                  .withNamespace("default")
                  .withOwnerReferences(owner)
                  .endMetadata()
                  .withData(Map.of("a", "b"))
                  .build())
          .create();
      k.configMaps()
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("unowned")
                  .withNamespace("default")
                  .endMetadata()
                  .build())
          .create();
      StatefulSet s = Manifests.statefulSet("test", 1, Manifests.shell("main", "exec sleep 3600"));
      s.getMetadata().setOwnerReferences(List.of(owner));
      k.apps().statefulSets().resource(s).create();
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> StatefulSetIT.ready(k.pods().inNamespace("default").withName("test-0").get()));
      // the GC leaves objects whose owner exists alone
      assertThat(k.configMaps().inNamespace("default").withName("test-cluster-state").get())
          .isNotNull();

      k.genericKubernetesResources(ETCD).inNamespace("default").withName("test").delete();

      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(
              () -> {
                assertThat(
                        k.configMaps().inNamespace("default").withName("test-cluster-state").get())
                    .isNull();
                assertThat(k.apps().statefulSets().inNamespace("default").withName("test").get())
                    .isNull();
                assertThat(k.pods().inNamespace("default").withName("test-0").get()).isNull();
                assertThat(sandbox.kubelet().pod("default", "test-0")).isNull();
              });
      assertThat(k.configMaps().inNamespace("default").withName("unowned").get()).isNotNull();
      // claims are retained by default (whenDeleted: Retain)
      assertThat(k.persistentVolumeClaims().inNamespace("default").withName("data-test-0").get())
          .isNotNull();
    }
  }
}
