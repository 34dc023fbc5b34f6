package io.etcdoperator.operator.act;

import io.etcdoperator.operator.model.Durations;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pods and claims this operator deleted, remembered until its informer cache shows them
 * deleted, so that no reconcile decides on a view that lacks the operator's own last act.
 *
 * <p>The API server acknowledges a delete at once; the cache the next reconcile reads learns of it
 * when the watch delivers the change. In between, the object looks as it did before. Seen in CI,
 * under load: a roll deleted a follower's pod, and the reconcile 250 ms later still saw that pod
 * running, not terminating, its member answering (etcd had not had its SIGTERM yet), and deleted it
 * again. Against a pod already terminating that costs a call; after a forced delete the pod's name
 * may already be taken by the StatefulSet's new pod, and a second forced delete by name would kill
 * that one.
 *
 * <p>So each object deleted is remembered by its UID, with how it was deleted, and the cached
 * objects handed to the observer are corrected:
 *
 * <ul>
 *   <li>deleted gracefully: a cached copy of that UID without a deletion timestamp is handed on
 *       with the time of the delete as its deletion timestamp (it is terminating, as the server
 *       says), so the rules wait for it to go;
 *   <li>deleted forcibly: the object is gone on the server; a cached copy of that UID is left out,
 *       terminating or not.
 * </ul>
 *
 * An entry is forgotten when the cache has caught up: no object of that name, another UID under the
 * name (the StatefulSet's new pod), or, for a graceful delete, that UID terminating. It is
 * forgotten after {@link #FORGET_AFTER} in any case, with a warning, so that a cache that never
 * catches up (none should) delays the cluster a minute rather than holding it for good. Nothing is
 * remembered across restarts: a started operator lists afresh, its cache holds what the server
 * holds. Each cluster has its own, kept with the rest of what the operator holds for it.
 */
public final class Deletions {
  private static final Logger LOG = LoggerFactory.getLogger(Deletions.class);

  /** How long a deletion is remembered when the cache never shows it. */
  static final Duration FORGET_AFTER = Duration.ofMinutes(1);

  /** How an object was deleted. */
  public enum How {
    /** With its grace period: the object stays, terminating, until its finalizers are done. */
    GRACEFUL,
    /** With a grace period of 0: the object is gone at once. */
    FORCED
  }

  private record Deleted(String uid, How how, Instant at) {}

  /** The cluster's "namespace/name", for the log. */
  private final String cluster;

  /** By "Kind/name". */
  private final Map<String, Deleted> deleted = new ConcurrentHashMap<>();

  public Deletions(String cluster) {
    this.cluster = cluster;
  }

  /**
   * Remembers that {@code object}, as the cache held it when the operator deleted it, was deleted;
   * an object without a UID (not from a cache) is not remembered.
   */
  public void deleted(HasMetadata object, How how, Instant at) {
    String uid = object.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    deleted.put(
        key(HasMetadata.getKind(object.getClass()), object.getMetadata().getName()),
        new Deleted(uid, how, at));
  }

  /** The cluster's cached pods, corrected for the pods it deleted. */
  public List<Pod> pods(Collection<Pod> cached, Instant now) {
    return correct(
        "Pod",
        cached,
        now,
        (p, at) ->
            new PodBuilder(p)
                .editMetadata()
                .withDeletionTimestamp(timestamp(at))
                .endMetadata()
                .build());
  }

  /** The cluster's cached claims, corrected for the claims it deleted. */
  public List<PersistentVolumeClaim> claims(Collection<PersistentVolumeClaim> cached, Instant now) {
    return correct(
        "PersistentVolumeClaim",
        cached,
        now,
        (c, at) ->
            new PersistentVolumeClaimBuilder(c)
                .editMetadata()
                .withDeletionTimestamp(timestamp(at))
                .endMetadata()
                .build());
  }

  /** Whether anything is remembered (for tests). */
  boolean remembers() {
    return !deleted.isEmpty();
  }

  private <T extends HasMetadata> List<T> correct(
      String kind, Collection<T> cached, Instant now, BiFunction<T, Instant, T> terminating) {
    if (deleted.isEmpty()) {
      return List.copyOf(cached);
    }
    List<T> out = new ArrayList<>(cached.size());
    for (T object : cached) {
      String key = key(kind, object.getMetadata().getName());
      Deleted d = deleted.get(key);
      if (d == null) {
        out.add(object);
      } else if (!Objects.equals(d.uid(), object.getMetadata().getUid())) {
        deleted.remove(key, d);
        out.add(object);
      } else if (!now.isBefore(d.at().plus(FORGET_AFTER))) {
        deleted.remove(key, d);
        LOG.warn(
            "{} {} of {}, deleted {} ago, is still in the cache as it was: taken as it is",
            kind,
            object.getMetadata().getName(),
            cluster,
            Durations.format(Duration.between(d.at(), now).truncatedTo(ChronoUnit.SECONDS)));
        out.add(object);
      } else if (d.how() == How.FORCED) {
        // gone on the server: left out until the cache drops it
      } else if (object.getMetadata().getDeletionTimestamp() != null) {
        deleted.remove(key, d);
        out.add(object);
      } else {
        out.add(terminating.apply(object, d.at()));
      }
    }
    // What the cache no longer holds, it has seen deleted.
    Set<String> held = new HashSet<>();
    cached.forEach(o -> held.add(key(kind, o.getMetadata().getName())));
    deleted.keySet().removeIf(k -> k.startsWith(kind + "/") && !held.contains(k));
    return out;
  }

  private static String key(String kind, String name) {
    return kind + "/" + name;
  }

  private static String timestamp(Instant at) {
    return at.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
