package io.etcdoperator.sandbox.kubelet;

import io.etcdoperator.sandbox.process.ProcessLauncher;
import io.etcdoperator.sandbox.process.Signals;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one container of a pod for the life of the pod, on its own thread.
 *
 * <p>The loop: resolve the container's command and environment (a missing ConfigMap or key leaves
 * it waiting with CreateContainerConfigError and retries after the back-off); start the process
 * (see {@link ProcessLauncher}); start its probes; wait for the process to exit, whatever the cause
 * (it crashed, a failed liveness or startup probe killed it, a fault killed it); record the exit as
 * the terminated state; then restart it if the pod's restartPolicy says so (Always: every exit;
 * OnFailure: a non-zero exit; Never: none), after a back-off as the kubelet's: the first restart at
 * once, then base, 2 x base, ... capped at the maximum, reset after a run of ten minutes without
 * exit. Each restart increments restartCount. The loop ends when the pod is stopped: the process
 * group gets SIGTERM, then SIGKILL after the grace period.
 *
 * <p>Probes: a startup probe runs first and holds back the others until it succeeds; liveness and
 * readiness then run every period, each on the pod's ticker as a kubelet's probe worker runs it
 * ({@link ProbeLoop}): the first probe of a started container comes anywhere within a period of its
 * start, and readiness alone is asked at once when startup succeeds (a kubelet triggers it when a
 * started container has no readiness result yet). failureThreshold consecutive failures of a
 * startup or liveness probe kill the container (SIGTERM, SIGKILL after the grace period), which the
 * loop then restarts; readiness turns the container ready after successThreshold consecutive
 * successes and unready after failureThreshold failures. Without a readiness probe a started
 * container is ready.
 */
final class ContainerRunner {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerRunner.class);
  private static final Duration STABLE_RUN = Duration.ofMinutes(10);

  private final PodWorker pod;
  private final Container container;
  private final Thread thread;
  private final Object lock = new Object();

  // guarded by lock
  private Process process;
  private ContainerState state;
  private ContainerState lastState;
  private int restartCount;
  private boolean ready;
  private boolean started;
  private boolean stopping;

  /** The loop has ended: the container will not run again (set before its last notice). */
  private boolean over;

  private String image;
  private final List<ProbeLoop> probes = new ArrayList<>();

  private final boolean init;

  ContainerRunner(PodWorker pod, Container container) {
    this(pod, container, false);
  }

  /**
   * @param init an init container: it runs to completion, is restarted only after a failure (and
   *     not with restartPolicy Never), and has no probes
   */
  ContainerRunner(PodWorker pod, Container container, boolean init) {
    this.init = init;
    this.pod = pod;
    this.container = container;
    this.image = container.getImage();
    this.state = waiting("ContainerCreating", null);
    this.thread = new Thread(this::loop, "container-" + pod.key() + "/" + container.getName());
    this.thread.setDaemon(true);
  }

  String name() {
    return container.getName();
  }

  void start() {
    thread.start();
  }

  /**
   * Stops for good: SIGTERM to the process group, SIGKILL after {@code grace}; waits for the
   * thread.
   */
  void stop(Duration grace) throws InterruptedException {
    Process p;
    synchronized (lock) {
      stopping = true;
      lock.notifyAll();
      p = process;
    }
    if (p != null && p.isAlive()) {
      terminate(p, grace);
    }
    thread.join(grace.plusSeconds(10).toMillis());
  }

  /**
   * Kills the process at once (SIGKILL to its group), as a crash would; the loop restarts it per
   * policy.
   */
  boolean kill() {
    Process p;
    synchronized (lock) {
      p = process;
    }
    return p != null && p.isAlive() && Signals.toGroup(p.pid(), "KILL");
  }

  /** Sends a signal (STOP, CONT) to the process group. */
  boolean signal(String sig) {
    Process p;
    synchronized (lock) {
      p = process;
    }
    return p != null && p.isAlive() && Signals.toGroup(p.pid(), sig);
  }

  /** Process id (= process group id) of the running process, or -1. */
  long pid() {
    synchronized (lock) {
      return process != null && process.isAlive() ? process.pid() : -1;
    }
  }

  boolean isAlive() {
    return thread.isAlive();
  }

  ContainerStatus status() {
    synchronized (lock) {
      return new ContainerStatusBuilder()
          .withName(container.getName())
          .withImage(image)
          .withImageID("sandbox://" + image)
          .withContainerID(process == null ? null : "sandbox://" + process.pid())
          .withRestartCount(restartCount)
          .withReady(ready)
          .withStarted(started)
          .withState(state)
          .withLastState(lastState == null ? new ContainerState() : lastState)
          .build();
    }
  }

  boolean ready() {
    synchronized (lock) {
      return ready;
    }
  }

  boolean running() {
    synchronized (lock) {
      return state.getRunning() != null;
    }
  }

  /** Whether the container has exited and will not be restarted. */
  boolean finished() {
    synchronized (lock) {
      return state.getTerminated() != null && over;
    }
  }

  /** Whether the container has exited with 0 and will not run again. */
  boolean succeeded() {
    synchronized (lock) {
      return finished() && state.getTerminated().getExitCode() == 0;
    }
  }

  private void loop() {
    int quickFailures = 0;
    int pulls = 0;
    try {
      while (true) {
        if (!pod.awaitNodeUp()) {
          return;
        }
        ContainerConfig config;
        try {
          config = pod.resolveImage(container);
        } catch (EtcdImages.ImageUnavailable e) {
          setState(waiting(pulls++ == 0 ? "ErrImagePull" : "ImagePullBackOff", e.getMessage()));
          if (!pause(pod.backoff(Math.max(quickFailures++, 1)))) {
            return;
          }
          continue;
        } catch (ContainerConfig.ConfigError e) {
          setState(waiting("CreateContainerConfigError", e.getMessage()));
          if (!pause(pod.backoff(Math.max(quickFailures++, 1)))) {
            return;
          }
          continue;
        }
        Instant startedAt = Instant.now();
        long logOffset = logSize();
        Process p;
        try {
          p = pod.launch(container, config);
        } catch (IOException e) {
          setState(waiting("RunContainerError", e.getMessage()));
          if (!pause(pod.backoff(Math.max(quickFailures++, 1)))) {
            return;
          }
          continue;
        }
        if (!ProcessLauncher.awaitExec(p, Duration.ofSeconds(10)) && p.isAlive()) {
          log("the container's setup did not finish within 10s");
        }
        if (!pod.nodeUp()) {
          // the node went down while it started: frozen with the others
          Signals.toGroup(p.pid(), "STOP");
        }
        synchronized (lock) {
          if (stopping) {
            process = p;
            Signals.toGroup(p.pid(), "KILL");
            break;
          }
          process = p;
          state =
              new ContainerStateBuilder()
                  .withNewRunning()
                  .withStartedAt(startedAt.toString())
                  .endRunning()
                  .build();
          started = container.getStartupProbe() == null;
          ready = false;
        }
        config.image().ifPresent(this::log);
        log("started pid " + p.pid() + ": " + String.join(" ", config.argv()));
        startProbes(p);
        pod.changed();
        int exit = waitFor(p);
        stopProbes();
        Instant finishedAt = Instant.now();
        ContainerState terminated =
            new ContainerStateBuilder()
                .withNewTerminated()
                .withExitCode(exit)
                .withReason(exit == 0 ? "Completed" : "Error")
                .withMessage(terminationMessage(exit, logOffset))
                .withStartedAt(startedAt.toString())
                .withFinishedAt(finishedAt.toString())
                .withContainerID("sandbox://" + p.pid())
                .endTerminated()
                .build();
        boolean restart;
        synchronized (lock) {
          state = terminated;
          ready = false;
          restart =
              !stopping && (init ? exit != 0 && pod.shouldRestart(exit) : pod.shouldRestart(exit));
        }
        log("exited with " + exit + (restart ? ", will restart" : ""));
        pod.changed();
        if (!restart) {
          return;
        }
        quickFailures =
            Duration.between(startedAt, finishedAt).compareTo(STABLE_RUN) > 0
                ? 0
                : quickFailures + 1;
        Duration delay = quickFailures <= 1 ? Duration.ZERO : pod.backoff(quickFailures - 1);
        synchronized (lock) {
          lastState = terminated;
          if (!delay.isZero()) {
            state =
                waiting(
                    "CrashLoopBackOff",
                    "back-off "
                        + delay.toSeconds()
                        + "s restarting failed container="
                        + container.getName());
          }
        }
        pod.changed();
        if (!pause(delay)) {
          return;
        }
        pod.awaitNotHeld();
        synchronized (lock) {
          restartCount++;
        }
      }
    } finally {
      stopProbes();
      // Over before the last notice, so that the status computed for it already counts the
      // container as finished (the thread itself is still alive here).
      synchronized (lock) {
        over = true;
      }
      pod.changed();
    }
  }

  private int waitFor(Process p) {
    while (true) {
      try {
        return p.waitFor();
      } catch (InterruptedException e) {
        // only stop() ends the loop, through the process's exit
      }
    }
  }

  /** Waits for {@code d} unless stopped; false when stopped. */
  private boolean pause(Duration d) {
    long deadline = System.nanoTime() + d.toNanos();
    synchronized (lock) {
      while (!stopping) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, left);
        } catch (InterruptedException e) {
          return false;
        }
      }
      return false;
    }
  }

  private void startProbes(Process p) {
    if (init) {
      return;
    }
    long startedAt = System.nanoTime();
    Probe startup = container.getStartupProbe();
    if (startup != null) {
      loop(startup, new ProbeState(ProbeKind.STARTUP, startedAt), p)
          .startAtTick(afterInitialDelay(startup, startedAt));
    } else {
      startSteadyProbes(p, startedAt);
    }
  }

  private void startSteadyProbes(Process p, long startedAt) {
    Probe liveness = container.getLivenessProbe();
    if (liveness != null) {
      loop(liveness, new ProbeState(ProbeKind.LIVENESS, startedAt), p)
          .startAtTick(afterInitialDelay(liveness, startedAt));
    }
    Probe readiness = container.getReadinessProbe();
    if (readiness != null) {
      loop(readiness, new ProbeState(ProbeKind.READINESS, startedAt), p)
          .startAt(afterInitialDelay(readiness, startedAt));
    } else {
      synchronized (lock) {
        ready = true;
      }
      pod.changed();
    }
  }

  private enum ProbeKind {
    STARTUP,
    LIVENESS,
    READINESS
  }

  private static final class ProbeState {
    final ProbeKind kind;

    /** When the container this probe asks started ({@link System#nanoTime}). */
    final long startedAt;

    int successes;
    int failures;

    ProbeState(ProbeKind kind, long startedAt) {
      this.kind = kind;
      this.startedAt = startedAt;
    }
  }

  /** When the container started at {@code startedAt} has run the probe's initialDelaySeconds. */
  private static long afterInitialDelay(Probe probe, long startedAt) {
    return startedAt + secondsToNanos(probe.getInitialDelaySeconds());
  }

  private static long periodOf(Probe probe) {
    return secondsToNanos(Prober.positive(probe.getPeriodSeconds(), 10));
  }

  private static long secondsToNanos(Integer seconds) {
    return TimeUnit.SECONDS.toNanos(seconds == null ? 0 : seconds);
  }

  /**
   * The probe's loop on the pod's ticker, registered to be cancelled with the others; not started.
   */
  private ProbeLoop loop(Probe probe, ProbeState ps, Process p) {
    ProbeLoop loop =
        new ProbeLoop(
            pod.probeScheduler(), pod.admittedAt(), periodOf(probe), () -> probeOnce(probe, ps, p));
    synchronized (lock) {
      probes.add(loop);
    }
    return loop;
  }

  private void probeOnce(Probe probe, ProbeState ps, Process p) {
    if (!p.isAlive() || !pod.nodeUp()) {
      return;
    }
    Prober.Result r = pod.prober().run(probe, container, pod.podIp(), p.pid());
    int successThreshold = Prober.positive(probe.getSuccessThreshold(), 1);
    int failureThreshold = Prober.positive(probe.getFailureThreshold(), 3);
    if (r.success()) {
      ps.successes++;
      ps.failures = 0;
    } else {
      ps.failures++;
      ps.successes = 0;
      if (ps.failures == 1 || ps.failures == failureThreshold) {
        log(ps.kind.name().toLowerCase() + " probe failed: " + r.message());
      }
    }
    switch (ps.kind) {
      case STARTUP -> {
        if (ps.successes >= 1) {
          synchronized (lock) {
            if (process != p) {
              return;
            }
            started = true;
          }
          cancelProbes();
          startSteadyProbes(p, ps.startedAt);
          pod.changed();
        } else if (ps.failures >= failureThreshold) {
          log("startup probe failed " + ps.failures + " times, killing the container");
          cancelProbes();
          terminate(p, pod.grace(probe));
        }
      }
      case LIVENESS -> {
        if (ps.failures >= failureThreshold) {
          log("liveness probe failed " + ps.failures + " times, killing the container");
          cancelProbes();
          terminate(p, pod.grace(probe));
        }
      }
      case READINESS -> {
        boolean changed = false;
        synchronized (lock) {
          if (process != p) {
            return;
          }
          if (!ready && ps.successes >= successThreshold) {
            ready = true;
            changed = true;
          } else if (ready && ps.failures >= failureThreshold) {
            ready = false;
            changed = true;
          }
        }
        if (changed) {
          pod.changed();
        }
      }
    }
  }

  private void cancelProbes() {
    synchronized (lock) {
      probes.forEach(ProbeLoop::cancel);
      probes.clear();
    }
  }

  private void stopProbes() {
    cancelProbes();
  }

  private void terminate(Process p, Duration grace) {
    Signals.toGroup(p.pid(), "TERM");
    Signals.toGroup(p.pid(), "CONT");
    try {
      if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        Signals.toGroup(p.pid(), "KILL");
        p.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Signals.toGroup(p.pid(), "KILL");
      Thread.currentThread().interrupt();
    }
  }

  private void setState(ContainerState s) {
    synchronized (lock) {
      state = s;
    }
    pod.changed();
  }

  private static ContainerState waiting(String reason, String message) {
    return new ContainerStateBuilder()
        .withNewWaiting()
        .withReason(reason)
        .withMessage(message)
        .endWaiting()
        .build();
  }

  private long logSize() {
    try {
      Path log = pod.logFile(container);
      return Files.exists(log) ? Files.size(log) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * The termination message, as the kubelet writes it: with {@code FallbackToLogsOnError}, when the
   * container failed, the tail of what it printed (its last 80 lines, at most 2048 bytes). A
   * message the container wrote to its termination message file ({@code terminationMessagePath}, a
   * file of the pod bind-mounted there, emptied before each start) comes first, as on a kubelet.
   */
  private String terminationMessage(int exit, long logOffset) {
    String written = pod.terminationMessage(container);
    if (!written.isEmpty()) {
      return written;
    }
    if (exit == 0 || !"FallbackToLogsOnError".equals(container.getTerminationMessagePolicy())) {
      return null;
    }
    try {
      byte[] all = Files.readAllBytes(pod.logFile(container));
      String output =
          new String(
              all,
              (int) Math.min(logOffset, all.length),
              (int) Math.max(0, all.length - logOffset),
              StandardCharsets.UTF_8);
      return TerminationMessage.fromLog(output);
    } catch (IOException e) {
      return null;
    }
  }

  private void log(String line) {
    LOG.debug("{}/{}: {}", pod.key(), container.getName(), line);
    try {
      Files.writeString(
          pod.logFile(container),
          "[sandbox " + Instant.now() + "] " + line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      // the log is best effort
    }
  }
}
