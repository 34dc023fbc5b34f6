package io.etcdoperator.testing.robustness;

import io.etcdoperator.testing.robustness.Linearizer.Step;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Checks a {@link History} for the guarantees etcd gives its clients, as etcd's own robustness
 * suite does for etcd alone:
 *
 * <ol>
 *   <li><b>linearizability</b> of every answered and indeterminate key-value operation ({@link
 *       Linearizer});
 *   <li><b>revisions never go backwards</b>: along each client's operations, one after the other,
 *       the header revision of its linearizable operations never decreases;
 *   <li><b>serializable reads</b>: each one shows exactly the linearization's state at the revision
 *       it reports, and a client never sees an older revision from a member than it already saw
 *       from that member;
 *   <li>the <b>watch</b> guarantees ({@link WatchChecker}), against the linearization.
 * </ol>
 *
 * Checks 3 and 4 need the linearization; when there is none they are reported as not checked. The
 * run adds what only the live cluster can say (equal HashKV on every member, the member list).
 */
public final class Checker {
  public static final String REVISIONS = "revisions never go backwards";
  public static final String SERIALIZABLE = "serializable reads";
  public static final String REBUILD_LOSS = "lost at the opt-in rebuild, as documented";

  private final Linearizer linearizer;

  public Checker() {
    this(new Linearizer());
  }

  Checker(Linearizer linearizer) {
    this.linearizer = linearizer;
  }

  /** One property: how many things it checked, and what broke it (null: not checked). */
  public record Property(String name, long checked, List<Violation> violations, String note) {
    public boolean holds() {
      return violations != null && violations.isEmpty();
    }

    public String line() {
      return name
          + ": "
          + (violations == null
              ? "not checked (" + note + ")"
              : violations.isEmpty()
                  ? "ok (" + checked + (note.isEmpty() ? "" : ", " + note) + ")"
                  : violations.size() + " VIOLATED");
    }
  }

  /** The report of one history. */
  public record Report(
      History history, Linearizer.Outcome linearization, List<Property> properties) {
    public boolean ok() {
      return properties.stream().allMatch(Property::holds);
    }

    public List<Violation> violations() {
      List<Violation> all = new ArrayList<>();
      for (Property p : properties) {
        if (p.violations() != null) {
          all.addAll(p.violations());
        }
      }
      return all;
    }

    public long violationCount() {
      return violations().size();
    }

    /** Adds a property the caller checked itself (on the live cluster). */
    public Report with(Property property) {
      List<Property> ps = new ArrayList<>(properties);
      ps.add(property);
      return new Report(history, linearization, ps);
    }

    /** One line per property; then each violation (at most {@code max}) with its operations. */
    public String describe(int max) {
      StringBuilder b = new StringBuilder();
      for (Property p : properties) {
        b.append("  ").append(p.line()).append('\n');
      }
      int shown = 0;
      for (Violation v : violations()) {
        if (shown++ == max) {
          b.append("  ... and ").append(violationCount() - max).append(" more\n");
          break;
        }
        b.append("  ").append(v.describe(history)).append('\n');
      }
      return b.toString();
    }
  }

  public Report check(History history) {
    Linearizer.Outcome outcome = linearizer.check(history);
    List<Property> properties = new ArrayList<>();
    long answered = history.ops().stream().filter(op -> !op.failed()).count();
    long indeterminate = history.ops().stream().filter(Op::indeterminate).count();
    String linearNote =
        String.format(
            Locale.ROOT,
            "%d answered, %d indeterminate of which %d applied, %d revisions, %d model steps",
            answered,
            indeterminate,
            outcome.indeterminateApplied(),
            outcome.steps().size(),
            outcome.modelSteps());
    properties.add(
        switch (outcome.verdict()) {
          case LINEARIZABLE ->
              new Property(Linearizer.PROPERTY, history.ops().size(), List.of(), linearNote);
          case VIOLATED ->
              new Property(
                  Linearizer.PROPERTY, history.ops().size(), outcome.violations(), linearNote);
          case UNDECIDED ->
              new Property(
                  Linearizer.PROPERTY,
                  history.ops().size(),
                  List.of(
                      Violation.of(
                          Linearizer.PROPERTY,
                          "undecided: the search ran out of its budget of model steps")),
                  linearNote);
        });
    properties.add(clientRevisions(history));
    if (outcome.verdict() == Linearizer.Verdict.LINEARIZABLE) {
      properties.add(serializable(history, outcome));
      WatchChecker watches =
          new WatchChecker(
                  outcome.baseRevision(), outcome.steps(), KnownIssues.earlyProgress(history))
              .compactions(history.ops(), history.watches());
      Map<String, List<Violation>> found = watches.check(history.watches());
      String note =
          watches.events()
              + " events"
              + (watches.beyond() == 0 ? "" : ", " + watches.beyond() + " past the last revision");
      found.forEach((name, vs) -> properties.add(new Property(name, watches.events(), vs, note)));
      if (!watches.known().isEmpty()) {
        properties.add(
            new Property(
                KnownIssues.PROPERTY,
                watches.known().size(),
                List.of(),
                watches.known().size()
                    + " explained by etcd's own "
                    + KnownIssues.EARLY_PROGRESS
                    + ", first: "
                    + watches.known().get(0).describe(history).replace('\n', ' ')));
      }
    } else {
      properties.add(new Property(SERIALIZABLE, 0, null, "no linearization"));
      WatchChecker.PROPERTIES.forEach(
          name -> properties.add(new Property(name, 0, null, "no linearization")));
    }
    return new Report(history, outcome, properties);
  }

  /**
   * Checks a history whose cluster the operator rebuilt from a survivor, at the user's opt-in, at
   * {@code revision} (what {@code status.lastRebuild.revision} reports): the one loss the operator
   * documents. etcd's guarantees must hold up to that revision, and only what was acknowledged
   * above it, before the opt-in, may be gone.
   *
   * <p>The history is cut: every operation answered above {@code revision} before {@code optIn}
   * (nanoseconds on the history's clock) is taken out, its writes reported as the rebuild's loss
   * under {@link #REBUILD_LOSS} (a property that holds: it says what was lost, not that anything
   * broke); watch records after the opt-in, and events above the revision, go too (a client must
   * list again after a rebuild, as after a restore). What stays is checked as any history, and it
   * ends with the workload's final linearizable read, made on the rebuilt cluster before anything
   * wrote to it: so the rebuilt state must be exactly the linearization's at the revision. A write
   * at or below it that is missing, or one above it that is still there, or anything written that
   * the history does not hold, is a violation.
   */
  public Report checkRebuilt(History history, long revision, long optIn) {
    List<Op> lost = new ArrayList<>();
    List<Op> kept = new ArrayList<>();
    for (Op op : history.ops()) {
      boolean above = !op.failed() && op.revision() > revision && op.end() < optIn;
      if (!above) {
        kept.add(op);
      } else if (op.request().canWrite() && op.revision() > 0 && writes(op)) {
        lost.add(op);
      }
    }
    List<Watch.Record> watches = new ArrayList<>();
    for (Watch.Record r : history.watches()) {
      if (r.at() >= optIn || r.revision() > revision && r.kind() != Watch.Kind.EVENTS) {
        continue;
      }
      if (r.kind() == Watch.Kind.EVENTS) {
        List<Watch.Event> events =
            r.events().stream().filter(e -> e.kv().modRevision() <= revision).toList();
        if (!events.isEmpty()) {
          watches.add(
              new Watch.Record(
                  r.watcher(),
                  r.stream(),
                  r.at(),
                  r.kind(),
                  Math.min(r.revision(), revision),
                  r.startRevision(),
                  r.prevKv(),
                  r.compactRevision(),
                  events,
                  r.member(),
                  r.error()));
        }
        continue;
      }
      watches.add(r);
    }
    History cut =
        new History(
            history.prefix(),
            history.baseRevision(),
            kept,
            watches,
            history.spans(),
            history.about());
    Report report = check(cut);
    return report.with(
        new Property(
            REBUILD_LOSS,
            lost.size(),
            List.of(),
            lost.size()
                + " acknowledged writes above revision "
                + revision
                + (lost.isEmpty()
                    ? ""
                    : ", revisions "
                        + lost.stream().mapToLong(Op::revision).min().orElse(0)
                        + " to "
                        + lost.stream().mapToLong(Op::revision).max().orElse(0))));
  }

  /**
   * Whether an answered operation wrote (a transaction that only read, a delete of nothing: no).
   */
  private static boolean writes(Op op) {
    Result result = op.result();
    if (result instanceof Result.Txn txn) {
      return txn.results().stream().anyMatch(r -> !(r instanceof Result.Range));
    }
    if (result instanceof Result.Delete d) {
      return d.deleted() > 0;
    }
    return !(result instanceof Result.Range);
  }

  private static Property clientRevisions(History history) {
    Map<Integer, List<Op>> byClient = new TreeMap<>();
    for (Op op : history.ops()) {
      if (!op.failed() && !op.serializable()) {
        byClient.computeIfAbsent(op.client(), k -> new ArrayList<>()).add(op);
      }
    }
    List<Violation> found = new ArrayList<>();
    long checked = 0;
    for (List<Op> ops : byClient.values()) {
      ops.sort(Comparator.comparingLong(Op::start));
      Op previous = null;
      for (Op op : ops) {
        checked++;
        if (previous != null
            && op.start() >= previous.end()
            && op.revision() < previous.revision()) {
          found.add(
              Violation.of(
                  REVISIONS,
                  "client "
                      + op.client()
                      + " saw revision "
                      + op.revision()
                      + " after revision "
                      + previous.revision(),
                  previous,
                  op));
        }
        if (previous == null || op.revision() >= previous.revision()) {
          previous = op;
        }
      }
    }
    return new Property(REVISIONS, checked, found, "");
  }

  /**
   * Replays the linearization once, answering each serializable read at its revision, and follows
   * each client's highest revision per member.
   */
  private static Property serializable(History history, Linearizer.Outcome outcome) {
    List<Op> reads =
        history.ops().stream()
            .filter(op -> op.serializable() && !op.failed())
            .sorted(Comparator.comparingLong(Op::revision))
            .toList();
    List<Violation> found = new ArrayList<>();
    KvModel state = new KvModel(outcome.baseRevision());
    List<Step> steps = outcome.steps();
    int next = 0;
    long last = steps.isEmpty() ? outcome.baseRevision() : steps.get(steps.size() - 1).revision();
    long beyond = 0;
    for (Op read : reads) {
      if (read.revision() > last) {
        beyond++;
        continue;
      }
      if (read.revision() < outcome.baseRevision()) {
        found.add(Violation.of(SERIALIZABLE, "a revision before the run's base", read));
        continue;
      }
      while (next < steps.size() && steps.get(next).revision() <= read.revision()) {
        state.commit(new KvModel.Outcome(new Result.Done(), asChanges(steps.get(next))));
        next++;
      }
      KvModel.Outcome expected = state.evaluate(read.request());
      if (!Objects.equals(expected.result(), read.result())) {
        found.add(
            Violation.of(
                SERIALIZABLE,
                "at revision "
                    + read.revision()
                    + " the linearization holds "
                    + expected.result()
                    + ": a serializable read must show a state that existed at its revision",
                read));
      }
    }
    Map<String, Op> highest = new HashMap<>();
    history.ops().stream()
        .filter(op -> op.serializable() && !op.failed())
        .sorted(Comparator.comparingLong(Op::start))
        .forEach(
            op -> {
              String key = op.client() + "/" + Long.toHexString(op.member());
              Op before = highest.get(key);
              if (before != null && op.revision() < before.revision()) {
                found.add(
                    Violation.of(
                        SERIALIZABLE,
                        "member "
                            + Long.toHexString(op.member())
                            + " answered client "
                            + op.client()
                            + " at revision "
                            + op.revision()
                            + " after it had answered at "
                            + before.revision(),
                        before,
                        op));
              } else {
                highest.put(key, op);
              }
            });
    return new Property(
        SERIALIZABLE, reads.size(), found, beyond == 0 ? "" : beyond + " past the last revision");
  }

  private static Map<String, Kv> asChanges(Step step) {
    Map<String, Kv> changes = new LinkedHashMap<>();
    step.changes().forEach((k, c) -> changes.put(k, c.after()));
    return changes;
  }
}
