package io.etcdoperator.testing.robustness;

import java.util.List;
import java.util.Map;

/**
 * Everything a robustness run recorded: every client operation, every watch record, and what was
 * done to the cluster meanwhile (actions and faults, as spans of time), on one clock.
 *
 * @param prefix every key of the run starts with it; nothing else writes under it
 * @param baseRevision the revision of a linearizable read of the prefix (found empty) made before
 *     the first operation: the store's state the history starts from
 * @param ops the operations, in the order they were started
 * @param watches the watch records, in the order they were recorded per watcher
 * @param spans what was done to the cluster, and when
 * @param about free-form facts of the run (seed, action, faults, etcd version), for reports
 */
public record History(
    String prefix,
    long baseRevision,
    List<Op> ops,
    List<Watch.Record> watches,
    List<Span> spans,
    Map<String, String> about) {
  public History {
    ops = List.copyOf(ops);
    watches = List.copyOf(watches);
    spans = List.copyOf(spans);
    about = Map.copyOf(about);
  }

  /** Something done to the cluster from {@code start} to {@code end} (-1: to the end). */
  public record Span(String label, long start, long end) {
    boolean overlaps(long from, long to) {
      return start <= to && (end < 0 || end >= from);
    }
  }

  /** The spans (actions, faults) in progress at some time between {@code from} and {@code to}. */
  public List<String> inProgress(long from, long to) {
    return spans.stream().filter(s -> s.overlaps(from, to)).map(Span::label).toList();
  }
}
