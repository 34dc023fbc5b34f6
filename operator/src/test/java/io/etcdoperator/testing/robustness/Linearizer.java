package io.etcdoperator.testing.robustness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides whether a history of etcd key-value operations is linearizable against {@link KvModel},
 * and if it is, gives the linearization: which operation wrote at each revision.
 *
 * <h2>Why revisions make this tractable</h2>
 *
 * A linearization orders every operation in a way that respects real time (an operation that
 * returned before another was sent comes first) and that a sequential etcd would answer exactly as
 * the real one did. In etcd the state after the writes of revisions {@code 1..r} is fully described
 * by those writes, and every answer carries its header revision: a write's is the revision it
 * created, a read's (and a no-op's) is the revision of the state it saw. So a linearization of the
 * answered operations is almost entirely given: write {@code W_r} at position {@code r}, every read
 * of revision {@code r} after {@code W_r} and before {@code W_(r+1)} (reads of one revision may be
 * ordered freely among themselves: they see the same state). Wing and Gong's search over orders
 * (1993) reduces to a search over the few things the answers do not say: which of the operations
 * that failed (a deadline, a lost connection) took effect, and at which revision. This is the
 * P-compositionality of Horn and Kroening (2015) in etcd's terms: the revisions split the history
 * into steps, and only the failed writes cross them.
 *
 * <h2>The algorithm</h2>
 *
 * <ol>
 *   <li><b>Classify.</b> Answered linearizable operations are writes (a put; a delete that deleted;
 *       a transaction whose branch put or deleted), reads (ranges, deletes of nothing, transactions
 *       that only read) or <em>either</em> (a revocation: its answer does not say whether keys were
 *       attached). Serializable reads, grants and compactions are left to other checks. Failed
 *       operations that could write are <em>indeterminate</em>: each may take effect at any point
 *       after it was sent (a request that timed out can still be applied later) or never; failed
 *       reads are dropped.
 *   <li><b>Real time.</b> With {@code M(t)} the highest revision of the answered operations that
 *       returned before {@code t}, an operation sent at {@code t} must be at a revision above
 *       {@code M(t)} if it writes and at or above it if it reads. One sweep over the operations
 *       sorted by return time checks every answered operation against every other (a read that
 *       misses a write that had returned, a revision going backwards). An indeterminate write sent
 *       at {@code t} may only take a revision above {@code M(t)}.
 *   <li><b>Pin.</b> Each answered write is pinned at its revision; two at one revision is a
 *       violation. Every value is unique, so any value an answer shows (a range, a previous value),
 *       with its mod revision, names the operation that wrote it and where: an answered writer must
 *       be at that revision, an indeterminate one is pinned there (it was applied, at that point),
 *       and a value nobody wrote is a violation.
 *   <li><b>Count.</b> The revisions from the base revision to the highest one seen that no pinned
 *       write explains are <em>gaps</em>: each needs one indeterminate write (or a revocation
 *       answered at it). More gaps than candidates is a violation at once: something wrote that the
 *       history does not hold (a second cluster, a client we do not know).
 *   <li><b>Search.</b> Revision by revision from the base, in one {@link KvModel}: a pinned write
 *       is applied and its answer compared with the model's; at a gap each candidate that would
 *       change the state there is tried in turn (those a watch saw at that revision first, then by
 *       the time they were sent), as a choice point that keeps a copy of the state. After the write
 *       of revision {@code r}, every read answered at {@code r} is compared with the model. A
 *       mismatch goes back to the latest choice point with a candidate left. Following Lowe (2017),
 *       a choice point that ran out is remembered as (revision, candidates used, state): reaching
 *       the same again fails at once. The search stops after a budget of model steps and then says
 *       it could not decide, never that the history is fine.
 * </ol>
 *
 * The result is {@link Verdict#LINEARIZABLE} with the write of every revision, {@link
 * Verdict#VIOLATED} with the violation (the smallest set of operations found that cannot be
 * ordered: for a failed search, those at the furthest revision it reached), or {@link
 * Verdict#UNDECIDED}.
 */
public final class Linearizer {
  static final String PROPERTY = "linearizability";
  private static final long DEFAULT_BUDGET = 20_000_000;

  private final long budget;

  public Linearizer() {
    this(DEFAULT_BUDGET);
  }

  Linearizer(long budget) {
    this.budget = budget;
  }

  /** The search's answer. */
  public enum Verdict {
    LINEARIZABLE,
    VIOLATED,
    UNDECIDED
  }

  /** One revision of the linearization: the operation that wrote it and what it changed. */
  public record Step(long revision, Op op, Map<String, Change> changes) {}

  /** A key before and after a write (null: absent). */
  public record Change(Kv before, Kv after) {}

  /**
   * The search's answer: the steps of revisions {@code base+1..} (when linearizable), the
   * indeterminate writes it applied and left out, what it found wrong, and how many model steps it
   * took.
   */
  public record Outcome(
      Verdict verdict,
      long baseRevision,
      List<Step> steps,
      int indeterminateApplied,
      int indeterminateLeftOut,
      List<Violation> violations,
      long modelSteps) {}

  private enum Role {
    WRITE,
    READ,
    EITHER
  }

  public Outcome check(History history) {
    return new Search(history).run();
  }

  private final class Search {
    private final History history;
    private final long base;
    private final List<Violation> violations = new ArrayList<>();
    private final Map<Op, Role> roles = new HashMap<>();
    private final TreeMap<Long, Op> pinned = new TreeMap<>();
    private final Map<Long, List<Op>> readsAt = new HashMap<>();
    private final Map<Long, List<Op>> eitherAt = new HashMap<>();
    private final List<Op> candidates = new ArrayList<>();
    private final Map<Op, Long> minRevision = new HashMap<>();
    private final Map<Long, List<Watch.Event>> watched = new HashMap<>();
    private long[] returnTimes = new long[0];
    private long[] maxRevisionBy = new long[0];
    private Op[] maxRevisionOp = new Op[0];
    private long steps;
    private long deepest = -1;
    private Violation deepestReason;

    Search(History history) {
      this.history = history;
      this.base = history.baseRevision();
    }

    Outcome run() {
      classify();
      realTime();
      pin();
      if (!violations.isEmpty()) {
        return outcome(Verdict.VIOLATED, List.of());
      }
      long last = highestRevision();
      long gaps = last - base - pinned.size();
      if (gaps > candidates.size() + eitherAt.values().stream().mapToLong(List::size).sum()) {
        violations.add(unexplained(last, gaps));
        return outcome(Verdict.VIOLATED, List.of());
      }
      for (Watch.Record r : history.watches()) {
        for (Watch.Event e : r.events()) {
          watched.computeIfAbsent(e.kv().modRevision(), k -> new ArrayList<>()).add(e);
        }
      }
      candidates.sort(Comparator.comparingLong(Op::start));
      return search(last);
    }

    private void classify() {
      List<Op> answered = new ArrayList<>();
      for (Op op : history.ops()) {
        if (op.request() instanceof Request.Grant || op.request() instanceof Request.Compact) {
          continue;
        }
        if (op.failed()) {
          if (op.request().canWrite()) {
            candidates.add(op);
          }
          continue;
        }
        if (op.serializable()) {
          continue;
        }
        Role role = role(op);
        roles.put(op, role);
        answered.add(op);
        switch (role) {
          case READ -> readsAt.computeIfAbsent(op.revision(), k -> new ArrayList<>()).add(op);
          case EITHER -> eitherAt.computeIfAbsent(op.revision(), k -> new ArrayList<>()).add(op);
          case WRITE -> {}
        }
      }
      answered.sort(Comparator.comparingLong(Op::end));
      returnTimes = new long[answered.size()];
      maxRevisionBy = new long[answered.size()];
      maxRevisionOp = new Op[answered.size()];
      long max = Long.MIN_VALUE;
      Op arg = null;
      for (int i = 0; i < answered.size(); i++) {
        Op op = answered.get(i);
        returnTimes[i] = op.end();
        if (op.revision() > max) {
          max = op.revision();
          arg = op;
        }
        maxRevisionBy[i] = max;
        maxRevisionOp[i] = arg;
      }
    }

    private Role role(Op op) {
      Request request = op.request();
      if (request instanceof Request.Put) {
        return Role.WRITE;
      }
      if (request instanceof Request.Delete) {
        return ((Result.Delete) op.result()).deleted() > 0 ? Role.WRITE : Role.READ;
      }
      if (request instanceof Request.Txn) {
        return writes((Result.Txn) op.result()) ? Role.WRITE : Role.READ;
      }
      return request instanceof Request.Revoke ? Role.EITHER : Role.READ;
    }

    private static boolean writes(Result.Txn txn) {
      return txn.results().stream()
          .anyMatch(
              r -> r instanceof Result.Put || r instanceof Result.Delete d && d.deleted() > 0);
    }

    /** The answered operation of highest revision that returned before {@code t}, or null. */
    private Op latestBefore(long t) {
      int i = Arrays.binarySearch(returnTimes, t);
      // the last index whose return time is strictly before t
      int idx = i >= 0 ? firstIndexOf(i, t) - 1 : -i - 2;
      return idx < 0 ? null : maxRevisionOp[idx];
    }

    private int firstIndexOf(int i, long t) {
      while (i > 0 && returnTimes[i - 1] == t) {
        i--;
      }
      return i;
    }

    private long floorRevision(long t) {
      Op op = latestBefore(t);
      return op == null ? base : Math.max(base, op.revision());
    }

    private void realTime() {
      for (Map.Entry<Op, Role> e : roles.entrySet()) {
        Op op = e.getKey();
        Op before = latestBefore(op.start());
        if (before == null) {
          if (op.revision() < base || e.getValue() == Role.WRITE && op.revision() == base) {
            violations.add(
                Violation.of(
                    PROPERTY,
                    "answered at revision "
                        + op.revision()
                        + ", not after the base revision "
                        + base
                        + " read before the run",
                    op));
          }
          continue;
        }
        boolean write = e.getValue() == Role.WRITE;
        if (write ? op.revision() <= before.revision() : op.revision() < before.revision()) {
          violations.add(
              Violation.of(
                  PROPERTY,
                  (write ? "a write" : "a read")
                      + " sent after another operation had returned at revision "
                      + before.revision()
                      + " was answered at revision "
                      + op.revision()
                      + (write ? ": it cannot come after it" : ": a stale read"),
                  before,
                  op));
        }
      }
      violations.sort(Comparator.comparingLong(v -> v.ops().get(v.ops().size() - 1).start()));
    }

    private void pin() {
      for (Map.Entry<Op, Role> e : roles.entrySet()) {
        if (e.getValue() == Role.WRITE) {
          pinAt(e.getKey().revision(), e.getKey(), null);
        }
      }
      Map<String, Op> writers = new HashMap<>();
      for (Op op : history.ops()) {
        for (String value : values(op.request())) {
          Op other = writers.put(Values.name(value), op);
          if (other != null) {
            throw new IllegalArgumentException(
                "the workload wrote one value twice: "
                    + other.describe()
                    + " and "
                    + op.describe());
          }
        }
      }
      for (Op op : history.ops()) {
        if (op.failed()) {
          continue;
        }
        for (Kv kv : kvs(op.result())) {
          Op writer = writers.get(Values.name(kv.value()));
          if (writer == null) {
            violations.add(
                Violation.of(
                    PROPERTY, "read " + kv + ", a value no operation of the history wrote", op));
          } else if (!writer.failed()) {
            if (writer.revision() != kv.modRevision() && roles.get(writer) == Role.WRITE) {
              violations.add(
                  Violation.of(
                      PROPERTY,
                      "read "
                          + kv
                          + ", written at revision "
                          + writer.revision()
                          + ": one value at two revisions",
                      writer,
                      op));
            }
          } else {
            pinAt(kv.modRevision(), writer, op);
          }
        }
      }
      for (Op op : candidates) {
        minRevision.put(op, floorRevision(op.start()) + 1);
      }
      for (Map.Entry<Long, Op> e : pinned.entrySet()) {
        Op op = e.getValue();
        if (op.failed() && e.getKey() < minRevision.get(op)) {
          Op before = latestBefore(op.start());
          violations.add(
              Violation.of(
                  PROPERTY,
                  "a value read at revision "
                      + e.getKey()
                      + " was written by an operation sent after another had returned at revision "
                      + (before == null ? base : before.revision())
                      + ": seen before it was made",
                  before == null ? op : before,
                  op));
        }
      }
      Set<Op> placed = new HashSet<>(pinned.values());
      candidates.removeIf(placed::contains);
    }

    private void pinAt(long revision, Op op, Op reader) {
      if (revision <= base) {
        violations.add(
            Violation.of(
                PROPERTY,
                "a write at revision " + revision + ", not after the base revision " + base,
                reader == null ? new Op[] {op} : new Op[] {op, reader}));
        return;
      }
      Op other = pinned.get(revision);
      if (other == null) {
        pinned.put(revision, op);
      } else if (other != op) {
        violations.add(
            Violation.of(
                PROPERTY,
                "two different writes at revision " + revision,
                reader == null ? new Op[] {other, op} : new Op[] {other, op, reader}));
      }
    }

    private long highestRevision() {
      long last = base;
      for (Op op : roles.keySet()) {
        last = Math.max(last, op.revision());
      }
      return pinned.isEmpty() ? last : Math.max(last, pinned.lastKey());
    }

    private Violation unexplained(long last, long gaps) {
      List<Long> missing = new ArrayList<>();
      for (long r = base + 1; r <= last && missing.size() < 10; r++) {
        if (!pinned.containsKey(r)) {
          missing.add(r);
        }
      }
      return Violation.of(
          PROPERTY,
          gaps
              + " revisions between "
              + base
              + " and "
              + last
              + " were written by no operation of the history (first: "
              + missing
              + "); only "
              + candidates.size()
              + " writes could have been applied unseen: something else writes");
    }

    // ---------------------------------------------------------------------------------------------
    // The search

    private final class ChoicePoint {
      final long revision;
      final KvModel state;
      final BitSet used;
      final List<Op> options;
      final int stepsBefore;
      int next;

      ChoicePoint(long revision, KvModel state, BitSet used, List<Op> options, int stepsBefore) {
        this.revision = revision;
        this.state = state;
        this.used = used;
        this.options = options;
        this.stepsBefore = stepsBefore;
      }
    }

    private record Memo(long revision, BitSet used, Map<String, Kv> keys) {}

    private Outcome search(long last) {
      Map<Op, Integer> index = new HashMap<>();
      for (int i = 0; i < candidates.size(); i++) {
        index.put(candidates.get(i), i);
      }
      KvModel state = new KvModel(base);
      Violation atBase = checkReads(base, state, null);
      if (atBase != null) {
        violations.add(atBase);
        return outcome(Verdict.VIOLATED, List.of());
      }
      BitSet used = new BitSet(candidates.size());
      List<Step> path = new ArrayList<>();
      List<ChoicePoint> stack = new ArrayList<>();
      Set<Memo> failed = new HashSet<>();
      long r = base + 1;
      while (r <= last) {
        if (steps > budget) {
          return outcome(Verdict.UNDECIDED, List.of());
        }
        Op pin = pinned.get(r);
        boolean advanced;
        if (pin != null) {
          advanced = tryWrite(r, pin, state, path);
        } else {
          List<Op> options = options(r, state, used);
          Memo memo = new Memo(r, (BitSet) used.clone(), new TreeMap<>(state.keys()));
          if (options.isEmpty() || failed.contains(memo)) {
            if (options.isEmpty()) {
              noteFailure(
                  r,
                  Violation.of(PROPERTY, "nothing in the history can have written revision " + r));
            }
            advanced = false;
          } else {
            ChoicePoint cp =
                new ChoicePoint(r, state.copy(), (BitSet) used.clone(), options, path.size());
            stack.add(cp);
            advanced = false;
          }
        }
        if (advanced) {
          r++;
          continue;
        }
        // try the next option of the latest choice point that has one
        boolean resumed = false;
        while (!stack.isEmpty()) {
          ChoicePoint cp = stack.get(stack.size() - 1);
          if (cp.next >= cp.options.size()) {
            stack.remove(stack.size() - 1);
            failed.add(new Memo(cp.revision, cp.used, new TreeMap<>(cp.state.keys())));
            continue;
          }
          Op option = cp.options.get(cp.next++);
          state = cp.state.copy();
          used = (BitSet) cp.used.clone();
          truncate(path, cp.stepsBefore);
          if (tryWrite(cp.revision, option, state, path)) {
            Integer i = index.get(option);
            if (i != null) {
              used.set(i);
            }
            r = cp.revision + 1;
            resumed = true;
            break;
          }
        }
        if (!resumed) {
          violations.add(
              deepestReason != null
                  ? deepestReason
                  : Violation.of(PROPERTY, "no order of the operations explains revision " + r));
          return outcome(Verdict.VIOLATED, List.of());
        }
      }
      return outcome(Verdict.LINEARIZABLE, path);
    }

    private static void truncate(List<Step> path, int size) {
      while (path.size() > size) {
        path.remove(path.size() - 1);
      }
    }

    /** The writes that may have made revision {@code r} from {@code state}, likeliest first. */
    private List<Op> options(long r, KvModel state, BitSet used) {
      List<Op> hinted = new ArrayList<>();
      List<Op> rest = new ArrayList<>();
      List<Watch.Event> seen = watched.getOrDefault(r, List.of());
      for (Op op : eitherAt.getOrDefault(r, List.of())) {
        (matches(op, seen, state) ? hinted : rest).add(op);
      }
      for (int i = 0; i < candidates.size(); i++) {
        Op op = candidates.get(i);
        if (used.get(i) || minRevision.get(op) > r) {
          continue;
        }
        (matches(op, seen, state) ? hinted : rest).add(op);
      }
      hinted.addAll(rest);
      return hinted;
    }

    /** Whether a watch saw, at this revision, what {@code op} would have done. */
    private static boolean matches(Op op, List<Watch.Event> seen, KvModel state) {
      for (Watch.Event e : seen) {
        String key = e.kv().key();
        if (e.put() && values(op.request()).stream().anyMatch(v -> v.equals(e.kv().value()))) {
          return true;
        }
        if (!e.put()) {
          if (deletes(op.request(), key)) {
            return true;
          }
          Kv now = state.get(key);
          if (op.request() instanceof Request.Revoke v && now != null && now.lease() == v.lease()) {
            return true;
          }
        }
      }
      return false;
    }

    private static boolean deletes(Request request, String key) {
      if (request instanceof Request.Delete d) {
        return d.key().equals(key);
      }
      return request instanceof Request.Txn t
          && (t.onSuccess().stream().anyMatch(q -> deletes(q, key))
              || t.onFailure().stream().anyMatch(q -> deletes(q, key)));
    }

    /**
     * Applies {@code op} as the write of revision {@code r}, checks its answer (if it has one) and
     * every read of revision {@code r}; on success the state is at {@code r} and the step recorded.
     */
    private boolean tryWrite(long r, Op op, KvModel state, List<Step> path) {
      steps++;
      KvModel.Outcome outcome = state.evaluate(op.request());
      if (!outcome.writes()) {
        if (!op.failed() || pinned.get(r) == op) {
          noteFailure(
              r,
              Violation.of(
                  PROPERTY,
                  (op.failed()
                          ? "a value it writes was read at revision "
                          : "answered as a write at revision ")
                      + r
                      + ", but it would change nothing in the state before it",
                  op));
        }
        return false;
      }
      if (!op.failed()) {
        if (roles.get(op) == Role.EITHER && r <= floorRevision(op.start())) {
          return false;
        }
        if (!Objects.equals(outcome.result(), op.result())) {
          noteFailure(
              r,
              Violation.of(
                  PROPERTY,
                  "at revision " + r + " etcd should have answered " + outcome.result(),
                  op));
          return false;
        }
      }
      Map<String, Change> changes = new java.util.LinkedHashMap<>();
      outcome.changes().forEach((k, v) -> changes.put(k, new Change(state.get(k), v)));
      state.commit(outcome);
      Violation reads = checkReads(r, state, op);
      if (reads != null) {
        noteFailure(r, reads);
        // undo: the caller restores from its copy; a pinned write's state is dropped on backtrack
        return false;
      }
      path.add(new Step(r, op, changes));
      return true;
    }

    /** Every read answered at revision {@code r}, against the state at {@code r}. */
    private Violation checkReads(long r, KvModel state, Op writer) {
      for (Op read : readsAt.getOrDefault(r, List.of())) {
        steps++;
        KvModel.Outcome expected = state.evaluate(read.request());
        if (expected.writes() || !Objects.equals(expected.result(), read.result())) {
          return writer == null
              ? Violation.of(
                  PROPERTY,
                  "at revision " + r + " etcd should have answered " + expected.result(),
                  read)
              : Violation.of(
                  PROPERTY,
                  "at revision "
                      + r
                      + " (written by #"
                      + writer.id()
                      + ") etcd should have answered "
                      + expected.result(),
                  writer,
                  read);
        }
      }
      for (Op either : eitherAt.getOrDefault(r, List.of())) {
        if (either == writer) {
          continue;
        }
        steps++;
        if (state.evaluate(either.request()).writes()) {
          return Violation.of(
              PROPERTY,
              "answered at revision "
                  + r
                  + " without being its write, yet it would change the state there",
              either);
        }
      }
      return null;
    }

    private void noteFailure(long r, Violation v) {
      if (r > deepest) {
        deepest = r;
        deepestReason = v;
      }
    }

    private Outcome outcome(Verdict verdict, List<Step> path) {
      int applied = 0;
      for (Step s : path) {
        if (s.op().failed()) {
          applied++;
        }
      }
      int indeterminate = (int) history.ops().stream().filter(Op::indeterminate).count();
      return new Outcome(
          verdict,
          base,
          List.copyOf(path),
          applied,
          indeterminate - applied,
          List.copyOf(violations),
          steps);
    }
  }

  /** The values a request writes (puts, in transactions too), compact. */
  static List<String> values(Request request) {
    if (request instanceof Request.Put p) {
      return List.of(p.value());
    }
    if (request instanceof Request.Txn t) {
      List<String> all = new ArrayList<>();
      t.onSuccess().forEach(q -> all.addAll(values(q)));
      t.onFailure().forEach(q -> all.addAll(values(q)));
      return all;
    }
    return List.of();
  }

  /** Every key-value an answer shows (ranges, previous values, in transactions too). */
  static List<Kv> kvs(Result result) {
    if (result instanceof Result.Range r) {
      return r.kvs();
    }
    if (result instanceof Result.Put p) {
      return p.prev() == null ? List.of() : List.of(p.prev());
    }
    if (result instanceof Result.Delete d) {
      return d.prev();
    }
    if (result instanceof Result.Txn t) {
      List<Kv> all = new ArrayList<>();
      t.results().forEach(q -> all.addAll(kvs(q)));
      return all;
    }
    return List.of();
  }
}
