package io.etcdoperator.sandbox.e2e;

import io.etcdoperator.operator.CallHook;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A witness of what the operator did: every mutating call it made, in order (told by its {@link
 * CallHook}). "The operator removed and deleted nothing" is then a list that is empty, not a
 * belief.
 */
final class Calls implements CallHook {
  private final List<String> calls = new ArrayList<>();

  private Predicate<String> trigger;
  private Runnable action;

  @Override
  public void after(String call) {
    Runnable run = null;
    synchronized (this) {
      calls.add(call);
      if (trigger != null && trigger.test(call)) {
        run = action;
        trigger = null;
        action = null;
      }
    }
    if (run != null) {
      // Off the operator's thread: the action may stop the operator, which waits for that thread.
      Thread t = new Thread(run, "after " + call);
      t.setDaemon(true);
      t.start();
    }
  }

  /**
   * Runs {@code then} once, in a thread of its own, right after the next call that matches: to stop
   * the operator between two chosen calls.
   */
  synchronized void onNext(Predicate<String> matching, Runnable then) {
    trigger = matching;
    action = then;
  }

  /** Whether an action is still waiting for its call. */
  synchronized boolean armed() {
    return trigger != null;
  }

  synchronized void disarm() {
    trigger = null;
    action = null;
  }

  /** A position in the record, to look at what came after it. */
  synchronized int mark() {
    return calls.size();
  }

  synchronized List<String> since(int mark) {
    return List.copyOf(calls.subList(mark, calls.size()));
  }

  /**
   * Calls since the mark that change membership or destroy or start something: every etcd call
   * (add, promote, remove, move leadership) and every deletion or pod creation in Kubernetes.
   */
  synchronized List<String> destructiveSince(int mark) {
    return since(mark).stream().filter(Calls::destructive).toList();
  }

  static boolean destructive(String call) {
    return call.startsWith("etcd ")
        || call.startsWith("k8s delete")
        || call.startsWith("k8s create Pod");
  }
}
