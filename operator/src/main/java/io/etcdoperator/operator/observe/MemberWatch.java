package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the members of clusters that need nothing, between their reconciles, and wakes a
 * cluster's reconcile as soon as what a member says differs from what that reconcile saw.
 *
 * <h2>Why</h2>
 *
 * A Ready cluster needs no reconcile until something changes. Most changes reach the operator as
 * events (its pods, StatefulSet, claims, ConfigMap and Secrets, the EtcdCluster, Nodes), but some
 * happen inside etcd only: a member frozen or cut off (its pod stays Ready for 14 s), a new leader,
 * an alarm, a member fragmented past the spec's threshold. Reconciling every Ready cluster every 2
 * s caught those, at the cost of a whole reconcile per cluster every 2 s: an operator of many
 * clusters spent most of its time finding that nothing had changed. The watch finds it with one
 * cheap question per member per {@link #PERIOD}, and the reconcile runs only when it did change (or
 * after the reconciler's long resync, for what the watch does not look at).
 *
 * <h2>Algorithm</h2>
 *
 * <ol>
 *   <li>After a reconcile whose plan looks again only after a while, the reconciler calls {@link
 *       #expect} with the members it probed that have a pod (ordinal and client URL) and what it
 *       saw of each ({@link Seen}). That replaces whatever was expected of the cluster before. A
 *       reconcile that will look again soon by itself, and the deletion of a cluster, call {@link
 *       #forget}.
 *   <li>Every {@link #PERIOD}, starting one period after {@code expect}, the watch asks those
 *       members, all at once, with {@link #CHECK_DEADLINE}; no thread waits for the answers. A
 *       check still in flight when the next is due (a member that does not answer holds it for the
 *       whole deadline) delays the next: one check per cluster at a time.
 *   <li>Most checks are a progress request on a watch stream kept open per member ({@link
 *       EtcdService#progress}): its answer carries the member's cluster ID, member ID and raft
 *       term, for about a fifth of a Status call's cost to the operator. A member that answers when
 *       it was expected not to, or does not when it was expected to, or answers with another ID or
 *       another term (an election: a new leader, or a member that lost its leader and campaigns),
 *       is a difference.
 *   <li>A full check asks for the Status instead, for what a progress answer does not carry
 *       (alarms, the leader's ID, learners, the version, the database's fragmentation): every
 *       {@link #FULL_PERIOD}, and at the first check {@link #BUSY_FULL_PERIOD} after the last full
 *       one once a progress answer showed the members' revision moved: every other check while
 *       writes go on (writes fill a database up to its quota: NOSPACE is raised under writes, and a
 *       cluster refusing writes must be seen soon). The first check after {@code expect} is a
 *       progress request.
 *   <li>When the answers are in, and the cluster still has the expectation the check was started
 *       for, each Status is seen as the reconcile sees a probe ({@link ClusterObserver#toView}),
 *       each progress answer as above, and compared with what was expected. Any difference drops
 *       the expectation and triggers the cluster's reconcile, which observes afresh and expects
 *       again. If the expectation changed meanwhile (a reconcile ran), the answers are dropped
 *       unread.
 *   <li>Except a member expected to answer that did not while the operator itself was paused during
 *       the check (a collection, or no CPU for it: the watch's own ticks, every {@value
 *       #TICK_MILLIS} ms, came more than {@link #PAUSE} apart, or are overdue now): its answer may
 *       have come and not been read in time. The cluster is asked again at once, by progress and
 *       with the same deadline ({@link #recheck}), and only a second silence wakes the reconcile.
 *       Without a pause, one silence wakes it. After a full check's silence, the next check is a
 *       full one again.
 * </ol>
 *
 * <p>A change the watch sees reaches the status within {@link #PERIOD} plus {@link #CHECK_DEADLINE}
 * plus the reconcile it triggers (whose probe waits at most the etcd deadline for a member that
 * does not answer) plus the status write: 2 + 0.5 + 1 s and the write for a frozen member (one more
 * deadline if the operator was paused meanwhile). A killed member is seen sooner: its pod's status
 * changes, which wakes the reconcile at once, and its host refuses the next check. An alarm or a
 * fragmented database is seen within two periods of the writes that caused it, plus a deadline; an
 * alarm raised without writes (CORRUPT) within {@link #FULL_PERIOD}. What the watch does not look
 * at (a member list changed by hand, database sizes for the metrics, the cluster version) is seen
 * by the reconciler's resync.
 */
public final class MemberWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MemberWatch.class);

  /** How often each watched member is asked for its Status. */
  public static final Duration PERIOD = Duration.ofSeconds(2);

  /**
   * How long a check waits for each answer: shorter than the reconcile's deadline, since a slow
   * answer costs only a reconcile that looks again with the whole deadline, and a frozen member is
   * seen sooner.
   */
  public static final Duration CHECK_DEADLINE = Duration.ofMillis(500);

  /** How often a watched cluster's members are asked for their Status rather than progress. */
  public static final Duration FULL_PERIOD = Duration.ofSeconds(30);

  /** As {@link #FULL_PERIOD}, once the members' revision moved: the period itself. */
  public static final Duration BUSY_FULL_PERIOD = PERIOD;

  private static final long TICK_MILLIS = 100;

  /** Ticks further apart than this mean the operator was paused between them. */
  static final Duration PAUSE = Duration.ofMillis(2 * TICK_MILLIS);

  /** One cluster's expectation, with the state of its checks. */
  private static final class Watched {
    final List<Integer> ordinals;
    final List<String> urls;
    final List<Seen> expected;
    final List<Long> terms;
    final Predicate<MemberProbe> fragmented;
    final Runnable trigger;
    final AtomicBoolean inFlight = new AtomicBoolean();
    volatile long dueNanos;
    volatile long checkNanos;
    volatile long lastFullNanos;
    volatile long revisions;
    volatile boolean moved;

    Watched(
        List<Integer> ordinals,
        List<String> urls,
        List<Seen> expected,
        List<Long> terms,
        Predicate<MemberProbe> fragmented,
        Runnable trigger,
        long dueNanos) {
      this.ordinals = ordinals;
      this.urls = urls;
      this.expected = expected;
      this.terms = terms;
      this.fragmented = fragmented;
      this.trigger = trigger;
      this.dueNanos = dueNanos;
      this.lastFullNanos = System.nanoTime();
    }
  }

  private final EtcdService etcd;
  private final long periodNanos;
  private final Duration checkDeadline;
  private final long fullNanos;
  private final long busyFullNanos;
  private final AtomicLong fullChecks = new AtomicLong();
  private final Map<String, Watched> watched = new ConcurrentHashMap<>();
  private final AtomicLong checks = new AtomicLong();
  private final Map<WakeReason, AtomicLong> triggers = new EnumMap<>(WakeReason.class);
  private final AtomicLong rechecks = new AtomicLong();
  private volatile long lastTickNanos = System.nanoTime();
  private volatile long lastPauseNanos = lastTickNanos;
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "etcd-member-watch");
            t.setDaemon(true);
            return t;
          });

  public MemberWatch(EtcdService etcd) {
    this(etcd, PERIOD, CHECK_DEADLINE);
  }

  /** With another period and check deadline (tests). */
  public MemberWatch(EtcdService etcd, Duration period, Duration checkDeadline) {
    this(etcd, period, checkDeadline, FULL_PERIOD, BUSY_FULL_PERIOD);
  }

  /** With other periods of full checks too (tests). */
  public MemberWatch(
      EtcdService etcd,
      Duration period,
      Duration checkDeadline,
      Duration fullPeriod,
      Duration busyFullPeriod) {
    this.etcd = etcd;
    this.periodNanos = period.toNanos();
    this.checkDeadline = checkDeadline;
    this.fullNanos = fullPeriod.toNanos();
    this.busyFullNanos = busyFullPeriod.toNanos();
    for (WakeReason r : WakeReason.values()) {
      triggers.put(r, new AtomicLong());
    }
    ticker.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * From now on, checks the members at {@code urls} (ordinal to client URL) of {@code clusterKey}
   * against {@code seen} (what the caller saw of each, by ordinal; a member missing there is
   * expected not to answer), and runs {@code trigger} once when one differs.
   *
   * @param fragmented whether a member is fragmented past the spec's threshold
   */
  public void expect(
      String clusterKey,
      SortedMap<Integer, String> urls,
      Map<Integer, MemberProbe> seen,
      Predicate<MemberProbe> fragmented,
      Runnable trigger) {
    if (urls.isEmpty()) {
      forget(clusterKey);
      return;
    }
    List<Integer> ordinals = List.copyOf(urls.keySet());
    List<Seen> expected = new ArrayList<>();
    List<Long> terms = new ArrayList<>();
    long revisions = 0;
    for (int ordinal : ordinals) {
      MemberProbe p = seen.get(ordinal);
      expected.add(
          Seen.of(
              p != null ? p : MemberProbe.unreachable(ordinal, urls.get(ordinal), "not answering"),
              fragmented));
      terms.add(p != null && p.reachable() ? p.raftTerm() : 0L);
      revisions += p != null && p.reachable() ? p.revision() : 0L;
    }
    Watched w =
        new Watched(
            ordinals,
            List.copyOf(urls.values()),
            List.copyOf(expected),
            List.copyOf(terms),
            fragmented,
            trigger,
            System.nanoTime() + periodNanos);
    w.revisions = revisions;
    watched.put(clusterKey, w);
  }

  /** Stops watching the cluster. */
  public void forget(String clusterKey) {
    watched.remove(clusterKey);
  }

  /** Clusters watched now. */
  public int watching() {
    return watched.size();
  }

  /** Checks started so far (each asks every member of one cluster once). */
  public long checks() {
    return checks.get();
  }

  /** Full checks (Status rather than progress) started so far. */
  public long fullChecks() {
    return fullChecks.get();
  }

  /** Reconciles the watch has triggered so far. */
  public long triggers() {
    return triggers.values().stream().mapToLong(AtomicLong::get).sum();
  }

  /** Reconciles the watch has triggered so far for {@code reason}. */
  public long triggers(WakeReason reason) {
    return triggers.get(reason).get();
  }

  /** Checks made again at once: a member expected to answer did not while the operator paused. */
  public long rechecks() {
    return rechecks.get();
  }

  private void tick() {
    long now = System.nanoTime();
    if (now - lastTickNanos > PAUSE.toNanos()) {
      lastPauseNanos = now;
    }
    lastTickNanos = now;
    try {
      watched.forEach(
          (key, w) -> {
            if (w.dueNanos - now > 0 || !w.inFlight.compareAndSet(false, true)) {
              return;
            }
            w.dueNanos = Math.max(w.dueNanos + periodNanos, now + periodNanos / 2);
            w.checkNanos = now;
            checks.incrementAndGet();
            long sinceFull = now - w.lastFullNanos;
            // half a period of slack: a check starts at the first tick after it is due
            if (sinceFull >= fullNanos
                || (w.moved && sinceFull >= busyFullNanos - periodNanos / 2)) {
              w.lastFullNanos = now;
              w.moved = false;
              fullChecks.incrementAndGet();
              etcd.statuses(key, w.urls, checkDeadline)
                  .whenComplete(then(key, w, answers -> compare(key, w, answers)));
            } else {
              askProgress(key, w, false);
            }
          });
    } catch (RuntimeException e) {
      // One cluster's odd failure must not end the watch of every other.
      LOG.warn("member watch: {}", e.toString(), e);
    }
  }

  private void askProgress(String key, Watched w, boolean recheck) {
    etcd.progress(key, w.urls, checkDeadline)
        .whenComplete(then(key, w, answers -> compareProgress(key, w, answers, recheck)));
  }

  private boolean compare(String key, Watched w, List<EtcdStatus> answers) {
    if (watched.get(key) != w) {
      return false;
    }
    for (int i = 0; i < answers.size(); i++) {
      int ordinal = w.ordinals.get(i);
      Seen now = Seen.of(Probes.toView(ordinal, answers.get(i)), w.fragmented);
      Seen expected = w.expected.get(i);
      if (!now.equals(expected)) {
        if (expected.reachable() && !now.reachable() && pausedSince(w.checkNanos)) {
          // asked again at once, and the Status asked for at the next check
          w.lastFullNanos -= fullNanos;
          return recheck(key, w);
        }
        changed(key, w, ordinal, WakeReason.STATUS, expected + " -> " + now);
        return false;
      }
    }
    w.revisions = answers.stream().mapToLong(EtcdStatus::revision).sum();
    return false;
  }

  private boolean compareProgress(String key, Watched w, List<Progress> answers, boolean again) {
    if (watched.get(key) != w) {
      return false;
    }
    long revisions = 0;
    for (int i = 0; i < answers.size(); i++) {
      Progress p = answers.get(i);
      Seen e = w.expected.get(i);
      WakeReason differs = e.differs(w.terms.get(i), p);
      if (differs == WakeReason.NOT_ANSWERING && !again && pausedSince(w.checkNanos)) {
        return recheck(key, w);
      }
      if (differs != null) {
        changed(key, w, w.ordinals.get(i), differs, e + " (term " + w.terms.get(i) + ") -> " + p);
        return false;
      }
      revisions += p.revision();
    }
    if (revisions != w.revisions) {
      w.revisions = revisions;
      w.moved = true;
    }
    return false;
  }

  /** Whether the operator was paused since {@code since}, or is overdue for a tick now. */
  private boolean pausedSince(long since) {
    return lastPauseNanos - since >= 0 || System.nanoTime() - lastTickNanos > PAUSE.toNanos();
  }

  /** Asks again at once, by progress, within the check in flight (the algorithm's step 6). */
  private boolean recheck(String key, Watched w) {
    rechecks.incrementAndGet();
    askProgress(key, w, true);
    return true;
  }

  /** When a check's answers are in: compares, then frees the cluster unless it asked again. */
  private static <T> BiConsumer<T, Throwable> then(String key, Watched w, Predicate<T> compare) {
    return (answers, failure) -> {
      boolean askedAgain = false;
      try {
        if (failure != null) {
          LOG.debug("check of {} failed: {}", key, failure.toString());
        } else {
          askedAgain = compare.test(answers);
        }
      } finally {
        if (!askedAgain) {
          w.inFlight.set(false);
        }
      }
    };
  }

  private void changed(String key, Watched w, int ordinal, WakeReason reason, String how) {
    if (watched.remove(key, w)) {
      LOG.debug("{}: member {} changed ({}); reconciling", key, ordinal, how);
      triggers.get(reason).incrementAndGet();
      w.trigger.run();
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    watched.clear();
  }
}
