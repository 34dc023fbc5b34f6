package io.etcdoperator.sandbox.kubelet;

import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.sandbox.api.handlers.DeletionHandler;
import io.etcdoperator.sandbox.fake.FakeEtcd;
import io.etcdoperator.sandbox.net.AddressPool;
import io.etcdoperator.sandbox.net.BlackHole;
import io.etcdoperator.sandbox.net.PeerLinks;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelets of the sandbox's nodes, in one object: runs the pods bound to each node as local
 * processes, and keeps each node registered and its Lease renewed.
 *
 * <p>Algorithm, level-based: on every pod event and every resync, each pod in the API that is bound
 * ({@code spec.nodeName}) to a node whose kubelet is up, is not being deleted and has no worker
 * gets a {@link PodWorker}; a pod without a node is not started (it is Pending until the scheduler
 * binds it). Each worker on an up node whose pod (by uid) is gone from the API or marked for
 * deletion is asked to stop. A new worker for a namespace/name waits until the previous worker of
 * that name has terminated. Pod status is written by one writer thread, for the pod's uid only, and
 * only when it changed. The {@link ClusterDns} is refreshed whenever an address, a readiness, a
 * pod's labels or a Service change.
 *
 * <p>Nodes: at start each node is registered (a Node object with the hostname, os and zone labels)
 * and then, every {@link SandboxConfig#nodeLeaseRenewInterval()}, its Lease in {@code
 * kube-node-lease} is renewed and its status posted when its Ready condition is not True or was
 * last posted five minutes ago (a deleted Node object is registered again, as a kubelet does). A
 * node taken down ({@link #nodeDown}) is a kubelet that has stopped: its pods' processes are
 * frozen, and for its pods nothing happens at all (no Lease renewal, no status writes, no starts,
 * restarts or probes, no stops, no completion of terminations) until {@link #nodeUp}, after which
 * it acts on what changed meanwhile: every status is written again, and pods deleted meanwhile are
 * stopped and released. {@link #removeNode} kills the node's processes at once and forgets it.
 */
public final class Kubelet implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Kubelet.class);

  private final KubernetesClient client;
  private final SandboxConfig config;
  private final AddressPool addresses;
  private final ClusterDns dns;
  private final Prober prober;
  private final ScheduledExecutorService scheduler;
  private final ScheduledExecutorService probeScheduler;
  private final Map<String, PodWorker> workers = new ConcurrentHashMap<>();
  private final Set<String> dirty = new LinkedHashSet<>();
  private final Map<String, String> written = new ConcurrentHashMap<>();
  private final Thread statusWriter;
  private final Objects objects;
  private final EtcdImages etcdImages;
  private final FakeEtcd fakeEtcd;
  private SharedIndexInformer<Pod> podInformer;
  private SharedIndexInformer<Service> serviceInformer;
  private final AtomicBoolean refreshQueued = new AtomicBoolean();
  private volatile boolean closed;
  private final Set<String> nodes = new ConcurrentSkipListSet<>();
  private final Set<String> down = ConcurrentHashMap.newKeySet();
  private final Map<String, Instant> statusPosted = new ConcurrentHashMap<>();
  private String dnsAddress;
  private BlackHole blackHole;

  /**
   * Guards {@link #blackHole}, and only it: ClusterDns asks for the address while it holds its own
   * lock, and {@link #sync} (synchronized on the kubelet) refreshes ClusterDns, so taking the
   * kubelet's monitor here deadlocked a partition against a sync.
   */
  private final Object blackHoleLock = new Object();

  /**
   * Held by a heartbeat from its look at whether the node is up until its last request, and by
   * {@link #removeNode} while it forgets the node: a heartbeat that found its node up never posts
   * after the Node is deleted (its post would register the deleted Node again).
   */
  private final Object heartbeatLock = new Object();

  public Kubelet(
      KubernetesClient client, SandboxConfig config, String sandboxId, AddressPool addresses) {
    this.client = client;
    this.config = config;
    this.addresses = addresses;
    this.dns = new ClusterDns(sandboxId, config.dnsDir(), this::services, this::livePods);
    if (config.peerLinks()) {
      dns.usePeerLinks(new PeerLinks(addresses, dns::resolve));
    }
    this.prober = new Prober(dns::resolve);
    this.scheduler = daemonScheduler(8, "kubelet");
    // Probes apart, and many: a kubelet runs each probe on its own goroutine, and a probe may
    // wait its whole timeout (a frozen member, a readiness etcd holds until it has a leader). On
    // the kubelet's own threads they would hold back node heartbeats and other pods' probes.
    this.probeScheduler = daemonScheduler(32, "kubelet-probes");
    this.objects = new DirectObjects();
    this.nodes.addAll(config.nodeNames());
    this.etcdImages = EtcdImages.scan(config.etcdBinaries());
    this.fakeEtcd = config.fakeEtcd() ? new FakeEtcd() : null;
    LOG.info(
        "etcd images run the local versions {} (from {})",
        etcdImages.versions(),
        etcdImages.directory());
    this.statusWriter = new Thread(this::writeStatuses, "kubelet-status");
    this.statusWriter.setDaemon(true);
  }

  /** Starts the kubelet and the cluster DNS server (on a loopback address of its own). */
  public void start() throws IOException {
    dnsAddress = addresses.acquire();
    dns.startServer(dnsAddress);
    serviceInformer = client.services().inAnyNamespace().inform(new Handler<>(dns::refresh), 0);
    podInformer = client.pods().inAnyNamespace().inform(new Handler<>(this::sync), 0);
    // Secrets and ConfigMaps are read again each second rather than watched: two more watches on
    // the sandbox's shared client would queue its other requests behind them.
    scheduler.scheduleWithFixedDelay(this::queueVolumeRefresh, 1, 1, TimeUnit.SECONDS);
    statusWriter.start();
    for (String node : nodes) {
      NodeStatus.register(client, node);
      NodeStatus.renewLease(client, node, config.nodeMonitorGracePeriod());
    }
    scheduler.scheduleWithFixedDelay(
        this::sync, 0, config.resync().toMillis(), TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(
        this::heartbeats, 0, config.nodeLeaseRenewInterval().toMillis(), TimeUnit.MILLISECONDS);
  }

  // --- nodes ---

  /** The nodes this kubelet runs (deleted ones excluded). */
  public Set<String> nodes() {
    return Set.copyOf(nodes);
  }

  /** Whether the node's kubelet runs and acts. */
  public boolean up(String node) {
    return node != null && nodes.contains(node) && !down.contains(node);
  }

  private void heartbeats() {
    for (String node : nodes) {
      heartbeat(node);
    }
  }

  private void heartbeat(String node) {
    synchronized (heartbeatLock) {
      if (closed || !up(node)) {
        return;
      }
      try {
        NodeStatus.renewLease(client, node, config.nodeMonitorGracePeriod());
        Instant last = statusPosted.get(node);
        if (NodeStatus.post(client, node, last)) {
          statusPosted.put(node, Instant.now());
        }
      } catch (KubernetesClientException e) {
        LOG.debug("node {}: heartbeat failed: {}", node, e.getMessage());
      }
    }
  }

  /**
   * The node's kubelet stops: every process of its pods is frozen (SIGSTOP) and it does nothing for
   * them, nor renews its Lease, until {@link #nodeUp}.
   */
  public void nodeDown(String node) {
    requireNode(node);
    synchronized (this) {
      down.add(node);
    }
    for (PodWorker w : workers.values()) {
      if (node.equals(w.node())) {
        new PodHandle(w).freeze();
      }
    }
    LOG.info("node {} is down", node);
  }

  // --- volume attachment ---

  /**
   * How long a volume stays attached to a node that is down after its last pod there is gone, as
   * the attach/detach controller's maxWaitForUnmountDuration (6 minutes): its kubelet never says it
   * unmounted it.
   */
  static final Duration FORCE_DETACH_AFTER = Duration.ofMinutes(6);

  /** The node a ReadWriteOnce claim's volume is attached to, and when a down node lets it go. */
  private record Attachment(String node, Instant detachAt) {}

  /** By claim UID. */
  private final Map<String, Attachment> attachments = new ConcurrentHashMap<>();

  /**
   * Attaches the claim's volume to the pod's node, as the attach/detach controller does, or says
   * why it cannot (the pod waits in ContainerCreating, and the kubelet tries again). A volume that
   * only one node may use at a time (no ReadWriteMany or ReadOnlyMany access mode) is not attached
   * to a second node while a pod on another node still uses it (Terminating too), nor, when that
   * node is down, until 6 minutes after its last pod there was seen gone: the {@code Multi-Attach
   * error} of a real cluster.
   */
  synchronized Optional<String> attach(PersistentVolumeClaim claim, Pod pod) {
    List<String> modes =
        claim.getSpec() == null || claim.getSpec().getAccessModes() == null
            ? List.of()
            : claim.getSpec().getAccessModes();
    if (modes.isEmpty() || modes.contains("ReadWriteMany") || modes.contains("ReadOnlyMany")) {
      return Optional.empty();
    }
    String node = pod.getSpec().getNodeName();
    String volume = claim.getSpec().getVolumeName();
    String ns = pod.getMetadata().getNamespace();
    String claimName = claim.getMetadata().getName();
    List<String> users = new ArrayList<>();
    for (Pod other : podInformer == null ? List.<Pod>of() : podInformer.getStore().list()) {
      String phase = other.getStatus() == null ? null : other.getStatus().getPhase();
      if (ns.equals(other.getMetadata().getNamespace())
          && !other.getMetadata().getUid().equals(pod.getMetadata().getUid())
          && other.getSpec().getNodeName() != null
          && !other.getSpec().getNodeName().equals(node)
          && !"Succeeded".equals(phase)
          && !"Failed".equals(phase)
          && usesClaim(other, claimName)) {
        users.add(other.getMetadata().getName());
      }
    }
    if (!users.isEmpty()) {
      return Optional.of(
          "Multi-Attach error for volume \""
              + volume
              + "\" Volume is already used by pod(s) "
              + String.join(", ", users));
    }
    String uid = claim.getMetadata().getUid();
    Attachment held = attachments.get(uid);
    if (held != null && !held.node().equals(node) && isDown(held.node())) {
      Instant now = Instant.now();
      if (held.detachAt() == null) {
        held = new Attachment(held.node(), now.plus(FORCE_DETACH_AFTER));
        attachments.put(uid, held);
      }
      if (now.isBefore(held.detachAt())) {
        return Optional.of(
            "Multi-Attach error for volume \""
                + volume
                + "\" Volume is already exclusively attached to one node ("
                + held.node()
                + ", not ready) and can't be attached to another");
      }
    }
    attachments.put(uid, new Attachment(node, null));
    return Optional.empty();
  }

  private static boolean usesClaim(Pod pod, String claimName) {
    return pod.getSpec().getVolumes() != null
        && pod.getSpec().getVolumes().stream()
            .anyMatch(
                v ->
                    v.getPersistentVolumeClaim() != null
                        && claimName.equals(v.getPersistentVolumeClaim().getClaimName()));
  }

  /** Whether {@code node} is down ({@link #nodeDown}) and not up again. */
  public boolean isDown(String node) {
    return node != null && down.contains(node);
  }

  /**
   * The node's kubelet is back: its processes thawed, its Lease renewed and status posted, every
   * pod's status written again, and pods deleted meanwhile stopped.
   */
  public void nodeUp(String node) {
    requireNode(node);
    synchronized (this) {
      down.remove(node);
    }
    for (PodWorker w : workers.values()) {
      if (node.equals(w.node())) {
        new PodHandle(w).thaw();
        written.remove(w.uid());
        podChanged(w);
      }
    }
    statusPosted.remove(node);
    LOG.info("node {} is up", node);
    scheduler.execute(() -> heartbeat(node));
    scheduler.execute(this::sync);
  }

  /**
   * The node is gone: its processes are killed at once (no grace period) and it is forgotten. A
   * heartbeat of the node under way is let finish first, so that none posts after this returns.
   */
  public void removeNode(String node) {
    requireNode(node);
    List<PodWorker> gone = new ArrayList<>();
    synchronized (heartbeatLock) {
      synchronized (this) {
        nodes.remove(node);
        down.remove(node);
        for (PodWorker w : workers.values()) {
          if (node.equals(w.node())) {
            gone.add(w);
            w.kill();
          }
        }
      }
    }
    for (PodWorker w : gone) {
      try {
        w.awaitTermination(Duration.ofSeconds(15));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    LOG.info("node {} removed, {} pods killed", node, gone.size());
  }

  private void requireNode(String node) {
    if (!nodes.contains(node)) {
      throw new IllegalArgumentException("no node " + node + " (nodes: " + nodes() + ")");
    }
  }

  /** The cluster DNS the kubelet keeps. */
  public ClusterDns dns() {
    return dns;
  }

  SandboxConfig config() {
    return config;
  }

  /**
   * The load generator that answers etcd containers when the config asks for it ({@link
   * SandboxConfig#fakeEtcd}, benchmarks only), else null.
   */
  FakeEtcd fakeEtcd() {
    return fakeEtcd;
  }

  /** The etcd versions etcd images run here. */
  public EtcdImages etcdImages() {
    return etcdImages;
  }

  AddressPool addresses() {
    return addresses;
  }

  Prober prober() {
    return prober;
  }

  ScheduledExecutorService probeScheduler() {
    return probeScheduler;
  }

  private static ScheduledExecutorService daemonScheduler(int threads, String name) {
    return Executors.newScheduledThreadPool(
        threads,
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  /**
   * How pods reach the API server: the address in-cluster clients are given, and how a pod's
   * ServiceAccount token is made.
   *
   * @param host the address of {@code KUBERNETES_SERVICE_HOST}
   * @param port the port of {@code KUBERNETES_SERVICE_PORT}
   * @param tokens issues a bearer token for a ServiceAccount (namespace, name)
   */
  public record ApiAccess(String host, int port, TokenIssuer tokens) {}

  /** The TokenRequest API, as the kubelet calls it. */
  @FunctionalInterface
  public interface TokenIssuer {
    /** A token of the ServiceAccount that authenticates until {@code expires}. */
    String issue(String namespace, String serviceAccount, Instant expires);
  }

  /**
   * A token a pod holds, and when the kubelet renews it (at 80 % of its lifetime, as a real one).
   */
  record PodToken(String value, Instant renewAt) {}

  private volatile ApiAccess apiAccess;

  /** Set by the sandbox before pods run; without it pods get no API address and no token. */
  public void setApiAccess(ApiAccess access) {
    this.apiAccess = access;
  }

  ApiAccess apiAccess() {
    return apiAccess;
  }

  /**
   * A token for the pod's ServiceAccount, as a kubelet asks the TokenRequest API for one: it
   * expires after the seconds the volume asks for (or the sandbox's shorter {@link
   * SandboxConfig#tokenTtl}), and the kubelet writes a new one at 80 % of that. Unlike a real one,
   * it is not bound to the pod.
   */
  PodToken serviceAccountToken(String namespace, String serviceAccount, Long expirationSeconds) {
    ApiAccess api = apiAccess;
    if (api == null) {
      throw new IllegalStateException("the kubelet was given no API access to make tokens with");
    }
    Duration ttl = Duration.ofSeconds(expirationSeconds == null ? 3600 : expirationSeconds);
    if (config.tokenTtl() != null && config.tokenTtl().compareTo(ttl) < 0) {
      ttl = config.tokenTtl();
    }
    Instant now = Instant.now();
    String token =
        api.tokens()
            .issue(namespace, serviceAccount == null ? "default" : serviceAccount, now.plus(ttl));
    return new PodToken(token, now.plus(ttl.multipliedBy(4).dividedBy(5)));
  }

  /** Lookups of what pods reference, read fresh from the API. */
  Objects objects() {
    return objects;
  }

  /** Reads ConfigMaps, Secrets and claims. */
  interface Objects extends ContainerConfig.Objects {
    PersistentVolumeClaim claim(String namespace, String name);
  }

  private final class DirectObjects implements Objects {
    @Override
    public ConfigMap configMap(String namespace, String name) {
      return client.configMaps().inNamespace(namespace).withName(name).get();
    }

    @Override
    public Secret secret(String namespace, String name) {
      return client.secrets().inNamespace(namespace).withName(name).get();
    }

    @Override
    public PersistentVolumeClaim claim(String namespace, String name) {
      return client.persistentVolumeClaims().inNamespace(namespace).withName(name).get();
    }
  }

  /**
   * A Secret or ConfigMap changed: the configMap and secret volumes of every running pod are
   * written again where their content changed (one refresh at a time; changes during one queue the
   * next). A real kubelet does this on its sync period, within about a minute.
   */
  private void queueVolumeRefresh() {
    if (closed || !refreshQueued.compareAndSet(false, true)) {
      return;
    }
    scheduler.execute(
        () -> {
          refreshQueued.set(false);
          for (PodWorker w : workers.values()) {
            Volumes v = w.volumes();
            if (!up(w.node())) {
              continue;
            }
            if (v == null) {
              continue;
            }
            try {
              List<String> changed = v.refresh(this);
              if (!changed.isEmpty()) {
                LOG.info("pod {}: volumes {} updated", w.key(), changed);
              }
            } catch (IOException | RuntimeException e) {
              LOG.warn("pod {}: could not update its volumes", w.key(), e);
            }
          }
        });
  }

  // --- the pods of this node ---

  private synchronized void sync() {
    if (closed || podInformer == null) {
      return;
    }
    try {
      Map<String, Pod> inApi = new HashMap<>();
      for (Pod p : podInformer.getStore().list()) {
        inApi.put(p.getMetadata().getUid(), p);
      }
      for (PodWorker w : workers.values()) {
        if (!up(w.node())) {
          continue;
        }
        Pod p = inApi.get(w.uid());
        if ((p == null || p.getMetadata().getDeletionTimestamp() != null) && !w.stopping()) {
          LOG.debug("stopping pod {}", w.key());
          w.requestStop();
        }
      }
      Set<String> running = new HashSet<>(workers.keySet());
      for (Pod p : inApi.values()) {
        if (p.getMetadata().getDeletionTimestamp() != null
            && up(p.getSpec().getNodeName())
            && !running.contains(p.getMetadata().getUid())
            && p.getMetadata().getFinalizers().contains(DeletionHandler.TERMINATION_FINALIZER)) {
          // nothing of it runs here (it ended while its node was down, or never started)
          String ns = p.getMetadata().getNamespace();
          String name = p.getMetadata().getName();
          String uid = p.getMetadata().getUid();
          scheduler.execute(() -> releaseTermination(ns, name, uid));
          continue;
        }
        if (p.getMetadata().getDeletionTimestamp() == null
            && up(p.getSpec().getNodeName())
            && !workers.containsKey(p.getMetadata().getUid())) {
          PodWorker w = new PodWorker(this, p);
          workers.put(w.uid(), w);
          LOG.debug("starting pod {}", w.key());
          w.start();
          podChanged(w);
        }
      }
      dns.refresh();
    } catch (RuntimeException e) {
      LOG.warn("kubelet sync failed", e);
    }
  }

  /**
   * Waits until no other worker of the same namespace/name is alive on the same node; false if
   * {@code w} was stopped meanwhile. Only the same node: each node's kubelet knows its own pods,
   * and a pod force-deleted from a lost node may still run there while its replacement starts
   * elsewhere (on another address and another volume, as on a real cluster).
   */
  boolean awaitPredecessor(PodWorker w) throws InterruptedException {
    while (!w.stopping()) {
      PodWorker previous = null;
      for (PodWorker other : workers.values()) {
        if (other != w
            && other.key().equals(w.key())
            && java.util.Objects.equals(other.node(), w.node()) // FQN: clashes with Kubelet.Objects
            && !other.isTerminated()) {
          previous = other;
        }
      }
      if (previous == null) {
        return true;
      }
      previous.awaitTermination(Duration.ofMillis(200));
    }
    return false;
  }

  void terminated(PodWorker w) {
    workers.remove(w.uid(), w);
    written.remove(w.uid());
    dns.forget(w.uid());
    if (!closed && up(w.node())) {
      scheduler.execute(
          () ->
              releaseTermination(
                  w.pod().getMetadata().getNamespace(), w.pod().getMetadata().getName(), w.uid()));
    }
  }

  /**
   * Lets a Terminating pod go once its processes are gone: removes the termination finalizer the
   * API server put on it at its graceful deletion (see DeletionHandler), for this uid only.
   */
  private void releaseTermination(String namespace, String name, String uid) {
    try {
      Pod p = client.pods().inNamespace(namespace).withName(name).get();
      if (p == null
          || !uid.equals(p.getMetadata().getUid())
          || p.getMetadata().getDeletionTimestamp() == null
          || !p.getMetadata().getFinalizers().contains(DeletionHandler.TERMINATION_FINALIZER)) {
        return;
      }
      p.getMetadata().getFinalizers().remove(DeletionHandler.TERMINATION_FINALIZER);
      client.pods().resource(p).update();
    } catch (KubernetesClientException e) {
      LOG.debug("pod {}/{} not released yet: {}", namespace, name, e.getMessage());
    }
  }

  List<ClusterDns.LivePod> livePods() {
    List<ClusterDns.LivePod> out = new ArrayList<>();
    for (PodWorker w : workers.values()) {
      String ip = w.podIp();
      if (ip != null) {
        Pod current = podInformer == null ? null : podInformer.getStore().getByKey(w.key());
        if (podInformer != null
            && (current == null || !w.uid().equals(current.getMetadata().getUid()))) {
          // Records come from API pods, as EndpointSlices do: a process whose pod object is gone
          // (force-deleted while its node was away) has no name; its replacement has it.
          continue;
        }
        Pod p = current != null ? current : w.pod();
        out.add(
            new ClusterDns.LivePod(
                p,
                ip,
                w.containers().stream().allMatch(ContainerRunner::ready)
                    && !w.containers().isEmpty()
                    // on a node that is down, the last word is the API's: Ready False once the
                    // node lifecycle controller has marked it, as endpoints follow it
                    && (up(w.node()) || apiReady(p))));
      }
    }
    return out;
  }

  private static boolean apiReady(Pod p) {
    return p.getStatus() == null
        || p.getStatus().getConditions() == null
        || p.getStatus().getConditions().stream()
            .noneMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()));
  }

  private List<Service> services() {
    return serviceInformer == null ? List.of() : serviceInformer.getStore().list();
  }

  /**
   * Partitions a pod from the operator (this JVM) or heals it (see {@link ClusterDns#partition}):
   * its names resolve, in this JVM only, to a black hole on a loopback address of its own.
   */
  public void partition(String namespace, String name, boolean on) {
    dns.partition(namespace, name, on, this::blackHoleAddress);
    if (on) {
      PodHandle pod = pod(namespace, name);
      if (pod != null && pod.ip() != null) {
        resetConnections(pod.ip());
      }
    }
  }

  /**
   * Resets the established connections to a pod's client and metrics ports ({@code ss -K}, the
   * kernel's socket destroy), as a partition that cuts a connection would end its calls: a client
   * that keeps its connections (the operator does) would otherwise go on using one made before the
   * partition. Clients that dial the pod again by name then reach the black hole; peers'
   * connections (port 2380) are left alone.
   */
  private static void resetConnections(String ip) {
    for (String port : List.of("2379", "2381")) {
      try {
        Process p =
            new ProcessBuilder("ss", "-K", "dst", ip, "dport", "=", port)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (IOException e) {
        LOG.warn("could not reset connections to {}:{}: {}", ip, port, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private String blackHoleAddress() {
    synchronized (blackHoleLock) {
      if (blackHole == null) {
        try {
          blackHole = new BlackHole(addresses.acquire(), List.of(2379, 2380, 2381));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return blackHole.address();
    }
  }

  /** The worker of a pod, by namespace and name (the live one), or null. */
  public PodHandle pod(String namespace, String name) {
    String key = namespace + "/" + name;
    for (PodWorker w : workers.values()) {
      if (w.key().equals(key) && !w.stopping()) {
        return new PodHandle(w);
      }
    }
    return null;
  }

  /** Every pod worker, live or stopping. */
  public int workerCount() {
    return workers.size();
  }

  // --- status ---

  void podChanged(PodWorker w) {
    synchronized (dirty) {
      dirty.add(w.uid());
      dirty.notifyAll();
    }
    if (!closed) {
      scheduler.execute(dns::refresh);
    }
  }

  private void writeStatuses() {
    while (!closed) {
      List<String> batch;
      synchronized (dirty) {
        while (dirty.isEmpty() && !closed) {
          try {
            dirty.wait(500);
          } catch (InterruptedException e) {
            return;
          }
        }
        batch = new ArrayList<>(dirty);
        dirty.clear();
      }
      for (String uid : batch) {
        PodWorker w = workers.get(uid);
        if (w != null && !w.isTerminated() && up(w.node())) {
          try {
            writeStatus(w);
          } catch (IllegalStateException e) {
            if (closed) {
              return; // the sandbox closed the client under a last write
            }
            throw e;
          }
        }
      }
    }
  }

  private void writeStatus(PodWorker w) {
    PodStatus status = w.status();
    String json = Serialization.asJson(status);
    if (json.equals(written.get(w.uid()))) {
      return;
    }
    Pod current = podInformer.getStore().getByKey(w.key());
    if (current == null || !w.uid().equals(current.getMetadata().getUid())) {
      current =
          client
              .pods()
              .inNamespace(w.pod().getMetadata().getNamespace())
              .withName(w.pod().getMetadata().getName())
              .get();
      if (current == null || !w.uid().equals(current.getMetadata().getUid())) {
        return;
      }
    }
    try {
      Pod update = Serialization.clone(current);
      update.setStatus(status);
      client.pods().resource(update).updateStatus();
      written.put(w.uid(), json);
    } catch (KubernetesClientException e) {
      LOG.debug("status of {} not written: {}", w.key(), e.getMessage());
      synchronized (dirty) {
        dirty.add(w.uid());
      }
    }
  }

  /** Stops every pod and waits for its processes to end. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    if (podInformer != null) {
      podInformer.close();
    }
    if (serviceInformer != null) {
      serviceInformer.close();
    }
    List<PodWorker> all = new ArrayList<>(workers.values());
    all.forEach(PodWorker::requestStop);
    for (PodWorker w : all) {
      try {
        w.awaitTermination(config.maxGracePeriod().plusSeconds(15));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (dirty) {
      dirty.notifyAll();
    }
    scheduler.shutdownNow();
    probeScheduler.shutdownNow();
    if (fakeEtcd != null) {
      fakeEtcd.close();
    }
    dns.close();
    synchronized (blackHoleLock) {
      if (blackHole != null) {
        blackHole.close();
        addresses.release(blackHole.address());
        blackHole = null;
      }
    }
    if (dnsAddress != null) {
      addresses.release(dnsAddress);
    }
  }

  private static final class Handler<T> implements ResourceEventHandler<T> {
    private final Runnable onChange;

    Handler(Runnable onChange) {
      this.onChange = onChange;
    }

    @Override
    public void onAdd(T obj) {
      onChange.run();
    }

    @Override
    public void onUpdate(T oldObj, T newObj) {
      onChange.run();
    }

    @Override
    public void onDelete(T obj, boolean deletedFinalStateUnknown) {
      onChange.run();
    }
  }
}
