package io.etcdoperator.operator.act;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.model.DesiredCluster;
import io.etcdoperator.operator.model.PeerSecrets;
import io.etcdoperator.operator.model.TlsMove;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What one cluster wants, composed once for each change of what it is composed from, rather than on
 * every reconcile: composing the model (validating the spec, building and hashing the pod template)
 * and hashing the desired objects was most of an idle reconcile's cost.
 *
 * <p>{@link DesiredCluster#of} is a function of the resource's metadata and spec (never its
 * status), the operator's image, the fingerprint of the CAs members trust and the step of a move to
 * TLS. The spec changes only with the generation; metadata that the model reads (annotations such
 * as the rebuild opt-in or the pause) is part of the key as it is. So an entry holds while the UID,
 * generation, annotations, labels, image, fingerprint and move are the same; a status write (which
 * changes the resourceVersion only) keeps it. Each entry also keeps the hashes of the desired
 * objects made from it ({@link #hashes}), so that an object already as desired is neither built nor
 * serialized again.
 *
 * <p>A cluster keeps its two most recent entries: a reconcile during a move to TLS composes the
 * model for the spec and for the move's step. An EtcdCluster deleted and created again under its
 * name (another UID) starts afresh.
 */
public final class DesiredCache {
  private static final int ENTRIES_PER_CLUSTER = 2;
  private static final int HASHES_PER_ENTRY = 32;

  private volatile List<Entry> entries = List.of();

  /** What an entry was composed from. */
  public record Key(
      String uid,
      Long generation,
      Map<String, String> annotations,
      Map<String, String> labels,
      String operatorImage,
      String trustedCa,
      TlsMove move,
      Optional<PeerSecrets> kept) {
    static Key of(
        EtcdCluster c,
        String operatorImage,
        String trustedCa,
        TlsMove move,
        Optional<PeerSecrets> kept) {
      var m = c.getMetadata();
      return new Key(
          m.getUid(),
          m.getGeneration(),
          m.getAnnotations() == null ? Map.of() : Map.copyOf(m.getAnnotations()),
          m.getLabels() == null ? Map.of() : Map.copyOf(m.getLabels()),
          operatorImage,
          trustedCa,
          move,
          kept);
    }
  }

  /** One composition and the hashes of the objects made from it. */
  public record Entry(Key key, DesiredCluster desired, Map<Object, String> hashes) {
    /** The hash of the object {@code key} names, computed by {@code hash} the first time. */
    String hash(Object key, Supplier<String> hash) {
      String known = hashes.get(key);
      if (known != null) {
        return known;
      }
      if (hashes.size() >= HASHES_PER_ENTRY) {
        // the cluster-state ConfigMap's key changes with every maintenance record: keep it bounded
        hashes.clear();
      }
      String computed = hash.get();
      hashes.put(key, computed);
      return computed;
    }
  }

  /** The cluster's desired state, composed now or earlier from the same inputs. */
  public Entry of(EtcdCluster cluster, String operatorImage, String trustedCa, TlsMove move) {
    return of(cluster, operatorImage, trustedCa, move, Optional.empty());
  }

  /**
   * As {@link #of(EtcdCluster, String, String, TlsMove)}, the members presenting the peer Secrets
   * they ran ({@code kept}) while a move off peer TLS serves https.
   */
  public Entry of(
      EtcdCluster cluster,
      String operatorImage,
      String trustedCa,
      TlsMove move,
      Optional<PeerSecrets> kept) {
    Key key = Key.of(cluster, operatorImage, trustedCa, move, kept);
    List<Entry> entries = this.entries;
    for (Entry e : entries) {
      if (e.key().equals(key)) {
        return e;
      }
    }
    Entry made =
        new Entry(
            key,
            DesiredCluster.of(cluster, operatorImage, trustedCa, move, kept),
            new ConcurrentHashMap<>());
    List<Entry> retained = new ArrayList<>();
    retained.add(made);
    entries.stream()
        .filter(e -> Objects.equals(e.key().uid(), key.uid()))
        .limit(ENTRIES_PER_CLUSTER - 1)
        .forEach(retained::add);
    this.entries = List.copyOf(retained);
    return made;
  }

  /** Entries kept (for tests). */
  int size() {
    return entries.size();
  }
}
