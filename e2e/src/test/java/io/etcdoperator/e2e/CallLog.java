package io.etcdoperator.e2e;

import io.etcdoperator.operator.act.CallHook;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The operator's calls that changed something, in order, with the time each returned: a {@link
 * CallHook} for end-to-end tests. Listeners see each call as it happens (to mark a writer's
 * timeline, or to stop the operator right after a chosen call).
 */
public final class CallLog implements CallHook {
  /** One call and when it returned. */
  public record Call(Instant at, String label) {}

  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final List<CallHook> listeners = new CopyOnWriteArrayList<>();

  @Override
  public void after(String call) {
    calls.add(new Call(Instant.now(), call));
    for (CallHook l : listeners) {
      l.after(call);
    }
  }

  /** Tells {@code listener} of every later call; it may throw to abort the reconcile. */
  public void listen(CallHook listener) {
    listeners.add(listener);
  }

  public void unlisten(CallHook listener) {
    listeners.remove(listener);
  }

  /** Every call so far. */
  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The calls after index {@code from} (a {@link #size()} taken earlier). */
  public List<Call> since(int from) {
    List<Call> all = calls();
    return new ArrayList<>(all.subList(Math.min(from, all.size()), all.size()));
  }

  /** The labels of the calls after index {@code from}. */
  public List<String> labelsSince(int from) {
    return since(from).stream().map(Call::label).toList();
  }

  /**
   * Whether a call changes membership or destroys or starts something: every etcd call (add,
   * promote, remove, move leadership) and every deletion or pod creation in Kubernetes.
   */
  public static boolean destructive(String label) {
    return label.startsWith("etcd ")
        || label.startsWith("k8s delete")
        || label.startsWith("k8s create Pod");
  }

  public int size() {
    return calls.size();
  }

  /** Prints the calls after index {@code from}, for the test's output. */
  public void print(int from, Consumer<String> out) {
    for (Call c : since(from)) {
      out.accept("  " + c.at() + " " + c.label());
    }
  }
}
