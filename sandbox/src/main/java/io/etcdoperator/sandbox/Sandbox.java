package io.etcdoperator.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdoperator.sandbox.api.ApiServer;
import io.etcdoperator.sandbox.api.CrdTypes;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.auth.RbacUsage;
import io.etcdoperator.sandbox.controller.DeploymentController;
import io.etcdoperator.sandbox.controller.DisruptionController;
import io.etcdoperator.sandbox.controller.GarbageCollector;
import io.etcdoperator.sandbox.controller.NodeLifecycleController;
import io.etcdoperator.sandbox.controller.PodGarbageCollector;
import io.etcdoperator.sandbox.controller.ReplicaSetController;
import io.etcdoperator.sandbox.controller.Scheduler;
import io.etcdoperator.sandbox.controller.ServiceAccountsController;
import io.etcdoperator.sandbox.controller.StatefulSetController;
import io.etcdoperator.sandbox.controller.VolumeController;
import io.etcdoperator.sandbox.kubelet.Kubelet;
import io.etcdoperator.sandbox.kubelet.NodeStatus;
import io.etcdoperator.sandbox.net.AddressPool;
import io.etcdoperator.sandbox.net.JvmHosts;
import io.etcdoperator.sandbox.process.ProcessSweeper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local Kubernetes stand-in: API server, StatefulSet, volume and garbage-collection controllers,
 * a scheduler, the node lifecycle, pod garbage collection and disruption controllers, the kubelets
 * of {@link SandboxConfig#nodes()} nodes that run pods as local processes, cluster DNS, and
 * (through {@link OperatorLauncher}) the operator, all in this JVM, with state in one directory.
 *
 * <p>Start order: check that the JVM resolves names through a hosts file and that pods can have
 * mount namespaces; lock the state directory (one sandbox per directory); kill leftovers of an
 * earlier run in it; start the API server and register the CRDs; store the RBAC of the {@code
 * deploy/} manifest the config names and issue a token to its ServiceAccount; start the controllers
 * and the kubelet; write {@code <dir>/kubeconfig} (mode 0600, the administrator's token); start the
 * operator with a client that acts as that ServiceAccount. {@link #close()} undoes it in reverse
 * and finally kills anything still carrying the directory's tag; a shutdown hook does the same when
 * the JVM exits without it.
 */
public final class Sandbox implements AutoCloseable {
  /**
   * The StorageClass claims without one get: network-attached (its volumes have no node affinity
   * and survive the loss of a node), bound at once, and it allows volume expansion.
   */
  public static final String DEFAULT_STORAGE_CLASS = "standard";

  /**
   * A StorageClass of node-local volumes: bound once a pod using the claim is scheduled ({@code
   * WaitForFirstConsumer}), pinned to that node, lost with it; no expansion.
   */
  public static final String LOCAL_STORAGE_CLASS = "local";

  private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);

  private final SandboxConfig config;
  private final OperatorLauncher launcher;
  private final String id = UUID.randomUUID().toString();
  private final ApiServer api = new ApiServer();
  private FileChannel lockChannel;
  private FileLock lock;
  private KubernetesClient client;
  private KubernetesClient operatorClient;
  private Identity operatorIdentity;
  private String operatorToken;

  /** Where the build's RBAC manifests of {@code deploy/} are on the class path. */
  static final String DEPLOY_RESOURCES = "io/etcdoperator/sandbox/deploy/";

  /** The system property naming where to write the operator's RBAC usage. */
  public static final String USAGE_PROPERTY = "sandbox.rbac.usage";

  private AutoCloseable operator;
  private AddressPool addresses;
  private Kubelet kubelet;
  private StatefulSetController statefulSets;
  private ReplicaSetController replicaSets;
  private DeploymentController deployments;
  private ServiceAccountsController serviceAccounts;
  private VolumeController volumes;
  private GarbageCollector gc;
  private Scheduler scheduler;
  private NodeLifecycleController nodeLifecycle;
  private PodGarbageCollector podGc;
  private DisruptionController disruption;
  private Faults faults;
  private Thread hook;
  private boolean closed;

  private Sandbox(SandboxConfig config, OperatorLauncher launcher) {
    this.config = config;
    this.launcher = launcher;
  }

  /** Starts a sandbox; on failure everything started so far is stopped again. */
  public static Sandbox start(SandboxConfig config, OperatorLauncher launcher) {
    Sandbox s = new Sandbox(config, launcher);
    try {
      s.startAll();
      return s;
    } catch (RuntimeException e) {
      s.close();
      throw e;
    } catch (Exception e) {
      s.close();
      throw new SandboxException("the sandbox failed to start: " + e.getMessage(), e);
    }
  }

  private void startAll() throws Exception {
    JvmHosts.file();
    Privileges.check();
    Files.createDirectories(config.stateDir());
    lockStateDir();
    int leftovers = ProcessSweeper.sweep(config.tag());
    if (leftovers > 0) {
      LOG.info(
          "killed {} processes left over by an earlier sandbox in {}",
          leftovers,
          config.stateDir());
    }
    hook = new Thread(this::close, "sandbox-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    api.start(InetAddress.getByName("127.0.0.1"), 0);
    api.setControlHandler(this::control);
    api.setLogSource(this::log);
    client = api.newClient();
    api.registerCrd(client, CrdTypes.etcdClusterCrd());
    CrdTypes.backupCrds().forEach(crd -> api.registerCrd(client, crd));
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("default").endMetadata().build())
        .createOr(n -> n.update());
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(NodeStatus.LEASE_NAMESPACE)
                .endMetadata()
                .build())
        .createOr(n -> n.update());
    api.setDefaultTolerationSeconds(config.defaultTolerationSeconds().toSeconds());
    // As kind's: one default class; unlike kind's, it allows volume expansion (the sandbox's
    // volumes are directories, which grow by being reported larger) and is network-attached.
    client
        .storage()
        .v1()
        .storageClasses()
        .resource(
            new StorageClassBuilder()
                .withNewMetadata()
                .withName(DEFAULT_STORAGE_CLASS)
                .addToAnnotations("storageclass.kubernetes.io/is-default-class", "true")
                .endMetadata()
                .withProvisioner(VolumeController.NETWORK_PROVISIONER)
                .withAllowVolumeExpansion(true)
                .withReclaimPolicy("Delete")
                .withVolumeBindingMode("Immediate")
                .build())
        .createOr(c -> c.update());
    client
        .storage()
        .v1()
        .storageClasses()
        .resource(
            new StorageClassBuilder()
                .withNewMetadata()
                .withName(LOCAL_STORAGE_CLASS)
                .endMetadata()
                .withProvisioner(VolumeController.LOCAL_PROVISIONER)
                .withAllowVolumeExpansion(false)
                .withReclaimPolicy("Delete")
                .withVolumeBindingMode("WaitForFirstConsumer")
                .build())
        .createOr(c -> c.update());
    operatorIdentity = installRbac();
    addresses = new AddressPool(AddressPool.defaultLockDir(), List.of(2379, 2380, 2381, 2382));
    serviceAccounts = new ServiceAccountsController(client, config.resync(), api.caPem());
    serviceAccounts.start();
    kubelet = new Kubelet(client, config, id, addresses);
    URI front = URI.create(api.kubectlUrl());
    kubelet.setApiAccess(
        new Kubelet.ApiAccess(
            front.getHost(),
            front.getPort(),
            (ns, sa, expires) -> api.issueToken(Identity.serviceAccount(ns, sa), expires)));
    kubelet.start();
    api.setPodProcesses(
        (ns, pod) -> {
          var h = kubelet.pod(ns, pod);
          return h == null ? -1 : h.pid(null);
        });
    volumes = new VolumeController(client, config);
    volumes.start();
    statefulSets = new StatefulSetController(client, config.resync());
    statefulSets.start();
    replicaSets = new ReplicaSetController(client, config.resync());
    replicaSets.start();
    deployments = new DeploymentController(client, config.resync());
    deployments.start();
    gc = new GarbageCollector(client, config.resync(), api::types);
    gc.start();
    scheduler = new Scheduler(client, config.resync());
    scheduler.start();
    nodeLifecycle =
        new NodeLifecycleController(client, config.resync(), config.nodeMonitorGracePeriod());
    nodeLifecycle.start();
    podGc = new PodGarbageCollector(client, config.resync());
    podGc.start();
    disruption = new DisruptionController(client, config.resync());
    disruption.start();
    faults = new Faults(api, kubelet, this);
    Kubeconfig.write(config.kubeconfig(), api.kubectlUrl(), api.adminToken());
    startOperator();
  }

  /** The API server's URL. */
  public String apiUrl() {
    return api.url();
  }

  /** The URL of the kubeconfig: the API server behind the front that serves kubectl's watches. */
  public String kubectlUrl() {
    return api.kubectlUrl();
  }

  /** A client of the sandbox's API server, owned by the sandbox. */
  public KubernetesClient client() {
    return client;
  }

  public SandboxConfig config() {
    return config;
  }

  public Faults faults() {
    return faults;
  }

  public Kubelet kubelet() {
    return kubelet;
  }

  VolumeController volumes() {
    return volumes;
  }

  /**
   * Resolves a sandbox name (e.g. {@code etcd-0.etcd-headless.default.svc}) as pods would; null if
   * unknown.
   */
  public String resolve(String name) {
    return kubelet.dns().resolve(name);
  }

  synchronized void startOperator() throws Exception {
    if (operator == null) {
      operatorClient = api.newClient(operatorToken);
      operator = launcher.start(operatorClient);
    }
  }

  /**
   * Stores what the RBAC manifest of {@code deploy/} holds but the Deployment (its Namespace,
   * ServiceAccount, roles and bindings) and returns its ServiceAccount, the identity the operator
   * acts as: a token is issued to it, and the operator's client carries it.
   */
  private Identity installRbac() throws IOException {
    String resource = DEPLOY_RESOURCES + config.rbacManifest();
    List<HasMetadata> objects;
    try (InputStream in = Sandbox.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new SandboxException(
            "no " + resource + " on the class path (deploy/ is copied there)");
      }
      objects = client.load(in).items();
    }
    Identity identity = null;
    for (HasMetadata o : objects) {
      if (o instanceof Deployment) {
        continue;
      }
      if (o instanceof ServiceAccount sa) {
        identity =
            Identity.serviceAccount(sa.getMetadata().getNamespace(), sa.getMetadata().getName());
      }
      client.resource(o).createOr(r -> r.update());
    }
    if (identity == null) {
      throw new SandboxException(resource + " has no ServiceAccount for the operator");
    }
    operatorToken = api.issueToken(identity);
    return identity;
  }

  /** The bearer token the operator's client carries (for tests that check it is never shown). */
  public String operatorToken() {
    return operatorToken;
  }

  /** A new bearer token of the API server for the identity. */
  public String issueToken(Identity identity) {
    return api.issueToken(identity);
  }

  /** A new client of the API server that authenticates as the identity; the caller closes it. */
  public KubernetesClient clientAs(Identity identity) {
    return api.newClient(api.issueToken(identity));
  }

  /** The identity the operator acts as: the ServiceAccount of the RBAC manifest. */
  public Identity operatorIdentity() {
    return operatorIdentity;
  }

  /** Every (verb, group, resource, namespace) the operator has asked for so far. */
  public RbacUsage operatorUsage() {
    return api.usage(operatorIdentity);
  }

  /**
   * When the JVM names a directory in {@value #USAGE_PROPERTY} and this sandbox ran the real
   * operator, writes what it asked for there (for the build's check that deploy/ grants exactly
   * what is used).
   */
  private void writeUsage() throws IOException {
    String dir = System.getProperty(USAGE_PROPERTY);
    if (dir == null || dir.isBlank() || operatorIdentity == null) {
      return;
    }
    if (!(launcher instanceof EtcdOperatorLauncher)) {
      return;
    }
    operatorUsage().write(Path.of(dir).resolve(id + ".tsv"), config.rbacManifest());
  }

  synchronized void stopOperator() throws Exception {
    if (operator != null) {
      try {
        operator.close();
      } finally {
        operator = null;
        operatorClient.close();
        operatorClient = null;
      }
    }
  }

  private String control(String verb, String body) throws Exception {
    if (!verb.equals("fault")) {
      throw new IllegalArgumentException("unknown control verb " + verb);
    }
    JsonNode req = Serialization.jsonMapper().readTree(body);
    String action = req.path("action").asText();
    String ns = req.path("namespace").asText("default");
    String pod = req.path("pod").asText(null);
    String container = req.path("container").asText(null);
    String node = req.path("node").asText(null);
    switch (action) {
      case "node-down" -> {
        faults.nodeDown(node);
        return "node " + node + " is down";
      }
      case "node-up" -> {
        faults.nodeUp(node);
        return "node " + node + " is up";
      }
      case "node-delete" -> {
        // this runs on the API server's event loop: what asks the API server over HTTP runs off it
        faults.removeNode(node);
        background(() -> volumes.deleteLocalVolumes(node));
        return "node " + node + " deleted; its local volumes are deleted with their data";
      }
      case "kill" -> faults.kill(ns, pod, container);
      case "delete" -> faults.delete(ns, pod);
      case "wipe" -> {
        return "wiped " + faults.wipe(ns, pod) + " of " + ns + "/" + pod;
      }
      case "freeze" -> faults.freeze(ns, pod);
      case "thaw" -> faults.thaw(ns, pod);
      case "partition" -> faults.partition(ns, pod);
      case "heal" -> faults.heal(ns, pod);
      case "operator-stop" -> {
        // off the API server's thread: the operator talks to this server while it stops
        background(faults::stopOperator);
        return "operator stopping";
      }
      case "operator-start" -> {
        background(faults::startOperator);
        return "operator starting";
      }
      default -> throw new IllegalArgumentException("unknown fault " + action);
    }
    return action + " " + ns + "/" + pod + ": done";
  }

  /** The log of a pod's container (null: its first container), as {@code kubectl logs} shows it. */
  private String log(String namespace, String pod, String container) throws IOException {
    String c = container;
    if (c == null) {
      // From the kubelet, not the API: this runs on the API server's event loop, and a request to
      // the API server from here would wait for that very loop (10 s, blocking every request).
      var handle = kubelet.pod(namespace, pod);
      if (handle == null || handle.containers().isEmpty()) {
        return null;
      }
      c = handle.containers().get(0);
    }
    Path file = config.logDir().resolve(namespace + "_" + pod + "_" + c + ".log");
    return Files.exists(file) ? Files.readString(file) : null;
  }

  private void background(Step step) {
    Thread t =
        new Thread(
            () -> {
              try {
                step.run();
              } catch (Exception e) {
                LOG.warn("fault failed: {}", e.toString());
              }
            },
            "sandbox-operator-fault");
    t.setDaemon(true);
    t.start();
  }

  /** Whether the operator runs now. */
  public synchronized boolean operatorRunning() {
    return operator != null;
  }

  private void lockStateDir() throws IOException {
    lockChannel =
        FileChannel.open(
            config.stateDir().resolve(".lock"),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
    lock = lockChannel.tryLock();
    if (lock == null) {
      lockChannel.close();
      lockChannel = null;
      throw new SandboxException(
          "Another sandbox is running in " + config.stateDir() + "; stop it or use another --dir.");
    }
  }

  /** Stops everything and kills every process the sandbox started. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    quietly(this::stopOperator);
    quietly(this::writeUsage);
    quietly(() -> close(disruption));
    quietly(() -> close(podGc));
    quietly(() -> close(nodeLifecycle));
    quietly(() -> close(scheduler));
    quietly(() -> close(gc));
    quietly(() -> close(deployments));
    quietly(() -> close(replicaSets));
    quietly(() -> close(statefulSets));
    quietly(() -> close(volumes));
    quietly(() -> close(kubelet));
    quietly(() -> close(serviceAccounts));
    if (lock != null) {
      ProcessSweeper.sweep(config.tag());
    }
    quietly(() -> close(addresses));
    quietly(() -> close(client));
    quietly(api::close);
    if (lock != null) {
      quietly(
          () -> {
            lock.release();
            lockChannel.close();
          });
    }
    if (hook != null && Thread.currentThread() != hook) {
      quietly(() -> Runtime.getRuntime().removeShutdownHook(hook));
    }
  }

  private static void close(AutoCloseable c) throws Exception {
    if (c != null) {
      c.close();
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private static void quietly(Step step) {
    try {
      step.run();
    } catch (Exception | LinkageError e) {
      LOG.debug("while stopping: {}", e.toString());
    }
  }
}
