package io.etcdoperator.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.testing.MockApi;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The informer keeps names and versions of Secrets; a Secret a cluster names is read whole, again
 * only when its version changed. Against fabric8's mock API server (no real one runs here).
 */
class SecretCacheTest {
  static Secret secret(String name, String value) {
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .withLabels(Map.of("owner", "helm"))
        .withAnnotations(Map.of("note", "x".repeat(1000)))
        .endMetadata()
        .withData(
            Map.of(
                "tls.key",
                Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.US_ASCII))))
        .build();
  }

  @Test
  void theStoreKeepsNamesAndVersionOnly() {
    ItemStore<Secret> store = SecretCache.store();
    Secret s = secret("release-v1", "big");
    s.getMetadata().setResourceVersion("7");
    s.getMetadata().setUid("u-1");
    store.put(store.getKey(s), s);

    Secret kept = store.get("default/release-v1");
    assertThat(kept.getMetadata().getName()).isEqualTo("release-v1");
    assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(kept.getMetadata().getUid()).isNull();
    assertThat(kept.getMetadata().getLabels()).isNullOrEmpty();
    assertThat(kept.getMetadata().getAnnotations())
        .as("empty, not null: JOSDK reads an annotation of each object the store hands it")
        .isNotNull()
        .isEmpty();
    assertThat(kept.getData()).isNullOrEmpty();
    assertThat(kept.getStringData()).isNullOrEmpty();
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.remove("default/release-v1")).isNotNull();
    assertThat(store.size()).isZero();
  }

  @Test
  void aNamedSecretIsReadWholeOnceAndAgainWhenItsVersionChanges() {
    try (MockApi api = new MockApi()) {
      var client = api.client();
      Secret created = client.resource(secret("etcd-tls-server", "one")).create();
      SecretCache cache = new SecretCache();
      Secret seen = SecretCache.namesOnly(created);
      api.drainRequests();

      assertThat(cache.read(client, seen).orElseThrow().getData()).containsKey("tls.key");
      assertThat(cache.read(client, seen)).isPresent();
      assertThat(api.drainRequests()).as("one GET for two reads of one version").hasSize(1);

      Secret renewed = client.resource(secret("etcd-tls-server", "two")).update();
      api.drainRequests();
      Secret read = cache.read(client, SecretCache.namesOnly(renewed)).orElseThrow();
      assertThat(read.getMetadata().getResourceVersion())
          .isEqualTo(renewed.getMetadata().getResourceVersion());
      assertThat(api.drainRequests()).hasSize(1);
      assertThat(cache.size()).isEqualTo(1);

      client.resource(renewed).delete();
      assertThat(cache.read(client, SecretCache.namesOnly(created))).isEmpty();
      assertThat(cache.size()).isZero();
    }
  }

  @Test
  void whenTheReadFailsTheCopyReadBeforeIsUsedAndWithoutOneTheFailureIsSaid() {
    try (MockApi api = new MockApi();
        // No retries: the API server is shut down below, and each retry would wait out a back-off.
        KubernetesClient client =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder(api.client().getConfiguration())
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build()) {
      Secret created = client.resource(secret("etcd-tls-server", "one")).create();
      Secret other = client.resource(secret("etcd-tls-client", "one")).create();
      SecretCache cache = new SecretCache();
      cache.read(client, SecretCache.namesOnly(created)).orElseThrow();
      Secret renewed = client.resource(secret("etcd-tls-server", "two")).update();
      api.server().shutdown();

      Secret read = cache.read(client, SecretCache.namesOnly(renewed)).orElseThrow();

      assertThat(read.getMetadata().getResourceVersion())
          .as("the copy read before, while the API server does not answer")
          .isEqualTo(created.getMetadata().getResourceVersion());
      assertThatThrownBy(() -> cache.read(client, SecretCache.namesOnly(other)))
          .as("no copy to fall back on")
          .isInstanceOf(KubernetesClientException.class);
    }
  }
}
