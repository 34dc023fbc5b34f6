package io.etcdoperator.sandbox.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When a container's probes come: on the pod's ticker (from its admission, as a kubelet's probe
 * worker), not counted from the container's start; after a probe that outlasted a tick, at once.
 * Times in the tables are milliseconds with the admission at 0; the functions take nanoseconds from
 * an arbitrary origin.
 */
class ProbeLoopTest {
  private static final long ADMITTED = 5_000_000_000L;

  @ParameterizedTest(name = "earliest {0} ms, period {1}, now {2}: wait {3}")
  @CsvSource({
    // started 300 ms after admission: the tick at 1000, 700 ms on
    "300, 1000, 300, 700",
    // started on a tick: asked at once
    "2000, 1000, 2000, 0",
    // a restart later in the pod's life keeps the pod's phase
    "7250, 1000, 7250, 750",
    // initialDelaySeconds 3 from a start at 300: the first tick from 3300, at 4000
    "3300, 1000, 300, 3700",
    // the tick came while the caller was late: at once, never negative
    "300, 1000, 1200, 0",
    // a 10 s period, started at 12.5 s: the tick at 20 s
    "12500, 10000, 12500, 7500",
    // a container started as the pod was taken on
    "0, 1000, 0, 0",
  })
  void firstProbeAtTheNextTickOfThePod(long earliestMs, long periodMs, long nowMs, long waitMs) {
    assertThat(ProbeLoop.firstTick(ADMITTED, at(earliestMs), ms(periodMs), at(nowMs)))
        .isEqualTo(ms(waitMs));
  }

  @ParameterizedTest(name = "began {0} ms, period {1}, ended {2}: wait {3}")
  @CsvSource({
    // a quick probe on the tick at 1000: the next tick
    "1000, 1000, 1050, 950",
    // a probe held 2.3 s from the tick at 1000: one more at once (the ticks it outlasted dropped)
    "1000, 1000, 3300, 0",
    // a probe triggered between ticks (readiness after startup): the pod's next tick
    "1400, 1000, 1450, 550",
    // triggered between ticks and outlasting the next one: at once
    "1400, 1000, 2100, 0",
    // a 10 s period
    "20000, 10000, 20100, 9900",
  })
  void nextProbeAtTheTickAfterTheLastBeganAtOnceIfPast(
      long beganMs, long periodMs, long endedMs, long waitMs) {
    assertThat(ProbeLoop.afterProbe(ADMITTED, ms(periodMs), at(beganMs), at(endedMs)))
        .isEqualTo(ms(waitMs));
  }

  @Test
  void aCancelledLoopProbesNoMore() throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicInteger probes = new AtomicInteger();
      CountDownLatch three = new CountDownLatch(3);
      ProbeLoop loop =
          new ProbeLoop(
              scheduler,
              System.nanoTime(),
              TimeUnit.MILLISECONDS.toNanos(10),
              () -> {
                probes.incrementAndGet();
                three.countDown();
              });
      loop.startAt(System.nanoTime());
      assertThat(three.await(10, TimeUnit.SECONDS)).isTrue();
      loop.cancel();
      // a probe that had begun as it was cancelled ends; nothing after it
      scheduler.submit(() -> {}).get();
      int after = probes.get();
      scheduler.schedule(() -> {}, 50, TimeUnit.MILLISECONDS).get();
      assertThat(probes.get()).isEqualTo(after);
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static long ms(long millis) {
    return millis * 1_000_000L;
  }

  private static long at(long millis) {
    return ADMITTED + ms(millis);
  }
}
