package io.etcdoperator.testing.robustness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Histories written by hand, for the checker's own tests: each call records one operation or watch
 * record, with times in milliseconds (start, end) and the revision etcd answered with.
 */
final class Histories {
  static final String P = "/r/";
  private final long base;
  private final List<Op> ops = new ArrayList<>();
  private final List<Watch.Record> watches = new ArrayList<>();
  private final List<History.Span> spans = new ArrayList<>();
  private String versions = "3.5.30";

  Histories(long base) {
    this.base = base;
  }

  static Kv kv(String key, String value, long create, long mod, long version) {
    return new Kv(P + key, value, create, mod, version, 0);
  }

  private Op add(int client, long start, long end, Request request, Result result, long revision) {
    Op op =
        new Op(
            ops.size(),
            client,
            start * 1_000_000,
            end * 1_000_000,
            request,
            result,
            result == null ? 0 : revision,
            result == null ? 0 : 1,
            result == null ? "DEADLINE_EXCEEDED" : null);
    ops.add(op);
    return op;
  }

  Histories put(int client, long start, long end, String key, String value, long revision) {
    add(
        client,
        start,
        end,
        new Request.Put(P + key, value, 0, false),
        new Result.Put(null),
        revision);
    return this;
  }

  /** A put whose answer never came. */
  Histories putFailed(int client, long start, long end, String key, String value) {
    add(client, start, end, new Request.Put(P + key, value, 0, false), null, 0);
    return this;
  }

  Histories putLease(
      int client, long start, long end, String key, String value, long lease, long revision) {
    add(
        client,
        start,
        end,
        new Request.Put(P + key, value, lease, false),
        new Result.Put(null),
        revision);
    return this;
  }

  Histories revoke(int client, long start, long end, long lease, long revision) {
    add(client, start, end, new Request.Revoke(lease), new Result.Done(), revision);
    return this;
  }

  Histories revokeFailed(int client, long start, long end, long lease) {
    add(client, start, end, new Request.Revoke(lease), null, 0);
    return this;
  }

  Histories get(int client, long start, long end, String key, Kv found, long revision) {
    add(
        client,
        start,
        end,
        new Request.Range(P + key, null, false),
        new Result.Range(found == null ? List.of() : List.of(found)),
        revision);
    return this;
  }

  Histories getSerializable(
      int client, long start, long end, String key, Kv found, long revision, long member) {
    Op op =
        new Op(
            ops.size(),
            client,
            start * 1_000_000,
            end * 1_000_000,
            new Request.Range(P + key, null, true),
            new Result.Range(found == null ? List.of() : List.of(found)),
            revision,
            member,
            null);
    ops.add(op);
    return this;
  }

  Histories range(int client, long start, long end, List<Kv> found, long revision) {
    add(client, start, end, new Request.Range(P, "/r0", false), new Result.Range(found), revision);
    return this;
  }

  Histories delete(int client, long start, long end, String key, long deleted, long revision) {
    add(
        client,
        start,
        end,
        new Request.Delete(P + key, false),
        new Result.Delete(deleted, List.of()),
        revision);
    return this;
  }

  Histories deleteFailed(int client, long start, long end, String key) {
    add(client, start, end, new Request.Delete(P + key, false), null, 0);
    return this;
  }

  /** Kubernetes' update: put if the key's mod revision is still {@code expected}, else read it. */
  Histories casPut(
      int client,
      long start,
      long end,
      String key,
      long expected,
      String value,
      Result.Txn result,
      long revision) {
    add(
        client,
        start,
        end,
        new Request.Txn(
            List.of(new Request.Compare(P + key, expected)),
            List.of(new Request.Put(P + key, value, 0, false)),
            List.of(new Request.Range(P + key, null, false))),
        result,
        revision);
    return this;
  }

  static Result.Txn succeeded() {
    return new Result.Txn(true, List.of(new Result.Put(null)));
  }

  static Result.Txn failedCompare(Kv current) {
    return new Result.Txn(
        false, List.of(new Result.Range(current == null ? List.of() : List.of(current))));
  }

  Histories watch(
      int watcher,
      int stream,
      long at,
      Watch.Kind kind,
      long revision,
      long start,
      List<Watch.Event> events) {
    watches.add(
        new Watch.Record(
            watcher, stream, at * 1_000_000, kind, revision, start, false, 0, events, 1, null));
    return this;
  }

  Histories watchRequested(int watcher, int stream, long at, long from) {
    return watch(watcher, stream, at, Watch.Kind.REQUESTED, 0, from, List.of());
  }

  Histories watchEvents(int watcher, int stream, long at, long revision, Watch.Event... events) {
    return watch(watcher, stream, at, Watch.Kind.EVENTS, revision, 0, List.of(events));
  }

  Histories watchProgress(int watcher, int stream, long at, long revision) {
    return watch(watcher, stream, at, Watch.Kind.PROGRESS, revision, 0, List.of());
  }

  Histories watchRequestedWithPrevKv(int watcher, int stream, long at, long from) {
    watches.add(
        new Watch.Record(
            watcher,
            stream,
            at * 1_000_000,
            Watch.Kind.REQUESTED,
            0,
            from,
            true,
            0,
            List.of(),
            1,
            null));
    return this;
  }

  Histories watchCompacted(int watcher, int stream, long at, long compactRevision) {
    watches.add(
        new Watch.Record(
            watcher,
            stream,
            at * 1_000_000,
            Watch.Kind.CANCELED,
            0,
            0,
            false,
            compactRevision,
            List.of(),
            1,
            "mvcc: required revision has been compacted"));
    return this;
  }

  Histories compact(int client, long start, long end, long revision, long answeredAt) {
    add(client, start, end, new Request.Compact(revision), new Result.Done(), answeredAt);
    return this;
  }

  Histories watchBroken(int watcher, int stream, long at) {
    return watch(watcher, stream, at, Watch.Kind.BROKEN, 0, 0, List.of());
  }

  static Watch.Event putEvent(Kv kv) {
    return new Watch.Event(true, kv, null);
  }

  static Watch.Event deleteEvent(String key, long revision) {
    return new Watch.Event(false, new Kv(P + key, "", 0, revision, 0, 0), null);
  }

  Histories span(String label, long start, long end) {
    spans.add(new History.Span(label, start * 1_000_000, end * 1_000_000));
    return this;
  }

  /** The etcd versions the history is said to come from. */
  Histories etcd(String versions) {
    this.versions = versions;
    return this;
  }

  History build() {
    return new History(P, base, ops, watches, spans, Map.of("etcd versions", versions));
  }

  Checker.Report check() {
    return new Checker().check(build());
  }
}
