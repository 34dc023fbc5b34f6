package io.etcdoperator.testing.robustness;

import io.etcdoperator.testing.robustness.Linearizer.Change;
import io.etcdoperator.testing.robustness.Linearizer.Step;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks what the watchers received against the linearization, for etcd's watch guarantees as its
 * API documentation states them. Every key the workload writes is under the prefix its watchers
 * watch, so every revision of the linearization has events in every watch that covers it, and a
 * watch from revision {@code s} must deliver exactly the revisions {@code s, s+1, s+2, ...}:
 *
 * <ul>
 *   <li><b>ordered</b>: revisions never decrease along a watcher's streams;
 *   <li><b>unique</b>: no event (key, revision) is delivered twice to one watcher;
 *   <li><b>atomic</b>: the events of one revision come in one response, all of them;
 *   <li><b>reliable</b>: no revision is skipped between a stream's start and its last event, and a
 *       progress notification at {@code R} comes only once every event up to {@code R} was sent;
 *   <li><b>resumable</b>: a watcher's next stream starts right after the last revision it received
 *       (or, once etcd cancelled a stream for a compaction, at the compaction revision, for every
 *       later stream: what is compacted away never comes back);
 *   <li><b>matches writes</b>: each event is the linearization's change of its key at its revision:
 *       a put with the value, create and mod revisions, version and lease the key then had; a
 *       deletion of a key that was deleted then; the previous value when one was asked for (etcd
 *       reads it at the revision before the event's, and leaves it out when that revision is
 *       compacted away).
 * </ul>
 *
 * Events past the linearization's last revision cannot be checked and are counted apart.
 */
final class WatchChecker {
  static final String ORDERED = "watch ordered";
  static final String UNIQUE = "watch unique";
  static final String ATOMIC = "watch atomic";
  static final String RELIABLE = "watch reliable";
  static final String RESUMABLE = "watch resumable";
  static final String MATCHES = "watch events match writes";
  static final List<String> PROPERTIES =
      List.of(ORDERED, UNIQUE, ATOMIC, RELIABLE, RESUMABLE, MATCHES);

  private final long base;
  private final long last;
  private final Map<Long, Step> steps = new HashMap<>();
  private final Map<String, List<Violation>> found = new LinkedHashMap<>();
  private final List<Violation> known = new ArrayList<>();
  private final boolean earlyProgressIsKnown;
  private long compacted; // the highest compaction revision the history shows
  private int events;
  private int beyond;

  /**
   * @param earlyProgressIsKnown whether an etcd version with issue etcd-io/etcd#15220 (a requested
   *     progress notification sent before events it covers; fixed in 3.4.25 and 3.5.8) ran: such a
   *     notification is then reported as etcd's own known issue, not as a violation
   */
  WatchChecker(long base, List<Step> linearization, boolean earlyProgressIsKnown) {
    this.base = base;
    this.earlyProgressIsKnown = earlyProgressIsKnown;
    long max = base;
    for (Step s : linearization) {
      steps.put(s.revision(), s);
      max = Math.max(max, s.revision());
    }
    this.last = max;
    PROPERTIES.forEach(p -> found.put(p, new ArrayList<>()));
  }

  /** Violations per property (every property present, most empty). */
  /**
   * The history's compactions: the workload's answered ones and those watches were cancelled for.
   */
  WatchChecker compactions(List<Op> ops, List<Watch.Record> records) {
    for (Op op : ops) {
      if (!op.failed() && op.request() instanceof Request.Compact c) {
        compacted = Math.max(compacted, c.revision());
      }
    }
    for (Watch.Record r : records) {
      compacted = Math.max(compacted, r.compactRevision());
    }
    return this;
  }

  Map<String, List<Violation>> check(List<Watch.Record> records) {
    Map<Integer, List<Watch.Record>> byWatcher = new TreeMap<>();
    for (Watch.Record r : records) {
      byWatcher.computeIfAbsent(r.watcher(), k -> new ArrayList<>()).add(r);
    }
    byWatcher.values().forEach(this::checkWatcher);
    return found;
  }

  /** What etcd's own known issues explain (see the constructor). */
  List<Violation> known() {
    return known;
  }

  int events() {
    return events;
  }

  int beyond() {
    return beyond;
  }

  private void checkWatcher(List<Watch.Record> records) {
    Set<String> delivered = new HashSet<>();
    long lastDelivered = 0; // the highest revision this watcher received, over all its streams
    long lastEvent = 0; // the highest revision of an event it received
    long compactedTo = 0; // set when etcd cancelled the previous stream for a compaction
    Watch.Record previousEnd = null;
    long next = 0; // the revision the current stream must deliver next
    boolean prevKv = false;
    Map<Long, Watch.Record> revisionSeenIn = new HashMap<>();
    for (Watch.Record r : records) {
      switch (r.kind()) {
        case REQUESTED -> {
          prevKv = r.prevKv();
          long start = r.startRevision();
          if (lastDelivered > 0) {
            long expected =
                compactedTo > 0 ? Math.max(compactedTo, lastDelivered + 1) : lastDelivered + 1;
            if (start > expected) {
              add(
                  RESUMABLE,
                  "a stream reopened from revision "
                      + start
                      + " after the watcher had received up to "
                      + lastDelivered
                      + (compactedTo > 0 ? " (compacted to " + compactedTo + ")" : "")
                      + ": revisions "
                      + expected
                      + ".."
                      + (start - 1)
                      + " are never delivered",
                  previousEnd,
                  r);
            }
          }
          next = Math.max(start, base + 1);
        }
        case EVENTS -> {
          long responseRevision = -1;
          Map<Long, List<Watch.Event>> byRevision = new TreeMap<>();
          for (Watch.Event e : r.events()) {
            events++;
            long rev = e.kv().modRevision();
            if (rev < responseRevision) {
              add(ORDERED, "an event of revision " + rev + " after one of " + responseRevision, r);
            }
            responseRevision = Math.max(responseRevision, rev);
            if (!delivered.add(e.kv().key() + "@" + rev)) {
              add(UNIQUE, "event " + e + " delivered a second time", r);
              continue;
            }
            byRevision.computeIfAbsent(rev, k -> new ArrayList<>()).add(e);
          }
          for (Map.Entry<Long, List<Watch.Event>> e : byRevision.entrySet()) {
            long rev = e.getKey();
            Watch.Record earlier = revisionSeenIn.putIfAbsent(rev, r);
            if (earlier != null && earlier != r) {
              add(ATOMIC, "the events of revision " + rev + " came in two responses", earlier, r);
            }
            if (rev < next) {
              if (earlier == null && rev <= lastEvent) {
                add(ORDERED, "revision " + rev + " delivered after revision " + lastEvent, r);
              } else if (earlier == null) {
                add(
                    RELIABLE,
                    "an event of revision "
                        + rev
                        + " after a progress notification at "
                        + lastDelivered,
                    r);
              }
            } else if (rev > next && rev <= last + 1) {
              add(
                  RELIABLE,
                  "revisions "
                      + next
                      + ".."
                      + (rev - 1)
                      + " were skipped: the stream went on at revision "
                      + rev,
                  r);
            }
            lastDelivered = Math.max(lastDelivered, rev);
            lastEvent = Math.max(lastEvent, rev);
            next = Math.max(next, rev + 1);
            if (rev > last) {
              beyond += e.getValue().size();
              continue;
            }
            matches(rev, e.getValue(), prevKv, r);
          }
        }
        case PROGRESS -> {
          long progress = r.revision();
          if (progress >= next && progress <= last) {
            String message =
                "a progress notification at revision "
                    + progress
                    + " while revisions from "
                    + next
                    + " had not been delivered";
            if (earlyProgressIsKnown) {
              known.add(
                  new Violation(
                      RELIABLE,
                      message + " (etcd-io/etcd#15220, fixed in 3.4.25 and 3.5.8)",
                      List.of(),
                      List.of(r)));
            } else {
              add(RELIABLE, message, r);
            }
            // what it claimed is not taken as delivered: the events still must come
            continue;
          }
          lastDelivered = Math.max(lastDelivered, progress);
          next = Math.max(next, progress + 1);
        }
        case CANCELED -> {
          // a floor for every later stream: what is compacted away never comes back
          compactedTo = Math.max(compactedTo, r.compactRevision());
          previousEnd = r;
        }
        case BROKEN, CLOSED -> previousEnd = r;
        case CREATED -> {}
      }
    }
  }

  private void matches(long rev, List<Watch.Event> got, boolean prevKv, Watch.Record r) {
    Step step = steps.get(rev);
    if (step == null) {
      add(MATCHES, "events " + got + " at revision " + rev + ", which no write made", r);
      return;
    }
    Set<String> keys = new HashSet<>();
    for (Watch.Event e : got) {
      String key = e.kv().key();
      keys.add(key);
      Change change = step.changes().get(key);
      if (change == null) {
        add(
            MATCHES,
            "event " + e + ", but revision " + rev + " wrote " + step.changes().keySet(),
            r,
            step.op());
        continue;
      }
      boolean ok =
          e.put()
              ? Objects.equals(e.kv(), change.after())
              : change.after() == null && e.kv().modRevision() == rev;
      if (ok && prevKv) {
        // etcd reads the previous value at rev - 1, and leaves it out when that is compacted away
        ok = Objects.equals(e.prev(), change.before()) || e.prev() == null && rev - 1 < compacted;
      }
      if (!ok) {
        add(
            MATCHES,
            "event "
                + e
                + ", but revision "
                + rev
                + " changed "
                + key
                + " from "
                + change.before()
                + " to "
                + (change.after() == null ? "deleted" : change.after()),
            r,
            step.op());
      }
    }
    if (!keys.equals(step.changes().keySet())) {
      Set<String> missing = new HashSet<>(step.changes().keySet());
      missing.removeAll(keys);
      add(
          ATOMIC,
          "revision " + rev + " also changed " + missing + ", not in its events",
          r,
          step.op());
    }
  }

  private void add(String property, String message, Watch.Record... records) {
    List<Watch.Record> rs = new ArrayList<>();
    for (Watch.Record x : records) {
      if (x != null) {
        rs.add(x);
      }
    }
    found.get(property).add(new Violation(property, message, List.of(), rs));
  }

  private void add(String property, String message, Watch.Record r, Op op) {
    found.get(property).add(new Violation(property, message, List.of(op), List.of(r)));
  }
}
