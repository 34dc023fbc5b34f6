package io.etcdoperator.e2e;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every status of a cluster's {@code Available} condition the operator wrote, in order, from a
 * watch: to assert on states that do not last (a reason reported for a second) and on states that
 * must never appear (quorum lost while a member is replaced).
 */
final class StatusLog implements AutoCloseable {
  /** One {@code Available} condition as written. */
  record Entry(Instant at, String status, String reason, String message) {
    @Override
    public String toString() {
      return at + " " + status + "/" + reason;
    }
  }

  private final List<Entry> entries = new ArrayList<>();
  private final Watch watch;

  StatusLog(E2E e2e, String cluster) {
    this.watch =
        e2e.cluster(cluster)
            .watch(
                new Watcher<EtcdCluster>() {
                  @Override
                  public void eventReceived(Action action, EtcdCluster resource) {
                    if (resource.getStatus() == null) {
                      return;
                    }
                    Optional<Condition> a = E2E.condition(resource.getStatus(), "Available");
                    a.ifPresent(c -> add(c));
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
  }

  private synchronized void add(Condition c) {
    Entry last = entries.isEmpty() ? null : entries.get(entries.size() - 1);
    if (last == null
        || !last.status().equals(c.getStatus())
        || !last.reason().equals(c.getReason())
        || !last.message().equals(String.valueOf(c.getMessage()))) {
      entries.add(
          new Entry(Instant.now(), c.getStatus(), c.getReason(), String.valueOf(c.getMessage())));
    }
  }

  /** A position in the log, to look at what came after it. */
  synchronized int mark() {
    return entries.size();
  }

  synchronized List<Entry> since(int mark) {
    return List.copyOf(entries.subList(Math.min(mark, entries.size()), entries.size()));
  }

  /** The first entry since the mark with this reason. */
  synchronized Optional<Entry> first(int mark, String reason) {
    return since(mark).stream().filter(e -> e.reason().equals(reason)).findFirst();
  }

  @Override
  public void close() {
    watch.close();
  }
}
