package io.etcdoperator.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a {@link RecordingWriter} wrote and what it found when it read everything back.
 *
 * <p>Every put is one attempt on a fresh key. An attempt etcd acknowledged is a {@link Write} (with
 * the revision etcd gave it); any other attempt is a {@link Failure}, "unconfirmed": it may or may
 * not have been applied (a timed-out put can still commit), so it never counts as lost. After the
 * writer stopped, every key under its prefix was read back linearizably:
 *
 * <ul>
 *   <li>{@link #lost}: acknowledged writes whose key is gone;
 *   <li>{@link #altered}: acknowledged writes whose key is there with another value or another
 *       revision than the one acknowledged (the history was rewritten);
 *   <li>{@link #unconfirmedApplied}: failed attempts that did apply, for information.
 * </ul>
 *
 * <p>Gaps: the time between two consecutive acknowledged writes, plus, when attempts failed before
 * the first or after the last acknowledged write, the time from the writer's start to the first
 * acknowledgement, and from the last acknowledgement to the end of the last failed attempt. A gap
 * with no failed attempt before the first acknowledgement is start-up, not an outage, and is not
 * counted. {@link #gaps} lists those at least {@link #gapThreshold} long; {@link #longestGap} and
 * {@link #longestGapBetween} consider every gap.
 *
 * @param prefix the key prefix of this run
 * @param endpoints the endpoints the writer was given
 * @param startedAt when writing started
 * @param stoppedAt when writing stopped
 * @param rate attempts per second the writer aimed at
 * @param acknowledged every write etcd acknowledged, in order
 * @param unconfirmed every failed attempt, in order
 * @param lost acknowledged writes whose key was not found
 * @param altered acknowledged writes found with another value or revision
 * @param unconfirmedApplied failed attempts whose key was found
 * @param gaps the gaps at least {@code gapThreshold} long, in time order
 * @param gapThreshold the shortest gap listed in {@code gaps}
 * @param longestGap the longest gap of all
 * @param marks events the caller recorded while the writer ran ({@link RecordingWriter#mark})
 * @param verificationError why the keys could not be read back; empty when they were (only then do
 *     {@code lost}, {@code altered} and {@code unconfirmedApplied} mean anything)
 */
public record WriterReport(
    String prefix,
    List<String> endpoints,
    Instant startedAt,
    Instant stoppedAt,
    double rate,
    List<Write> acknowledged,
    List<Failure> unconfirmed,
    List<Write> lost,
    List<Write> altered,
    List<Failure> unconfirmedApplied,
    List<Gap> gaps,
    Duration gapThreshold,
    Optional<Gap> longestGap,
    List<Mark> marks,
    Optional<String> verificationError) {

  public WriterReport {
    endpoints = List.copyOf(endpoints);
    acknowledged = List.copyOf(acknowledged);
    unconfirmed = List.copyOf(unconfirmed);
    lost = List.copyOf(lost);
    altered = List.copyOf(altered);
    unconfirmedApplied = List.copyOf(unconfirmedApplied);
    gaps = List.copyOf(gaps);
    marks = List.copyOf(marks);
    Objects.requireNonNull(longestGap, "longestGap");
    Objects.requireNonNull(verificationError, "verificationError");
  }

  /**
   * A write etcd acknowledged.
   *
   * @param seq the attempt's sequence number (0, 1, ...)
   * @param key the key written
   * @param revision the revision etcd acknowledged it at
   * @param endpoint the client URL it went to
   * @param at when the acknowledgement arrived
   * @param took how long the put took
   */
  public record Write(
      long seq, String key, long revision, String endpoint, Instant at, Duration took) {}

  /**
   * An attempt etcd did not acknowledge (refused, failed or timed out).
   *
   * @param seq the attempt's sequence number
   * @param key the key it tried to write
   * @param endpoint the client URL it went to (empty when no endpoint resolved)
   * @param at when the attempt started
   * @param took how long until it failed
   * @param error what gRPC or etcd said
   */
  public record Failure(
      long seq, String key, String endpoint, Instant at, Duration took, String error) {
    public Instant end() {
      return at.plus(took);
    }
  }

  /**
   * A time without acknowledged writes.
   *
   * @param from the last acknowledgement before it (or the writer's start)
   * @param to the next acknowledgement (or the end of the last failed attempt)
   * @param failedAttempts attempts that failed within it
   */
  public record Gap(Instant from, Instant to, int failedAttempts) {
    public Duration length() {
      return Duration.between(from, to);
    }

    boolean overlaps(Instant start, Instant end) {
      return from.isBefore(end) && to.isAfter(start);
    }
  }

  /** An event the caller recorded on the writer's timeline, e.g. "restart etcd-1". */
  public record Mark(String label, Instant at) {}

  /** A mark and the longest gap from it to the next mark (or to the end). */
  public record MarkedGap(Mark mark, Optional<Gap> longest) {}

  /** Builds the report: gaps from the timeline, losses from what was read back. */
  static WriterReport of(
      String prefix,
      List<String> endpoints,
      Instant startedAt,
      Instant stoppedAt,
      double rate,
      List<Write> acknowledged,
      List<Failure> unconfirmed,
      List<Mark> marks,
      Duration gapThreshold,
      Optional<Map<String, EtcdKv.Entry>> readBack,
      Optional<String> verificationError) {
    List<Gap> all = allGaps(startedAt, acknowledged, unconfirmed);
    List<Write> lost = new ArrayList<>();
    List<Write> altered = new ArrayList<>();
    List<Failure> applied = new ArrayList<>();
    readBack.ifPresent(
        found -> {
          for (Write w : acknowledged) {
            EtcdKv.Entry e = found.get(w.key());
            if (e == null) {
              lost.add(w);
            } else if (!e.value().equals(RecordingWriter.valueOf(w.seq()))
                || e.modRevision() != w.revision()) {
              altered.add(w);
            }
          }
          unconfirmed.stream().filter(f -> found.containsKey(f.key())).forEach(applied::add);
        });
    return new WriterReport(
        prefix,
        endpoints,
        startedAt,
        stoppedAt,
        rate,
        acknowledged,
        unconfirmed,
        lost,
        altered,
        applied,
        all.stream().filter(g -> g.length().compareTo(gapThreshold) >= 0).toList(),
        gapThreshold,
        all.stream().max(Comparator.comparing(Gap::length)),
        marks,
        readBack.isPresent()
            ? Optional.empty()
            : Optional.of(verificationError.orElse("not read back")));
  }

  /** Every gap, however short, in time order (see the class comment for what counts). */
  static List<Gap> allGaps(Instant start, List<Write> acks, List<Failure> failures) {
    List<Gap> gaps = new ArrayList<>();
    int f = 0;
    Instant previous = null;
    for (Write w : acks) {
      int failed = 0;
      while (f < failures.size() && failures.get(f).at().isBefore(w.at())) {
        failed++;
        f++;
      }
      if (previous != null) {
        gaps.add(new Gap(previous, w.at(), failed));
      } else if (failed > 0) {
        gaps.add(new Gap(start, w.at(), failed));
      }
      previous = w.at();
    }
    if (f < failures.size()) {
      List<Failure> trailing = failures.subList(f, failures.size());
      Instant end =
          trailing.stream().map(Failure::end).max(Comparator.naturalOrder()).orElseThrow();
      gaps.add(new Gap(previous == null ? start : previous, end, trailing.size()));
    }
    return gaps;
  }

  /** Read back and nothing acknowledged is missing or changed. */
  public boolean ok() {
    return verified() && lost.isEmpty() && altered.isEmpty();
  }

  /** Whether every key could be read back (else the loss figures mean nothing). */
  public boolean verified() {
    return verificationError.isEmpty();
  }

  public List<String> lostKeys() {
    return lost.stream().map(Write::key).toList();
  }

  public Duration ran() {
    return Duration.between(startedAt, stoppedAt);
  }

  /** The longest gap's length; zero when there was none. */
  public Duration longestGapLength() {
    return longestGap.map(Gap::length).orElse(Duration.ZERO);
  }

  /** The longest gap, of any length, that overlaps {@code [from, to)}. */
  public Optional<Gap> longestGapBetween(Instant from, Instant to) {
    return allGaps(startedAt, acknowledged, unconfirmed).stream()
        .filter(g -> g.overlaps(from, to))
        .max(Comparator.comparing(Gap::length));
  }

  /** For each mark, the longest gap from it to the next mark (the last: to the writer's stop). */
  public List<MarkedGap> gapsByMark() {
    List<Mark> sorted = marks.stream().sorted(Comparator.comparing(Mark::at)).toList();
    List<MarkedGap> result = new ArrayList<>();
    for (int i = 0; i < sorted.size(); i++) {
      Instant end = i + 1 < sorted.size() ? sorted.get(i + 1).at() : stoppedAt;
      Mark m = sorted.get(i);
      result.add(new MarkedGap(m, longestGapBetween(m.at(), end.isAfter(m.at()) ? end : m.at())));
    }
    return result;
  }

  /** One line for test output and benchmarks. */
  public String summary() {
    StringBuilder s = new StringBuilder("writer ").append(prefix).append(": ");
    s.append(acknowledged.size()).append(" acknowledged, ");
    if (verified()) {
      s.append(lost.size()).append(" lost, ");
      if (!altered.isEmpty()) {
        s.append(altered.size()).append(" altered, ");
      }
      s.append(unconfirmed.size())
          .append(" unconfirmed (")
          .append(unconfirmedApplied.size())
          .append(" applied)");
    } else {
      s.append(unconfirmed.size())
          .append(" unconfirmed, NOT VERIFIED (")
          .append(verificationError.get())
          .append(")");
    }
    s.append(", longest gap ").append(seconds(longestGapLength()));
    longestGap.ifPresent(
        g ->
            s.append(" (")
                .append(offset(g.from()))
                .append("..")
                .append(offset(g.to()))
                .append(")"));
    s.append(", ")
        .append(gaps.size())
        .append(gaps.size() == 1 ? " gap >= " : " gaps >= ")
        .append(gapThreshold.toMillis())
        .append(" ms, ran ")
        .append(seconds(ran()))
        .append(String.format(Locale.ROOT, " at %.0f/s", rate));
    if (!lost.isEmpty()) {
      s.append("; lost: ")
          .append(lost.stream().limit(5).map(Write::key).collect(Collectors.joining(", ")))
          .append(lost.size() > 5 ? ", ..." : "");
    }
    return s.toString();
  }

  private String offset(Instant t) {
    return "+" + seconds(Duration.between(startedAt, t));
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.3f s", d.toNanos() / 1e9);
  }
}
