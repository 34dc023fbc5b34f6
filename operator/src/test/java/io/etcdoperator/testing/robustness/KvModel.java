package io.etcdoperator.testing.robustness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * etcd's key-value store as a sequential specification, for the keys of one history: the state is
 * every key with its value, create and mod revisions, version and lease, plus the store's revision.
 * Every request that changes something (a put; a delete of a key that exists; a transaction whose
 * chosen branch does either; a revocation of a lease keys are attached to) advances the revision by
 * exactly one, and all of its changes carry that revision, as in etcd's MVCC store. Requests that
 * change nothing (reads, deletes of absent keys, transactions whose branch only reads, revocations
 * of leases without keys) leave the revision where it is.
 *
 * <p>Mutable; {@link #copy()} for a snapshot.
 */
final class KvModel {
  private final TreeMap<String, Kv> keys;
  private long revision;

  KvModel(long revision) {
    this(new TreeMap<>(), revision);
  }

  private KvModel(TreeMap<String, Kv> keys, long revision) {
    this.keys = keys;
    this.revision = revision;
  }

  KvModel copy() {
    return new KvModel(new TreeMap<>(keys), revision);
  }

  long revision() {
    return revision;
  }

  Kv get(String key) {
    return keys.get(key);
  }

  /** The keys, read-only (for a memo of states searched). */
  NavigableMap<String, Kv> keys() {
    return java.util.Collections.unmodifiableNavigableMap(keys);
  }

  /**
   * What etcd would answer to {@code request} in this state, and what it would change (key to its
   * new value, null for deleted), applying nothing.
   */
  Outcome evaluate(Request request) {
    Overlay overlay = new Overlay();
    Result result = evaluate(request, overlay, revision + 1);
    return new Outcome(result, overlay.changes);
  }

  /** Applies an outcome that changes something: the revision advances by one. */
  void commit(Outcome outcome) {
    if (!outcome.writes()) {
      throw new IllegalArgumentException("nothing to commit");
    }
    revision++;
    outcome.changes.forEach(
        (k, v) -> {
          if (v == null) {
            keys.remove(k);
          } else {
            keys.put(k, v);
          }
        });
  }

  /** An answer, and the keys it changes (in the order changed; null: deleted). */
  record Outcome(Result result, Map<String, Kv> changes) {
    boolean writes() {
      return !changes.isEmpty();
    }
  }

  /** The state as a transaction sees it while it runs: the store plus its own changes so far. */
  private final class Overlay {
    final Map<String, Kv> changes = new LinkedHashMap<>();

    Kv get(String key) {
      return changes.containsKey(key) ? changes.get(key) : keys.get(key);
    }

    List<Kv> range(String from, String to) {
      TreeMap<String, Kv> view = new TreeMap<>(keys.subMap(from, true, to, false));
      changes.forEach(
          (k, v) -> {
            if (k.compareTo(from) >= 0 && k.compareTo(to) < 0) {
              if (v == null) {
                view.remove(k);
              } else {
                view.put(k, v);
              }
            }
          });
      return new ArrayList<>(view.values());
    }
  }

  private Result evaluate(Request request, Overlay overlay, long next) {
    if (request instanceof Request.Range r) {
      if (r.end() == null) {
        Kv kv = overlay.get(r.key());
        return new Result.Range(kv == null ? List.of() : List.of(kv));
      }
      return new Result.Range(overlay.range(r.key(), r.end()));
    }
    if (request instanceof Request.Put p) {
      Kv before = overlay.get(p.key());
      Kv after =
          new Kv(
              p.key(),
              p.value(),
              before == null ? next : before.createRevision(),
              next,
              before == null ? 1 : before.version() + 1,
              p.lease());
      overlay.changes.put(p.key(), after);
      return new Result.Put(p.prevKv() ? before : null);
    }
    if (request instanceof Request.Delete d) {
      Kv before = overlay.get(d.key());
      if (before == null) {
        return new Result.Delete(0, List.of());
      }
      overlay.changes.put(d.key(), null);
      return new Result.Delete(1, d.prevKv() ? List.of(before) : List.of());
    }
    if (request instanceof Request.Txn t) {
      boolean holds =
          t.compares().stream()
              .allMatch(
                  c -> {
                    Kv kv = overlay.get(c.key());
                    return (kv == null ? 0 : kv.modRevision()) == c.modRevision();
                  });
      List<Result> results = new ArrayList<>();
      for (Request r : holds ? t.onSuccess() : t.onFailure()) {
        results.add(evaluate(r, overlay, next));
      }
      return new Result.Txn(holds, results);
    }
    if (request instanceof Request.Revoke v) {
      for (Kv kv : keys.values()) {
        Kv now = overlay.get(kv.key());
        if (now != null && now.lease() == v.lease()) {
          overlay.changes.put(kv.key(), null);
        }
      }
      return new Result.Done();
    }
    // grants and compactions change no key
    return new Result.Done();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KvModel m && m.revision == revision && m.keys.equals(keys);
  }

  @Override
  public int hashCode() {
    return Objects.hash(revision, keys);
  }
}
