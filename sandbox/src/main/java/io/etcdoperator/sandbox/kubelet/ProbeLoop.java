package io.etcdoperator.sandbox.kubelet;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One probe of one container, run as a kubelet's probe worker runs it: on a ticker that starts when
 * the pod is taken on ({@code anchor}) and ticks every period, whenever the container started.
 *
 * <p>The first probe comes at the first tick once the container has run initialDelaySeconds ({@link
 * #firstTick}), or at once when the kubelet triggers it (readiness, when startup has just
 * succeeded). After a probe, the next comes at the next tick; a probe that outlasted a tick (it
 * waited on a slow or holding endpoint) is followed at once by one more, and the other ticks it
 * outlasted are dropped, as Go's ticker drops them ({@link #afterProbe}). Probes of one loop never
 * overlap.
 */
final class ProbeLoop implements Runnable {
  private final ScheduledExecutorService scheduler;
  private final long anchor;
  private final long period;
  private final Runnable probe;

  // guarded by this
  private boolean cancelled;
  private ScheduledFuture<?> next;

  ProbeLoop(ScheduledExecutorService scheduler, long anchor, long period, Runnable probe) {
    this.scheduler = scheduler;
    this.anchor = anchor;
    this.period = period;
    this.probe = probe;
  }

  /**
   * Runs the first probe at the first tick at or after {@code earliest} ({@link System#nanoTime}),
   * then every tick until cancelled.
   */
  void startAtTick(long earliest) {
    long now = System.nanoTime();
    schedule(firstTick(anchor, earliest, period, now));
  }

  /**
   * Runs the first probe at {@code earliest} or at once when that is past (a kubelet's trigger).
   */
  void startAt(long earliest) {
    schedule(Math.max(0, earliest - System.nanoTime()));
  }

  /** No probe starts after this; one running ends as it would. */
  synchronized void cancel() {
    cancelled = true;
    if (next != null) {
      next.cancel(false);
    }
  }

  @Override
  public void run() {
    synchronized (this) {
      if (cancelled) {
        return;
      }
    }
    long began = System.nanoTime();
    try {
      probe.run();
    } finally {
      schedule(afterProbe(anchor, period, began, System.nanoTime()));
    }
  }

  private synchronized void schedule(long delayNanos) {
    if (!cancelled) {
      next = scheduler.schedule(this, delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Nanoseconds from {@code now} until the first tick (every {@code period} from {@code anchor}) at
   * or after {@code earliest}; 0 when that tick is past. All in {@link System#nanoTime}.
   */
  static long firstTick(long anchor, long earliest, long period, long now) {
    long sinceAnchor = Math.max(0, earliest - anchor);
    long tick = anchor + (sinceAnchor + period - 1) / period * period;
    return Math.max(0, tick - now);
  }

  /**
   * Nanoseconds from {@code now}, when a probe begun at {@code began} has ended, until the next
   * probe: the first tick after {@code began}, at once if that tick has passed.
   */
  static long afterProbe(long anchor, long period, long began, long now) {
    long tick = anchor + (Math.max(0, began - anchor) / period + 1) * period;
    return Math.max(0, tick - now);
  }
}
