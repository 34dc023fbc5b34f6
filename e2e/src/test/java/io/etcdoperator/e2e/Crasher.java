package io.etcdoperator.e2e;

import io.etcdoperator.operator.act.CallHook;
import io.etcdoperator.sandbox.Sandbox;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Kills the operator right after a chosen call: armed with a predicate on call labels and a count,
 * it lets {@code skip} matching calls pass, and on the next one stops the operator (from another
 * thread, as its pod dying would) and throws, so that the reconcile that made the call makes no
 * other. Disarms itself after firing. {@link #awaitStopped} waits for the stop to finish.
 */
final class Crasher implements CallHook {
  /** Thrown from the operator's reconcile thread to end the reconcile at once. */
  static final class Crash extends RuntimeException {
    Crash(String call) {
      super("crash injected after " + call, null, false, false);
    }
  }

  private final Sandbox sandbox;
  private Predicate<String> armed;
  private int skip;
  private String fired;
  private CountDownLatch stopped = new CountDownLatch(0);

  Crasher(Sandbox sandbox) {
    this.sandbox = sandbox;
  }

  /** Fires after the {@code skip + 1}-th call that {@code target} accepts. */
  synchronized void arm(Predicate<String> target, int skip) {
    this.armed = target;
    this.skip = skip;
    this.fired = null;
  }

  synchronized void disarm() {
    armed = null;
    fired = null;
  }

  /** The call it fired after since it was last armed or disarmed, or null. */
  synchronized String fired() {
    return fired;
  }

  @Override
  public void after(String call) {
    synchronized (this) {
      if (armed == null || !armed.test(call)) {
        return;
      }
      if (skip > 0) {
        skip--;
        return;
      }
      armed = null;
      fired = call;
      CountDownLatch latch = new CountDownLatch(1);
      stopped = latch;
      Thread stopper =
          new Thread(
              () -> {
                try {
                  sandbox.faults().stopOperator();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                } finally {
                  latch.countDown();
                }
              },
              "crash-after-call");
      stopper.start();
    }
    throw new Crash(call);
  }

  /** Waits until the stop that the last firing started has finished. */
  void awaitStopped(Duration atMost) throws InterruptedException {
    CountDownLatch latch;
    synchronized (this) {
      latch = stopped;
    }
    if (!latch.await(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the operator did not stop within " + atMost);
    }
  }
}
