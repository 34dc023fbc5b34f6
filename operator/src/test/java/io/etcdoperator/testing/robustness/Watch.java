package io.etcdoperator.testing.robustness;

import java.util.List;

/** What the workload's watchers recorded, one record per thing that happened to a watch stream. */
public final class Watch {
  private Watch() {}

  /** What a record says. */
  public enum Kind {
    /** The watch was asked for, from {@code startRevision}. */
    REQUESTED,
    /** etcd said the watch exists (header revision: the member's revision then). */
    CREATED,
    /** A response with events. */
    EVENTS,
    /** A progress notification: every event up to {@code revision} has been sent. */
    PROGRESS,
    /** etcd cancelled the watch; {@code compactRevision} is set when it was compacted away. */
    CANCELED,
    /** The stream broke (an error from gRPC); the watcher opens a new one. */
    BROKEN,
    /** The workload closed the stream at the end of the run. */
    CLOSED
  }

  /** A change to one key as a watch delivers it; a deletion carries the key and its revision. */
  public record Event(boolean put, Kv kv, Kv prev) {
    @Override
    public String toString() {
      return (put ? "PUT " + kv : "DELETE " + kv.key() + "@" + kv.modRevision())
          + (prev == null ? "" : " prev " + prev);
    }
  }

  /**
   * One record of watcher {@code watcher}'s stream {@code stream} (a watcher opens a new stream
   * after each break).
   *
   * @param watcher the watcher
   * @param stream the stream's number for this watcher, from 0
   * @param at when it was recorded
   * @param kind what happened
   * @param revision the response's header revision (0 for REQUESTED, BROKEN, CLOSED)
   * @param startRevision for REQUESTED: the revision asked to start from
   * @param prevKv for REQUESTED: whether previous values were asked for
   * @param compactRevision for CANCELED: the revision compacted away, else 0
   * @param events for EVENTS: the events, in the order delivered
   * @param member the answering member's ID, when there was an answer
   * @param error for BROKEN and CANCELED: why
   */
  public record Record(
      int watcher,
      int stream,
      long at,
      Kind kind,
      long revision,
      long startRevision,
      boolean prevKv,
      long compactRevision,
      List<Event> events,
      long member,
      String error) {
    public Record {
      events = List.copyOf(events);
    }

    public String describe() {
      return String.format(
          java.util.Locale.ROOT,
          "watcher %d stream %d at %.3f s: %s%s",
          watcher,
          stream,
          at / 1e9,
          kind,
          switch (kind) {
            case REQUESTED -> " from " + startRevision + (prevKv ? " with prev_kv" : "");
            case CREATED, PROGRESS -> " rev " + revision;
            case EVENTS -> " rev " + revision + " " + events;
            case CANCELED -> " compact " + compactRevision + " " + error;
            case BROKEN -> " " + error;
            case CLOSED -> "";
          });
    }
  }
}
