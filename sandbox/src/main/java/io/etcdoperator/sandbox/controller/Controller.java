package io.etcdoperator.sandbox.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A level-based control loop on one thread: {@link #reconcile()} looks at the whole world and acts,
 * whenever a watched kind changes and at least every resync period. Requests to run coalesce, so a
 * burst of events costs one pass; and a pass asked for during the last one starts no sooner than
 * that pass took after it ended, so that a controller whose pass lists thousands of objects leaves
 * the API server half its time for everyone else (a few milliseconds with a test's few objects).
 */
public abstract class Controller implements AutoCloseable {
  protected final Logger log = LoggerFactory.getLogger(getClass());
  protected final KubernetesClient client;
  private final Thread thread;
  private final Duration resync;
  private final List<Watch> watches = new ArrayList<>();
  private final Object lock = new Object();
  private boolean wanted = true;
  private volatile boolean closed;

  protected Controller(KubernetesClient client, String name, Duration resync) {
    this.client = client;
    this.resync = resync;
    this.thread = new Thread(this::loop, name);
    this.thread.setDaemon(true);
  }

  /** One pass over everything. */
  protected abstract void reconcile();

  /** Watches a kind so that its changes trigger a pass. */
  protected <T> void watch(Function<Watcher<T>, Watch> starter) {
    watches.add(
        starter.apply(
            new Watcher<T>() {
              @Override
              public void eventReceived(Action action, T resource) {
                trigger();
              }

              @Override
              public void onClose(WatcherException cause) {
                // the resync keeps the loop going
              }
            }));
  }

  public void start() {
    thread.start();
  }

  /**
   * Syncs each object not being deleted; a conflict, a server error or a lost connection asks for
   * another pass at once, any other refusal waits for the next.
   */
  protected <T extends HasMetadata> void syncEach(List<T> objects, Consumer<T> sync) {
    for (T o : objects) {
      if (o.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      try {
        sync.accept(o);
      } catch (KubernetesClientException e) {
        log.debug("{} {} not synced: {}", o.getKind(), o.getMetadata().getName(), e.getMessage());
        if (e.getCode() == 409 || e.getCode() >= 500 || e.getCode() <= 0) {
          trigger();
        }
      }
    }
  }

  /** Makes {@code owner} the controlling owner of the object {@code r} names; the object after. */
  protected <T extends HasMetadata> T adopt(Resource<T> r, HasMetadata owner) {
    return r.edit(
        x -> {
          log.info(
              "{} {} adopts {} {}",
              owner.getKind(),
              owner.getMetadata().getName(),
              x.getKind(),
              x.getMetadata().getName());
          List<OwnerReference> refs = new ArrayList<>(x.getMetadata().getOwnerReferences());
          refs.add(StatefulSetController.owner(owner, true));
          x.getMetadata().setOwnerReferences(refs);
          return x;
        });
  }

  /** Asks for a pass soon. */
  public void trigger() {
    synchronized (lock) {
      wanted = true;
      lock.notifyAll();
    }
  }

  private void loop() {
    while (!closed) {
      synchronized (lock) {
        if (!wanted) {
          try {
            lock.wait(resync.toMillis());
          } catch (InterruptedException e) {
            return;
          }
        }
        wanted = false;
      }
      if (closed) {
        return;
      }
      long started = System.nanoTime();
      try {
        reconcile();
      } catch (RuntimeException e) {
        if (!closed) {
          log.debug("pass failed, next one retries: {}", e.toString());
        }
      }
      long took = System.nanoTime() - started;
      if (took > MIN_PAUSE_NANOS) {
        try {
          TimeUnit.NANOSECONDS.sleep(took);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** Passes shorter than this are followed at once by the next one asked for. */
  private static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  @Override
  public void close() {
    closed = true;
    watches.forEach(Watch::close);
    thread.interrupt();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
