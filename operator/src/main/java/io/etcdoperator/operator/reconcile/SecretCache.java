package io.etcdoperator.operator.reconcile;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Secrets the operator sees, at a cost that does not grow with Secrets that are not its.
 *
 * <p>The TLS Secrets carry no label of ours (cert-manager or a user writes them), so the informer
 * must watch every Secret of the watched namespaces to see a renewal at once. A real cluster holds
 * thousands of Secrets that have nothing to do with etcd (Helm keeps each release's history in one,
 * up to 1 MiB). So:
 *
 * <ul>
 *   <li>The informer's store ({@link #store}) keeps of each Secret only what names and versions it:
 *       namespace, name and resourceVersion. Its data, labels, annotations and managed fields are
 *       dropped as it arrives.
 *   <li>A Secret a cluster names is read whole ({@link #read}) with a GET when first asked for, and
 *       again only when the informer has seen a newer resourceVersion of it; the copy is kept while
 *       the informer still holds the Secret. So only the Secrets clusters name are held whole, and
 *       a renewed certificate is read on the reconcile its change wakes.
 * </ul>
 */
final class SecretCache {
  private final Map<String, Secret> whole = new ConcurrentHashMap<>();

  /** The informer's store: each Secret as its metadata's names and versions only. */
  static ItemStore<Secret> store() {
    return new TrimmingStore<>(SecretCache::namesOnly);
  }

  /**
   * The Secret {@code seen} (as the informer holds it: names and version) whole: the copy read
   * before if it is of that version, else read again. Empty when it is gone meanwhile. When the
   * read fails, the copy read before if there is one (else the failure).
   */
  Optional<Secret> read(KubernetesClient client, Secret seen) {
    String key = key(seen);
    String version = seen.getMetadata().getResourceVersion();
    Secret had = whole.get(key);
    if (had != null && version != null && version.equals(had.getMetadata().getResourceVersion())) {
      return Optional.of(had);
    }
    Secret read;
    try {
      read =
          client
              .secrets()
              .inNamespace(seen.getMetadata().getNamespace())
              .withName(seen.getMetadata().getName())
              .get();
    } catch (KubernetesClientException e) {
      if (had == null) {
        throw e;
      }
      // The API server did not answer this time: the copy read before is the newest known whole;
      // the informer's newer version is read on the next reconcile.
      return Optional.of(had);
    }
    if (read == null) {
      whole.remove(key);
      return Optional.empty();
    }
    whole.put(key, read);
    return Optional.of(read);
  }

  /** The whole copy of a Secret the informer no longer holds is dropped. */
  void forget(String namespace, String name) {
    whole.remove(namespace + "/" + name);
  }

  /** How many Secrets are held whole. */
  int size() {
    return whole.size();
  }

  private static String key(Secret s) {
    return s.getMetadata().getNamespace() + "/" + s.getMetadata().getName();
  }

  /** A Secret's namespace, name and resourceVersion: what the informer keeps of it. */
  static Secret namesOnly(Secret s) {
    ObjectMeta m = s.getMetadata();
    ObjectMeta kept = bareMeta();
    kept.setNamespace(m.getNamespace() == null ? null : m.getNamespace().intern());
    kept.setName(m.getName());
    kept.setResourceVersion(m.getResourceVersion());
    Secret secret = new Secret();
    secret.setData(null);
    secret.setStringData(null);
    secret.setMetadata(kept);
    return secret;
  }

  /**
   * An ObjectMeta without the empty collections a new one starts with (kept per cached object). Its
   * annotations are the shared empty map, not null: JOSDK's informer event source reads an
   * annotation of every object it is handed from the store (the Secrets listed when the informer
   * starts come from it) without a null check, and with null it failed on each of them, their
   * events lost.
   */
  static ObjectMeta bareMeta() {
    ObjectMeta meta = new ObjectMeta();
    meta.setAnnotations(Map.of());
    meta.setLabels(null);
    meta.setFinalizers(null);
    meta.setManagedFields(null);
    meta.setOwnerReferences(null);
    return meta;
  }
}
