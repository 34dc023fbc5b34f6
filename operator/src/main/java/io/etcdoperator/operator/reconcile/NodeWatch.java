package io.etcdoperator.operator.reconcile;

import io.etcdoperator.operator.observe.Placements;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the operator knows of Nodes and PersistentVolumes, both cluster-scoped: a Node informer (one
 * watch for every cluster, keeping of each Node only what is read of it: {@link #whatIsRead}), and
 * a read of one PersistentVolume when asked (only for a member whose node is not Ready). An
 * operator that may not list Nodes (installed for some namespaces, with Roles only) goes on without
 * them: it then never replaces a member for its node, and says so. One that may list Nodes but not
 * read volumes replaces only a member whose pod's node stayed unreachable (a pod cannot leave such
 * a node, whatever its volume).
 */
final class NodeWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeWatch.class);

  private final KubernetesClient client;
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile SharedIndexInformer<Node> nodes;
  private volatile boolean nodesVisible;
  private volatile boolean volumesVisible = true;

  private final boolean wanted;

  /**
   * @param wanted whether to read Nodes at all: an operator of some namespaces has no ClusterRole,
   *     and asks for nothing it knows it may not read
   */
  NodeWatch(KubernetesClient client, boolean wanted) {
    this(client, wanted, node -> {});
  }

  /**
   * @param changed told the name of a Node whose readiness, schedulability or taints changed, or
   *     that was deleted: what is said and done of the members on it may change with it
   */
  NodeWatch(KubernetesClient client, boolean wanted, Consumer<String> changed) {
    this.client = client;
    this.wanted = wanted;
    this.changed = changed;
  }

  private final Consumer<String> changed;

  /** What of a Node the members' placement depends on. */
  static Object relevant(Node n) {
    var spec = n.getSpec();
    var status = n.getStatus();
    return Arrays.asList(
        spec == null ? null : spec.getUnschedulable(),
        spec == null ? null : spec.getTaints(),
        status == null || status.getConditions() == null
            ? null
            : status.getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .map(c -> c.getStatus())
                .findFirst()
                .orElse(null));
  }

  /**
   * What the operator reads of a Node, all the informer keeps of it: its name and version, whether
   * it is cordoned, its taints, and its Ready condition. A Node's status also lists its images,
   * addresses and capacity, tens of KiB on a busy node, of which nothing is read.
   */
  static Node whatIsRead(Node n) {
    Node kept = new Node();
    ObjectMeta meta = SecretCache.bareMeta();
    meta.setName(n.getMetadata().getName());
    meta.setResourceVersion(n.getMetadata().getResourceVersion());
    kept.setMetadata(meta);
    if (n.getSpec() != null) {
      NodeSpec spec = new NodeSpec();
      spec.setUnschedulable(n.getSpec().getUnschedulable());
      spec.setTaints(n.getSpec().getTaints());
      kept.setSpec(spec);
    }
    if (n.getStatus() != null && n.getStatus().getConditions() != null) {
      NodeStatus status = new NodeStatus();
      status.setConditions(
          n.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType())).toList());
      kept.setStatus(status);
    }
    return kept;
  }

  /** Starts the Node informer on first use; false when Nodes cannot (or are not to) be read. */
  boolean nodesVisible() {
    if (!wanted) {
      return false;
    }
    if (started.compareAndSet(false, true)) {
      try {
        nodes =
            client
                .nodes()
                .runnableInformer(0)
                .itemStore(new TrimmingStore<>(NodeWatch::whatIsRead))
                .addEventHandler(
                    new ResourceEventHandler<>() {
                      @Override
                      public void onAdd(Node n) {}

                      @Override
                      public void onUpdate(Node before, Node after) {
                        if (!Objects.equals(relevant(before), relevant(after))) {
                          changed.accept(after.getMetadata().getName());
                        }
                      }

                      @Override
                      public void onDelete(Node n, boolean unknown) {
                        changed.accept(n.getMetadata().getName());
                      }
                    })
                .run();
        nodesVisible = true;
      } catch (KubernetesClientException e) {
        LOG.info(
            "Nodes are not visible ({}): members on lost nodes are reported by their pods only,"
                + " and never replaced for their node",
            e.getCode());
        nodesVisible = false;
      }
    }
    return nodesVisible;
  }

  boolean volumesVisible() {
    return wanted && volumesVisible;
  }

  Optional<Node> node(String name) {
    SharedIndexInformer<Node> n = nodes;
    return n == null ? Optional.empty() : Optional.ofNullable(n.getIndexer().getByKey(name));
  }

  /** The volume; empty when there is none; {@link Placements.Unknown} when it cannot be read. */
  Optional<PersistentVolume> volume(String name) throws Placements.Unknown {
    try {
      return Optional.ofNullable(client.persistentVolumes().withName(name).get());
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        volumesVisible = false;
      }
      throw new Placements.Unknown(
          "cannot read PersistentVolume " + name + ": " + e.getCode() + " " + e.getMessage());
    }
  }

  @Override
  public void close() {
    SharedIndexInformer<Node> n = nodes;
    if (n != null) {
      n.close();
    }
  }
}
