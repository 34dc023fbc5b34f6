package io.etcdoperator.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An informer's store that keeps of each object only what the operator reads of it ({@code trim}),
 * so that a cache of a kind the operator does not make (Secrets, Nodes) costs little per object
 * however big the objects are. Keyed as fabric8's own store: {@code namespace/name}, or {@code
 * name} for a cluster-scoped kind.
 */
final class TrimmingStore<T extends HasMetadata> implements ItemStore<T> {
  private final Map<String, T> items = new ConcurrentHashMap<>();
  private final UnaryOperator<T> trim;

  TrimmingStore(UnaryOperator<T> trim) {
    this.trim = trim;
  }

  @Override
  public String getKey(T o) {
    String ns = o.getMetadata().getNamespace();
    String name = o.getMetadata().getName();
    return ns == null || ns.isEmpty() ? name : ns + "/" + name;
  }

  @Override
  public T put(String key, T o) {
    return items.put(key, trim.apply(o));
  }

  @Override
  public T remove(String key) {
    return items.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet().stream();
  }

  @Override
  public Stream<T> values() {
    return items.values().stream();
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public T get(String key) {
    return items.get(key);
  }
}
