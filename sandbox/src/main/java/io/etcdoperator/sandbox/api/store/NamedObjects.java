package io.etcdoperator.sandbox.api.store;

import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The mock API server's store (fabric8's {@code CrudDispatcher} keeps every object in one map,
 * keyed by its attributes, and finds one by comparing the query with every key), with indexes by
 * object name and by resource type beside it, so that a request for one named object looks at the
 * few objects of that name, and a list at the objects of its type, instead of all of them: with a
 * thousand clusters' objects, every read and write of a single object cost a scan of eight
 * thousand, and every list of pods too.
 *
 * <p>The index is kept by every method that adds a key; keys removed through a view of the map (its
 * iterators) stay in the index until their name is looked up, and each candidate is checked against
 * the map itself, so the index never answers with what the map no longer holds. Used under the
 * map's own lock (the store is wrapped with {@link java.util.Collections#synchronizedMap}), as
 * every access of the {@link Store} is.
 */
final class NamedObjects extends LinkedHashMap<AttributeSet, String> {
  static final String NAME = "name";

  static final String PLURAL = "plural";

  private final Map<String, Set<AttributeSet>> byName = new HashMap<>();

  /** Keys by resource type (their plural), in the map's order; keys without one: {@code ""}. */
  private final Map<String, Set<AttributeSet>> byPlural = new HashMap<>();

  /**
   * Every stored object of the query's resource type whose key satisfies {@code query}, in the
   * order the map keeps them; empty when the store holds objects of no known type (then only a scan
   * of everything answers).
   */
  Optional<List<String>> list(String plural, AttributeSet query) {
    Set<AttributeSet> untyped = byPlural.get("");
    if (untyped != null) {
      untyped.removeIf(k -> !containsKey(k));
      if (!untyped.isEmpty()) {
        return Optional.empty();
      }
    }
    List<String> items = new ArrayList<>();
    Set<AttributeSet> keys = byPlural.get(plural);
    if (keys != null) {
      keys.removeIf(k -> !containsKey(k));
      for (AttributeSet k : keys) {
        if (k.matches(query)) {
          items.add(get(k));
        }
      }
    }
    return Optional.of(items);
  }

  /** The single value of an attribute, if it has one. */
  static Optional<String> value(AttributeSet set, String key) {
    Attribute a = set.getAttribute(key);
    if (a == null || a.getValues().size() != 1) {
      return Optional.empty();
    }
    return Optional.ofNullable(a.getValues().get(0).toString());
  }

  /** The first stored object whose key satisfies {@code query}, which names one object. */
  Optional<Map.Entry<AttributeSet, String>> find(String name, AttributeSet query) {
    Set<AttributeSet> keys = byName.get(name);
    if (keys == null) {
      return Optional.empty();
    }
    keys.removeIf(k -> !containsKey(k));
    for (AttributeSet k : keys) {
      if (k.matches(query)) {
        return Optional.of(Map.entry(k, get(k)));
      }
    }
    return Optional.empty();
  }

  /** The name a query (or a key) asks for, if it asks for one. */
  static Optional<String> nameOf(AttributeSet set) {
    return value(set, NAME);
  }

  private void index(AttributeSet key) {
    nameOf(key).ifPresent(n -> byName.computeIfAbsent(n, x -> new LinkedHashSet<>()).add(key));
    byPlural.computeIfAbsent(value(key, PLURAL).orElse(""), x -> new LinkedHashSet<>()).add(key);
  }

  @Override
  public String put(AttributeSet key, String value) {
    index(key);
    return super.put(key, value);
  }

  @Override
  public void putAll(Map<? extends AttributeSet, ? extends String> m) {
    m.keySet().forEach(this::index);
    super.putAll(m);
  }

  @Override
  public String putIfAbsent(AttributeSet key, String value) {
    index(key);
    return super.putIfAbsent(key, value);
  }

  @Override
  public String computeIfAbsent(
      AttributeSet key, Function<? super AttributeSet, ? extends String> f) {
    index(key);
    return super.computeIfAbsent(key, f);
  }

  @Override
  public String compute(
      AttributeSet key, BiFunction<? super AttributeSet, ? super String, ? extends String> f) {
    index(key);
    return super.compute(key, f);
  }

  @Override
  public String merge(
      AttributeSet key,
      String value,
      BiFunction<? super String, ? super String, ? extends String> f) {
    index(key);
    return super.merge(key, value, f);
  }

  @Override
  public String remove(Object key) {
    if (key instanceof AttributeSet k) {
      nameOf(k).map(byName::get).ifPresent(s -> s.remove(k));
      Set<AttributeSet> typed = byPlural.get(value(k, PLURAL).orElse(""));
      if (typed != null) {
        typed.remove(k);
      }
    }
    return super.remove(key);
  }

  @Override
  public void clear() {
    byName.clear();
    byPlural.clear();
    super.clear();
  }
}
