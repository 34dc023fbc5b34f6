package io.etcdoperator.sandbox.kubelet;

import io.etcdoperator.sandbox.fake.FakeEtcd;
import io.etcdoperator.sandbox.process.ProcessLauncher;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pod (one uid) on its node, from admission to termination, on its own thread. While the node
 * is down nothing starts or restarts (each step waits for the node to be up again).
 *
 * <p>Start: wait until no earlier pod of the same namespace and name still has processes (a pod
 * deleted and recreated under its name never overlaps its predecessor on the same volume); take a
 * fresh address; prepare the volumes (see {@link Volumes}); publish the pod's address to the
 * sandbox's DNS; then run every container with a {@link ContainerRunner}. Stop: stop the containers
 * (SIGTERM, SIGKILL after the grace period), withdraw the address from DNS, release it and delete
 * the pod's own directory (emptyDir volumes die with the pod; PVC directories stay).
 *
 * <p>Status: phase (Pending until every container has started once; Running while any runs or will
 * restart; Succeeded or Failed when all have exited for good), podIP, the conditions PodScheduled,
 * Initialized, ContainersReady and Ready, and every container's status. The kubelet writes it to
 * the API whenever it changes.
 */
final class PodWorker {
  private static final Logger LOG = LoggerFactory.getLogger(PodWorker.class);

  private final Kubelet kubelet;
  private final Pod pod;
  private final String key;
  private final Thread thread;
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final Instant created = Instant.now();
  private final Map<String, ContainerRunner> runners = new LinkedHashMap<>();
  private final Map<String, ContainerRunner> initRunners = new LinkedHashMap<>();
  private volatile String podIp;
  private volatile Volumes volumes;
  private volatile String pendingReason = "ContainerCreating";
  private volatile String pendingMessage;
  private volatile boolean stopping;
  private volatile boolean killed;
  private final Map<String, String> transitions = new LinkedHashMap<>();
  private final Object hold = new Object();
  private boolean held;

  /**
   * When the kubelet took the pod on ({@link System#nanoTime}): a kubelet's probe workers start
   * then and tick every period from then on, whenever the container starts or restarts.
   */
  private final long admittedAt = System.nanoTime();

  PodWorker(Kubelet kubelet, Pod pod) {
    this.kubelet = kubelet;
    this.pod = pod;
    this.key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    this.thread = new Thread(this::run, "pod-" + key);
    this.thread.setDaemon(true);
  }

  String key() {
    return key;
  }

  String uid() {
    return pod.getMetadata().getUid();
  }

  Pod pod() {
    return pod;
  }

  String podIp() {
    return podIp;
  }

  /** The node the pod is bound to. */
  String node() {
    return pod.getSpec().getNodeName();
  }

  /** Whether the pod's node's kubelet acts now (it does nothing for the pod while it is down). */
  boolean nodeUp() {
    return kubelet.up(node());
  }

  /**
   * Waits while the pod's node is down; false if the pod was stopped meanwhile or the node is gone.
   */
  boolean awaitNodeUp() {
    while (!kubelet.up(node())) {
      if (stopping || !kubelet.nodes().contains(node())) {
        return false;
      }
      try {
        if (stopRequested.await(100, TimeUnit.MILLISECONDS)) {
          return false;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return !stopping;
  }

  /** Stops the pod with no grace period: its processes get SIGKILL (its node is gone). */
  void kill() {
    killed = true;
    requestStop();
  }

  void start() {
    thread.start();
  }

  /** Asks the pod to stop; returns at once. */
  void requestStop() {
    stopping = true;
    stopRequested.countDown();
  }

  boolean isTerminated() {
    return terminated.getCount() == 0;
  }

  /** Waits until every process of the pod is gone. */
  boolean awaitTermination(Duration timeout) throws InterruptedException {
    return terminated.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  boolean stopping() {
    return stopping;
  }

  ContainerRunner container(String name) {
    synchronized (runners) {
      if (name == null) {
        return runners.values().stream().findFirst().orElse(null);
      }
      return runners.get(name);
    }
  }

  List<ContainerRunner> containers() {
    synchronized (runners) {
      return new ArrayList<>(runners.values());
    }
  }

  Volumes volumes() {
    return volumes;
  }

  private void run() {
    try {
      if (!kubelet.awaitPredecessor(this)) {
        return;
      }
      while (!stopping) {
        if (!awaitNodeUp()) {
          return;
        }
        try {
          volumes = Volumes.prepare(kubelet, pod);
          break;
        } catch (Volumes.NotReady e) {
          pendingReason = "ContainerCreating";
          pendingMessage = e.getMessage();
          changed();
          if (stopRequested.await(100, TimeUnit.MILLISECONDS)) {
            return;
          }
        }
      }
      if (stopping || !awaitNodeUp()) {
        return;
      }
      podIp = kubelet.addresses().acquire();
      kubelet.dns().refresh();
      if (!runInitContainers()) {
        changed();
        stopRequested.await();
        return;
      }
      synchronized (runners) {
        for (Container c : pod.getSpec().getContainers()) {
          runners.put(c.getName(), new ContainerRunner(this, c));
        }
        if (!stopping) {
          runners.values().forEach(ContainerRunner::start);
        }
      }
      changed();
      stopRequested.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      LOG.warn("pod {} failed to start", key, e);
      pendingReason = "CreatePodSandboxError";
      pendingMessage = String.valueOf(e.getMessage());
      changed();
      try {
        stopRequested.await();
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    } finally {
      shutdown();
    }
  }

  /**
   * Runs the init containers one after the other, each to a successful exit; false when one failed
   * for good (restartPolicy Never) or the pod was stopped meanwhile.
   */
  private boolean runInitContainers() throws InterruptedException {
    List<Container> inits =
        pod.getSpec().getInitContainers() == null ? List.of() : pod.getSpec().getInitContainers();
    for (Container c : inits) {
      ContainerRunner r = new ContainerRunner(this, c, true);
      synchronized (runners) {
        if (stopping) {
          return false;
        }
        initRunners.put(c.getName(), r);
        r.start();
      }
      changed();
      while (r.isAlive()) {
        if (stopRequested.await(100, TimeUnit.MILLISECONDS)) {
          return false;
        }
      }
      if (!r.succeeded()) {
        return false;
      }
    }
    return true;
  }

  private List<ContainerRunner> initContainers() {
    synchronized (runners) {
      return new ArrayList<>(initRunners.values());
    }
  }

  private void shutdown() {
    Duration grace = killed ? Duration.ZERO : Duration.ofSeconds(graceSeconds(null));
    for (ContainerRunner r : initContainers()) {
      try {
        r.stop(grace);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (ContainerRunner r : containers()) {
      try {
        r.stop(grace);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    String ip = podIp;
    podIp = null;
    kubelet.dns().refresh();
    if (ip != null) {
      kubelet.addresses().release(ip);
    }
    if (volumes != null) {
      volumes.deletePodDirectory();
    }
    terminated.countDown();
    kubelet.terminated(this);
  }

  /**
   * Kills every container and keeps them down while each claim directory of the pod is emptied;
   * then lets them restart. Returns the claims wiped.
   */
  List<String> wipeClaims() {
    Volumes v = volumes;
    if (v == null) {
      throw new IllegalArgumentException("pod " + key + " has no volumes yet");
    }
    synchronized (hold) {
      held = true;
    }
    try {
      containers().forEach(ContainerRunner::kill);
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (containers().stream().anyMatch(ContainerRunner::running)
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      if (containers().stream().anyMatch(ContainerRunner::running)) {
        throw new IllegalStateException("containers of " + key + " did not stop");
      }
      for (Path dir : v.claims().values()) {
        Volumes.emptyDirectory(dir);
      }
      return new ArrayList<>(v.claims().keySet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    } finally {
      synchronized (hold) {
        held = false;
        hold.notifyAll();
      }
    }
  }

  /**
   * Kills every container and keeps each from restarting for {@code down}: a crash whose restart
   * waits, as one in back-off does. False when no container ran.
   */
  boolean crash(Duration down) {
    synchronized (hold) {
      held = true;
    }
    boolean any = false;
    for (ContainerRunner r : containers()) {
      any |= r.kill();
    }
    CompletableFuture.delayedExecutor(down.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              synchronized (hold) {
                held = false;
                hold.notifyAll();
              }
            });
    return any;
  }

  /** Blocks a restart while {@link #wipeClaims()} or {@link #crash} holds it (30 s at most). */
  void awaitNotHeld() {
    synchronized (hold) {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (held && !stopping && System.nanoTime() < deadline) {
        try {
          hold.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  // --- services for ContainerRunner ---

  ContainerConfig resolve(Container c) throws ContainerConfig.ConfigError {
    checkNonRoot(c);
    ContainerConfig cfg =
        ContainerConfig.resolve(pod, c, podIp, kubelet.etcdImages(), kubelet.objects());
    cfg = withServiceEnv(cfg);
    if (OperatorImage.runs(c)) {
      cfg = listenOnPodAddress(cfg);
    }
    if (cfg.etcd()) {
      List<String> args = ListenUrls.rewriteArgs(cfg.argv().subList(1, cfg.argv().size()), podIp);
      Map<String, String> env = new LinkedHashMap<>(cfg.env());
      ListenUrls.rewriteEnv(env, args, podIp);
      List<String> argv = new ArrayList<>();
      argv.add(cfg.argv().get(0));
      argv.addAll(args);
      return new ContainerConfig(argv, env, true, cfg.image());
    }
    return cfg;
  }

  /**
   * The variables a kubelet gives every container before its own: where the API server is ({@code
   * KUBERNETES_SERVICE_HOST} and {@code _PORT}, and the Docker-link style {@code KUBERNETES_PORT*}
   * ones), as in-cluster clients find it.
   */
  private ContainerConfig withServiceEnv(ContainerConfig cfg) {
    Kubelet.ApiAccess api = kubelet.apiAccess();
    if (api == null) {
      return cfg;
    }
    Map<String, String> env = new LinkedHashMap<>();
    String tcp = "tcp://" + api.host() + ":" + api.port();
    env.put("KUBERNETES_SERVICE_HOST", api.host());
    env.put("KUBERNETES_SERVICE_PORT", String.valueOf(api.port()));
    env.put("KUBERNETES_SERVICE_PORT_HTTPS", String.valueOf(api.port()));
    env.put("KUBERNETES_PORT", tcp);
    env.put("KUBERNETES_PORT_443_TCP", tcp);
    env.put("KUBERNETES_PORT_443_TCP_PROTO", "tcp");
    env.put("KUBERNETES_PORT_443_TCP_PORT", String.valueOf(api.port()));
    env.put("KUBERNETES_PORT_443_TCP_ADDR", api.host());
    env.putAll(cfg.env());
    return new ContainerConfig(cfg.argv(), env, cfg.etcd(), cfg.image());
  }

  /**
   * The operator's {@code run} listens on every address by default (its probes' and metrics' port);
   * pods here share the machine's network, each on its own address, so it is told its pod's
   * address, as etcd's listen URLs are rewritten ({@link ListenUrls}), unless it was given one.
   */
  private ContainerConfig listenOnPodAddress(ContainerConfig cfg) {
    List<String> argv = cfg.argv();
    int run = argv.indexOf("run");
    if (run < 0 || argv.stream().anyMatch(a -> a.startsWith("--http-host"))) {
      return cfg;
    }
    List<String> out = new ArrayList<>(argv);
    out.add(run + 1, "--http-host=" + podIp);
    return new ContainerConfig(out, cfg.env(), cfg.etcd(), cfg.image());
  }

  /** The container's config as it runs here: the operator's image as this JVM's classes. */
  ContainerConfig resolveImage(Container c) throws ContainerConfig.ConfigError {
    ContainerConfig cfg = resolve(c);
    if (OperatorImage.runs(c)) {
      // the restore agent runs etcd's own tools: those of the etcd this pod's members run
      Optional<String> tools = etcdToolsDir();
      if (tools.isPresent()) {
        Map<String, String> env = new LinkedHashMap<>(cfg.env());
        env.putIfAbsent("ETCD_TOOLS_DIR", tools.get());
        return new ContainerConfig(cfg.argv(), env, false, cfg.image());
      }
    }
    return cfg;
  }

  /** The bin directory of the etcd the pod's etcd container runs (its image's version). */
  private Optional<String> etcdToolsDir() {
    for (Container c : pod.getSpec().getContainers()) {
      if ("etcd".equals(c.getName())) {
        try {
          return Optional.of(kubelet.etcdImages().resolve(c.getImage()).bin().toString());
        } catch (EtcdImages.ImageUnavailable e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  Process launch(Container c, ContainerConfig cfg) throws IOException {
    List<ProcessLauncher.Mount> mounts = new ArrayList<>();
    if (c.getVolumeMounts() != null) {
      for (VolumeMount m : c.getVolumeMounts()) {
        mounts.add(volumes.mount(m));
      }
    }
    if (!cfg.etcd()) {
      mounts.add(
          new ProcessLauncher.Mount(
              volumes.terminationFile(c.getName()), terminationMessagePath(c), false));
    }
    String hostname =
        pod.getSpec().getHostname() != null
            ? pod.getSpec().getHostname()
            : pod.getMetadata().getName();
    FakeEtcd fake = kubelet.fakeEtcd();
    if (cfg.etcd() && fake != null) {
      return fakeEtcd(fake, c, cfg, hostname, mounts);
    }
    return ProcessLauncher.start(processSpec(cfg.argv(), c, cfg, hostname, mounts));
  }

  private ProcessLauncher.Spec processSpec(
      List<String> argv,
      Container c,
      ContainerConfig cfg,
      String hostname,
      List<ProcessLauncher.Mount> mounts) {
    return new ProcessLauncher.Spec(
        argv,
        cfg.env(),
        hostname,
        kubelet.dns().podHostsFile(this),
        kubelet.dns().resolvConf(this),
        mounts,
        c.getWorkingDir(),
        logFile(c),
        kubelet.config().tag(),
        runAs(c));
  }

  /**
   * An etcd container answered by the load generator (benchmarks only): a process that only waits
   * stands for it, so that the kubelet starts, kills, freezes and restarts it as any other, and the
   * generator's member lives as long as that process, frozen while it is stopped (SIGSTOP).
   */
  private Process fakeEtcd(
      FakeEtcd fake,
      Container c,
      ContainerConfig cfg,
      String hostname,
      List<ProcessLauncher.Mount> mounts)
      throws IOException {
    Process p =
        ProcessLauncher.start(processSpec(List.of("sleep", "infinity"), c, cfg, hostname, mounts));
    long pid = p.pid();
    Path stat = Path.of("/proc", String.valueOf(pid), "stat");
    FakeEtcd.Member member;
    try {
      member = fake.start(cfg.argv(), cfg.env(), () -> stopped(stat));
    } catch (IOException | RuntimeException e) {
      p.destroyForcibly();
      throw e;
    }
    p.onExit().thenRun(member::stop);
    return p;
  }

  /** Whether the process of this {@code /proc/<pid>/stat} is stopped (SIGSTOP). */
  private static boolean stopped(Path stat) {
    try {
      String s = Files.readString(stat);
      int end = s.lastIndexOf(')');
      return end > 0 && end + 2 < s.length() && s.charAt(end + 2) == 'T';
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Whom the container runs as, as a kubelet reads the security contexts (the container's over the
   * pod's): runAsUser and runAsGroup (root and group 0 when unset), fsGroup and supplementalGroups
   * as supplementary groups, no_new_privs when allowPrivilegeEscalation is false. Null: nothing
   * asked, root as before.
   */
  ProcessLauncher.RunAs runAs(Container c) {
    var psc = pod.getSpec().getSecurityContext();
    var sc = c.getSecurityContext();
    Long uid =
        sc != null && sc.getRunAsUser() != null
            ? sc.getRunAsUser()
            : psc == null ? null : psc.getRunAsUser();
    Long gid =
        sc != null && sc.getRunAsGroup() != null
            ? sc.getRunAsGroup()
            : psc == null ? null : psc.getRunAsGroup();
    List<Long> groups = new ArrayList<>();
    if (psc != null && psc.getFsGroup() != null) {
      groups.add(psc.getFsGroup());
    }
    if (psc != null && psc.getSupplementalGroups() != null) {
      psc.getSupplementalGroups().stream().filter(g -> !groups.contains(g)).forEach(groups::add);
    }
    boolean noNewPrivs = sc != null && Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation());
    if (uid == null && gid == null && groups.isEmpty() && !noNewPrivs) {
      return null;
    }
    long user = uid == null ? 0 : uid;
    // The operator's image is this JVM's class path, whose jars (under root's home) an image would
    // ship readable by its user: a non-root container of it may read and search any file.
    List<String> caps = user != 0 && OperatorImage.runs(c) ? List.of("dac_read_search") : List.of();
    return new ProcessLauncher.RunAs(user, gid == null ? 0 : gid, groups, noNewPrivs, caps);
  }

  /**
   * The kubelet's own refusal to start a container that must not run as root but would: {@code
   * runAsNonRoot} without a non-root {@code runAsUser} (an image's user is never known here, so it
   * counts as root, as the etcd images' user is).
   */
  private void checkNonRoot(Container c) throws ContainerConfig.ConfigError {
    var psc = pod.getSpec().getSecurityContext();
    var sc = c.getSecurityContext();
    Boolean nonRoot =
        sc != null && sc.getRunAsNonRoot() != null
            ? sc.getRunAsNonRoot()
            : psc == null ? null : psc.getRunAsNonRoot();
    if (!Boolean.TRUE.equals(nonRoot)) {
      return;
    }
    ProcessLauncher.RunAs as = runAs(c);
    String which =
        "(pod: \""
            + pod.getMetadata().getName()
            + "_"
            + pod.getMetadata().getNamespace()
            + "("
            + uid()
            + ")\", container: "
            + c.getName()
            + ")";
    if (as == null
        || (sc == null || sc.getRunAsUser() == null)
            && (psc == null || psc.getRunAsUser() == null)) {
      throw new ContainerConfig.ConfigError(
          "container has runAsNonRoot and image will run as root " + which);
    }
    if (as.uid() == 0) {
      throw new ContainerConfig.ConfigError(
          "container's runAsUser breaks non-root policy " + which);
    }
  }

  /** Where the container writes its termination message (default /dev/termination-log). */
  static String terminationMessagePath(Container c) {
    return c.getTerminationMessagePath() == null || c.getTerminationMessagePath().isBlank()
        ? "/dev/termination-log"
        : c.getTerminationMessagePath();
  }

  /** What the container wrote to its termination message file, at most 4096 bytes, or "". */
  String terminationMessage(Container c) {
    return volumes.readTermination(c.getName());
  }

  Path logFile(Container c) {
    return kubelet
        .config()
        .logDir()
        .resolve(
            pod.getMetadata().getNamespace()
                + "_"
                + pod.getMetadata().getName()
                + "_"
                + c.getName()
                + ".log");
  }

  boolean shouldRestart(int exitCode) {
    String policy = pod.getSpec().getRestartPolicy();
    if ("Never".equals(policy)) {
      return false;
    }
    if ("OnFailure".equals(policy)) {
      return exitCode != 0;
    }
    return true;
  }

  Duration backoff(int failures) {
    Duration d = kubelet.config().restartBackoff();
    for (int i = 1; i < failures && d.compareTo(kubelet.config().maxRestartBackoff()) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(kubelet.config().maxRestartBackoff()) > 0
        ? kubelet.config().maxRestartBackoff()
        : d;
  }

  Duration grace(Probe probe) {
    return Duration.ofSeconds(graceSeconds(probe));
  }

  private long graceSeconds(Probe probe) {
    Long g =
        probe != null && probe.getTerminationGracePeriodSeconds() != null
            ? probe.getTerminationGracePeriodSeconds()
            : pod.getSpec().getTerminationGracePeriodSeconds();
    long seconds = g == null ? 30 : g;
    return Math.min(seconds, kubelet.config().maxGracePeriod().toSeconds());
  }

  long admittedAt() {
    return admittedAt;
  }

  ScheduledExecutorService probeScheduler() {
    return kubelet.probeScheduler();
  }

  Prober prober() {
    return kubelet.prober();
  }

  void changed() {
    kubelet.podChanged(this);
  }

  // --- status ---

  PodStatus status() {
    List<ContainerStatus> statuses = new ArrayList<>();
    boolean allStartedOnce = true;
    boolean anyRunning = false;
    boolean allReady = true;
    boolean allFinished = true;
    boolean anyFailed = false;
    List<ContainerRunner> rs = containers();
    for (ContainerRunner r : rs) {
      ContainerStatus s = r.status();
      statuses.add(s);
      boolean everStarted =
          s.getState().getRunning() != null
              || s.getState().getTerminated() != null
              || s.getLastState().getTerminated() != null;
      allStartedOnce &= everStarted;
      anyRunning |= s.getState().getRunning() != null;
      allReady &= Boolean.TRUE.equals(s.getReady());
      allFinished &= r.finished();
      anyFailed |=
          s.getState().getTerminated() != null && s.getState().getTerminated().getExitCode() != 0;
    }
    if (rs.isEmpty()) {
      allStartedOnce = false;
      allReady = false;
      allFinished = false;
      for (Container c : pod.getSpec().getContainers()) {
        statuses.add(
            new ContainerStatusBuilder()
                .withName(c.getName())
                .withImage(c.getImage())
                .withReady(false)
                .withRestartCount(0)
                .withStarted(false)
                .withNewState()
                .withNewWaiting()
                .withReason(pendingReason)
                .withMessage(pendingMessage)
                .endWaiting()
                .endState()
                .build());
      }
    }
    List<ContainerStatus> initStatuses = new ArrayList<>();
    int inits =
        pod.getSpec().getInitContainers() == null ? 0 : pod.getSpec().getInitContainers().size();
    boolean initialized = true;
    boolean initFailed = false;
    for (ContainerRunner r : initContainers()) {
      initStatuses.add(r.status());
      initialized &= r.succeeded();
      initFailed |= r.finished() && !r.succeeded();
    }
    initialized &= initStatuses.size() == inits;
    String phase;
    if (initFailed) {
      phase = "Failed";
    } else if (!initialized) {
      phase = "Pending";
    } else if (allFinished) {
      phase = anyFailed ? "Failed" : "Succeeded";
    } else if (allStartedOnce || anyRunning) {
      phase = "Running";
    } else {
      phase = "Pending";
    }
    boolean ready = allReady && !rs.isEmpty() && !allFinished;
    List<PodCondition> conditions = new ArrayList<>();
    conditions.add(condition("PodScheduled", true, null));
    conditions.add(
        condition("Initialized", initialized, initialized ? null : "ContainersNotInitialized"));
    conditions.add(condition("ContainersReady", ready, ready ? null : "ContainersNotReady"));
    conditions.add(condition("Ready", ready, ready ? null : "ContainersNotReady"));
    String ip = podIp;
    return new PodStatusBuilder()
        .withPhase(phase)
        .withPodIP(ip)
        .withPodIPs(ip == null ? List.of() : List.of(new PodIP(ip)))
        .withHostIP("127.0.0.1")
        .withStartTime(created.toString())
        .withQosClass("BestEffort")
        .withConditions(conditions)
        .withContainerStatuses(statuses)
        .withInitContainerStatuses(initStatuses)
        .build();
  }

  private PodCondition condition(String type, boolean value, String reason) {
    String status = value ? "True" : "False";
    String since;
    synchronized (transitions) {
      String previous = transitions.get(type);
      if (previous == null || !previous.startsWith(status + "@")) {
        transitions.put(type, status + "@" + Instant.now());
      }
      since = transitions.get(type).substring(status.length() + 1);
    }
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withLastTransitionTime(since)
        .build();
  }
}
