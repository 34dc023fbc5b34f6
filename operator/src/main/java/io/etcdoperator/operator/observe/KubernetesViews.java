package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.Maintenance;
import io.etcdoperator.operator.model.Names;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeResourceRequirements;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Reads the planner's views off Kubernetes objects. Pure: no client. */
public final class KubernetesViews {
  private KubernetesViews() {}

  public static StatefulSetView statefulSet(StatefulSet sts) {
    var spec = sts.getSpec();
    String hash =
        Optional.ofNullable(spec.getTemplate().getMetadata())
            .map(m -> m.getAnnotations())
            .map(a -> a.get(Names.POD_TEMPLATE_HASH_ANNOTATION))
            .orElse(null);
    boolean persistent =
        spec.getVolumeClaimTemplates() != null
            && spec.getVolumeClaimTemplates().stream()
                .anyMatch(c -> Names.DATA_VOLUME.equals(c.getMetadata().getName()));
    long claimBytes =
        spec.getVolumeClaimTemplates() == null
            ? 0
            : spec.getVolumeClaimTemplates().stream()
                .filter(c -> Names.DATA_VOLUME.equals(c.getMetadata().getName()))
                .mapToLong(c -> storage(c.getSpec().getResources()))
                .findFirst()
                .orElse(0);
    return new StatefulSetView(
        spec.getReplicas() == null ? 1 : spec.getReplicas(),
        hash,
        persistent,
        claimBytes,
        sts.getMetadata().getDeletionTimestamp() != null);
  }

  private static long storage(VolumeResourceRequirements r) {
    return r == null || r.getRequests() == null ? 0 : bytes(r.getRequests().get("storage"));
  }

  /** A storage quantity in bytes; 0 when absent or not a quantity. */
  static long bytes(Quantity q) {
    if (q == null) {
      return 0;
    }
    try {
      return Maintenance.bytes(q);
    } catch (IllegalArgumentException | ArithmeticException e) {
      return 0;
    }
  }

  /** The view of a pod of this cluster, or empty when the pod is not one of its members' pods. */
  public static Optional<PodView> pod(String cluster, Pod pod) {
    int ordinal = Names.ordinalOf(cluster, pod.getMetadata().getName());
    if (ordinal < 0) {
      return Optional.empty();
    }
    var status = pod.getStatus();
    String phase = status == null || status.getPhase() == null ? "Pending" : status.getPhase();
    boolean ready =
        status != null
            && status.getConditions() != null
            && status.getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    Optional<ContainerStatus> etcd =
        status == null || status.getContainerStatuses() == null
            ? Optional.empty()
            : status.getContainerStatuses().stream()
                .filter(c -> Names.ETCD_CONTAINER.equals(c.getName()))
                .findFirst();
    boolean running =
        etcd.map(c -> c.getState() != null && c.getState().getRunning() != null).orElse(false);
    int restarts = etcd.map(c -> c.getRestartCount() == null ? 0 : c.getRestartCount()).orElse(0);
    String hash =
        pod.getMetadata().getAnnotations() == null
            ? null
            : pod.getMetadata().getAnnotations().get(Names.POD_TEMPLATE_HASH_ANNOTATION);
    String created = pod.getMetadata().getCreationTimestamp();
    String lastTermination =
        etcd.map(c -> c.getLastState())
            .map(s -> s.getTerminated())
            .map(t -> t.getMessage())
            .filter(m -> !m.isBlank())
            .orElse(null);
    return Optional.of(
        new PodView(
            pod.getMetadata().getName(),
            ordinal,
            phase,
            ready,
            running,
            restarts,
            pod.getMetadata().getDeletionTimestamp() != null,
            hash,
            created == null ? null : Instant.parse(created),
            lastTermination,
            clientScheme(pod),
            etcdFlag(pod, "listen-peer-urls").orElse(""),
            peerCertificate(pod)));
  }

  /**
   * The certificate the pod's etcd container presents to peers: the peer Secret's when it names a
   * {@code --peer-cert-file} (etcd then ignores {@code --peer-auto-tls}), else its own when {@code
   * --peer-auto-tls} is on (as a bare flag, {@code =true}, or {@code ETCD_PEER_AUTO_TLS=true}).
   */
  static PodView.PeerCertificate peerCertificate(Pod pod) {
    if (etcdFlag(pod, "peer-cert-file").filter(f -> !f.isBlank()).isPresent()) {
      return PodView.PeerCertificate.FILE;
    }
    boolean bare =
        pod.getSpec() != null
            && pod.getSpec().getContainers() != null
            && pod.getSpec().getContainers().stream()
                .filter(c -> Names.ETCD_CONTAINER.equals(c.getName()) && c.getArgs() != null)
                .anyMatch(c -> c.getArgs().contains("--peer-auto-tls"));
    boolean auto =
        bare || etcdFlag(pod, "peer-auto-tls").filter(v -> v.equalsIgnoreCase("true")).isPresent();
    return auto ? PodView.PeerCertificate.AUTO : PodView.PeerCertificate.NONE;
  }

  /**
   * The scheme the pod's etcd container listens for clients on, from its {@code
   * --listen-client-urls} argument (or {@code ETCD_LISTEN_CLIENT_URLS}); http when it says none.
   */
  static String clientScheme(Pod pod) {
    return etcdFlag(pod, "listen-client-urls").filter(l -> l.startsWith("https:")).isPresent()
        ? "https"
        : "http";
  }

  /**
   * The value of an etcd flag in the pod's etcd container: its {@code --flag=} argument (the last
   * one), else its {@code ETCD_FLAG} variable; empty when it sets neither.
   */
  static Optional<String> etcdFlag(Pod pod, String flag) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return Optional.empty();
    }
    String variable = "ETCD_" + flag.toUpperCase(Locale.ROOT).replace('-', '_');
    for (var c : pod.getSpec().getContainers()) {
      if (!Names.ETCD_CONTAINER.equals(c.getName())) {
        continue;
      }
      String value = null;
      for (String a : c.getArgs() == null ? List.<String>of() : c.getArgs()) {
        if (a.startsWith("--" + flag + "=")) {
          value = a.substring(flag.length() + 3);
        }
      }
      if (value == null && c.getEnv() != null) {
        value =
            c.getEnv().stream()
                .filter(e -> variable.equals(e.getName()))
                .map(e -> e.getValue())
                .findFirst()
                .orElse(null);
      }
      return Optional.ofNullable(value);
    }
    return Optional.empty();
  }

  public static Optional<ClaimView> claim(String cluster, PersistentVolumeClaim claim) {
    int ordinal = Names.ordinalOfClaim(cluster, claim.getMetadata().getName());
    if (ordinal < 0) {
      return Optional.empty();
    }
    Map<String, String> annotations = claim.getMetadata().getAnnotations();
    return Optional.of(
        new ClaimView(
            claim.getMetadata().getName(),
            ordinal,
            claim.getMetadata().getDeletionTimestamp() != null,
            hexId(annotations, Names.MEMBER_ID_ANNOTATION),
            hexId(annotations, Names.CLUSTER_ID_ANNOTATION),
            claim.getMetadata().getOwnerReferences().stream()
                .anyMatch(r -> "EtcdCluster".equals(r.getKind()) && cluster.equals(r.getName())),
            claim.getSpec() == null ? 0 : storage(claim.getSpec().getResources()),
            claim.getStatus() == null || claim.getStatus().getCapacity() == null
                ? 0
                : bytes(claim.getStatus().getCapacity().get("storage")),
            claim.getSpec() == null ? null : claim.getSpec().getStorageClassName()));
  }

  /** An ID the operator wrote in hex into an annotation; 0 when absent or not hex. */
  private static long hexId(Map<String, String> annotations, String key) {
    String id = annotations == null ? null : annotations.get(key);
    try {
      return id == null ? 0 : Long.parseUnsignedLong(id, 16);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  public static ClusterState clusterState(ConfigMap cm) {
    Map<String, String> data = cm.getData() == null ? Map.of() : cm.getData();
    Map<String, String> ours = new LinkedHashMap<>();
    if (cm.getMetadata().getAnnotations() != null) {
      cm.getMetadata().getAnnotations().entrySet().stream()
          .filter(e -> e.getKey().startsWith(Names.ANNOTATION_PREFIX))
          .filter(e -> !e.getKey().equals(Names.DESIRED_HASH_ANNOTATION))
          .forEach(e -> ours.put(e.getKey(), e.getValue()));
    }
    boolean existing = "existing".equals(data.get(Names.ENV_INITIAL_CLUSTER_STATE));
    return new ClusterState(
        existing ? ClusterState.Kind.EXISTING : ClusterState.Kind.NEW,
        ClusterState.parseInitialCluster(data.get(Names.ENV_INITIAL_CLUSTER)),
        data.get(Names.ENV_INITIAL_CLUSTER_TOKEN),
        ours);
  }
}
