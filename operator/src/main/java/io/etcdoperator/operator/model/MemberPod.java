package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.api.v1alpha1.PodTemplate;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pod every member runs: the operator's etcd container, {@code spec.podTemplate} laid over it,
 * the API server's defaults written out, and the hash of the result in an annotation.
 *
 * <p>Overlay rules. The container named {@value Names#ETCD_CONTAINER} is merged field by field: a
 * field the user sets (image, command, args, probes, resources, securityContext, ...) replaces
 * ours; {@code env} and {@code volumeMounts} merge by name; {@code ports} merge by name field by
 * field; the user's {@code envFrom} go before ours, so that the cluster-state keys stay ours. Other
 * containers, init containers and volumes are added. Every other PodSpec field the user sets
 * (nodeSelector, affinity, tolerations, securityContext, serviceAccountName, ...) is taken. Labels
 * and annotations are added to ours. Validation has already refused what would collide.
 *
 * <p>Security. Members pass the "restricted" Pod Security level by default: they run as a fixed
 * non-root uid and gid ({@value #MEMBER_UID}) with that group owning the data volume (fsGroup),
 * under the runtime's seccomp profile, with no privilege escalation, no capability, a read-only
 * root filesystem (etcd writes only to its data directory) and no service-account token. A {@code
 * securityContext} in {@code spec.podTemplate} is laid over ours field by field (pod and etcd
 * container alike), so a user can change one of them without losing the others.
 *
 * <p>Probes. etcd serves its client port only once it has joined a cluster with quorum, and its
 * {@code /health} fails without a leader (tried with Debian's etcd 3.4.23), so liveness and startup
 * ask {@code /version} on the peer port, which answers from the moment the member has loaded its
 * data, quorum or not: a member waiting for its peers is never killed for it (with peer TLS, the
 * metrics port; see {@link #liveness}). Readiness asks the metrics port whether the member can
 * serve a linearizable read (see {@link #readiness}).
 */
final class MemberPod {
  /** The node label every Kubernetes node carries: its name. */
  static final String HOSTNAME_TOPOLOGY = "kubernetes.io/hostname";

  /** The first etcd with {@code /livez} and {@code /readyz}. */
  private static final EtcdVersion LIVEZ_AND_READYZ = new EtcdVersion(3, 5, 11);

  private static final Map<String, Overlay.Rule> POD_RULES =
      Map.of(
          "containers", MemberPod::mergeContainers,
          "initContainers", Overlay::append,
          "volumes", Overlay::append,
          "securityContext", MemberPod::fieldwise);
  private static final Map<String, Overlay.Rule> ETCD_CONTAINER_RULES =
      Map.of(
          "env", Overlay::mergeByName,
          "volumeMounts", Overlay::mergeByName,
          "ports", Overlay::mergeByNameFieldwise,
          "envFrom", Overlay::prepend,
          "securityContext", MemberPod::fieldwise);

  /**
   * The uid and gid members run as by default, and the group their data volume belongs to (the
   * "nonroot" user of distroless images, which the etcd images are built on).
   */
  static final long MEMBER_UID = 65532;

  private MemberPod() {}

  /** The pod template, with its hash in {@value Names#POD_TEMPLATE_HASH_ANNOTATION}. */
  static PodTemplateSpec template(String cluster, EtcdClusterSpec spec) {
    return template(cluster, spec, Names.DEFAULT_OPERATOR_IMAGE, "");
  }

  /**
   * @param operatorImage what the restore init container runs, when the spec restores
   * @param trustedCa the fingerprint of the CAs members load at start (empty: none known)
   */
  static PodTemplateSpec template(
      String cluster, EtcdClusterSpec spec, String operatorImage, String trustedCa) {
    return template(cluster, spec, operatorImage, trustedCa, TlsMove.NONE, Optional.empty());
  }

  /**
   * @param operatorImage what the restore init container runs, when the spec restores
   * @param trustedCa the fingerprint of the CAs members load at start (empty: none known)
   * @param move the peer listeners of a running cluster moving its peers to or off TLS ({@link
   *     TlsMove#NONE}: the spec's)
   * @param kept the peer Secrets the members ran, presented while a move off TLS serves https
   */
  static PodTemplateSpec template(
      String cluster,
      EtcdClusterSpec spec,
      String operatorImage,
      String trustedCa,
      TlsMove move,
      Optional<PeerSecrets> kept) {
    PodTemplate user = spec.getPodTemplate();
    PodSpec podSpec = basePodSpec(cluster, spec, move, kept);
    if (spec.getBootstrap() != null && spec.getBootstrap().getRestore() != null) {
      // the snapshot is restored before etcd starts; the agent does nothing once there is data
      var source = spec.getBootstrap().getRestore().getSource();
      var pointInTime = spec.getBootstrap().getRestore().getPointInTime();
      podSpec.setInitContainers(
          new ArrayList<>(
              List.of(
                  RestorePods.restoreInitContainer(cluster, source, pointInTime, operatorImage))));
      List<Volume> volumes =
          new ArrayList<>(podSpec.getVolumes() == null ? List.of() : podSpec.getVolumes());
      RestorePods.restoreSourceVolume(source).ifPresent(volumes::add);
      podSpec.setVolumes(volumes);
    }
    if (user != null && user.getSpec() != null) {
      podSpec =
          Overlay.fromMap(
              Overlay.overlay(Overlay.toMap(podSpec), Overlay.toMap(user.getSpec()), POD_RULES),
              PodSpec.class);
    }
    ApiDefaults.podSpec(podSpec);
    Map<String, String> annotations = Overlay.annotations(user == null ? null : user.getMetadata());
    PodTemplateSpec template =
        new PodTemplateSpecBuilder()
            .withNewMetadata()
            .withLabels(Overlay.labels(cluster, user == null ? null : user.getMetadata()))
            .withAnnotations(annotations == null ? new LinkedHashMap<>() : annotations)
            .endMetadata()
            .withSpec(podSpec)
            .build();
    if (trustedCa != null && !trustedCa.isEmpty()) {
      template.getMetadata().getAnnotations().put(Names.TRUSTED_CA_ANNOTATION, trustedCa);
    }
    template.getMetadata().getAnnotations().put(Names.POD_TEMPLATE_HASH_ANNOTATION, hash(template));
    return template;
  }

  /**
   * The hash of a pod template, leaving out the hash annotation itself and the image of the restore
   * init container. That container runs the operator's image and does nothing once a member has
   * data: a new operator version changes it, and would otherwise roll every member of every
   * restored cluster for nothing. The StatefulSet still gets the new image, so a pod created later
   * (a scale-up, a replaced member) runs it.
   */
  static String hash(PodTemplateSpec template) {
    PodTemplateSpec copy = Overlay.copy(template, PodTemplateSpec.class);
    copy.getMetadata().getAnnotations().remove(Names.POD_TEMPLATE_HASH_ANNOTATION);
    if (copy.getSpec().getInitContainers() != null) {
      copy.getSpec().getInitContainers().stream()
          .filter(c -> Names.RESTORE_CONTAINER.equals(c.getName()))
          .forEach(c -> c.setImage(""));
    }
    return Overlay.hash(copy);
  }

  static PodSpec basePodSpec(String cluster, EtcdClusterSpec spec) {
    return basePodSpec(cluster, spec, TlsMove.NONE, Optional.empty());
  }

  static PodSpec basePodSpec(
      String cluster, EtcdClusterSpec spec, TlsMove move, Optional<PeerSecrets> kept) {
    Security security = Security.of(spec.getSecurity(), move, kept);
    PodSpecBuilder pod =
        new PodSpecBuilder()
            // Service links would put <SERVICE>_PORT variables in etcd's environment; a cluster
            // named "etcd" would hand etcd ETCD_* variables it takes for flags.
            .withEnableServiceLinks(false)
            // Members need no Kubernetes API access.
            .withAutomountServiceAccountToken(false)
            // The "restricted" Pod Security level: a fixed non-root user, the data volume's group,
            // the runtime's seccomp profile. Each field can be set otherwise in spec.podTemplate.
            .withNewSecurityContext()
            .withRunAsNonRoot(true)
            .withRunAsUser(MEMBER_UID)
            .withRunAsGroup(MEMBER_UID)
            .withFsGroup(MEMBER_UID)
            .withFsGroupChangePolicy("OnRootMismatch")
            .withNewSeccompProfile()
            .withType("RuntimeDefault")
            .endSeccompProfile()
            .endSecurityContext()
            // Spread: one member per node where the nodes allow it. Preferred, not required, so
            // that a 5-member cluster still runs on 3 nodes; spec.podTemplate's affinity replaces
            // it.
            .withNewAffinity()
            .withNewPodAntiAffinity()
            .addNewPreferredDuringSchedulingIgnoredDuringExecution()
            .withWeight(100)
            .withNewPodAffinityTerm()
            .withTopologyKey(HOSTNAME_TOPOLOGY)
            .withNewLabelSelector()
            .withMatchLabels(Names.selectorLabels(cluster))
            .endLabelSelector()
            .endPodAffinityTerm()
            .endPreferredDuringSchedulingIgnoredDuringExecution()
            .endPodAntiAffinity()
            .endAffinity()
            .withContainers(etcdContainer(cluster, spec, move, security));
    DataStorage.podVolume(spec).ifPresent(pod::addToVolumes);
    security.volumes().forEach(pod::addToVolumes);
    return pod.build();
  }

  static Container etcdContainer(
      String cluster, EtcdClusterSpec spec, TlsMove move, Security security) {
    return new ContainerBuilder()
        .withName(Names.ETCD_CONTAINER)
        .withImage(EtcdFlags.DEFAULT_IMAGE)
        .withCommand(EtcdFlags.COMMAND)
        .withArgs(EtcdFlags.args(cluster, spec.getOptions(), security, move))
        .addNewEnv()
        .withName(Names.ENV_POD_NAME)
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath("metadata.name")
        .endFieldRef()
        .endValueFrom()
        .endEnv()
        .addNewEnv()
        .withName(Names.ENV_POD_NAMESPACE)
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath("metadata.namespace")
        .endFieldRef()
        .endValueFrom()
        .endEnv()
        .addNewEnvFrom()
        .withNewConfigMapRef()
        .withName(Names.clusterStateConfigMap(cluster))
        .endConfigMapRef()
        .endEnvFrom()
        .addNewPort()
        .withName(Names.CLIENT_PORT_NAME)
        .withContainerPort(Names.CLIENT_PORT)
        .endPort()
        .addNewPort()
        .withName(Names.PEER_PORT_NAME)
        .withContainerPort(Names.PEER_PORT)
        .endPort()
        .addNewPort()
        .withName(Names.METRICS_PORT_NAME)
        .withContainerPort(Names.METRICS_PORT)
        .endPort()
        .addNewVolumeMount()
        .withName(Names.DATA_VOLUME)
        .withMountPath(Names.DATA_MOUNT_PATH)
        .endVolumeMount()
        .addAllToVolumeMounts(security.mounts())
        .withNewSecurityContext()
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(true)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .endSecurityContext()
        // A member that lost its data dies with a raft panic; the tail of its log in the pod's
        // status is how the operator learns it (see Facts#lostData).
        .withTerminationMessagePolicy("FallbackToLogsOnError")
        // Loading a large data dir can take minutes: up to 5 before liveness takes over. Asked
        // every second, so that a restarted member counts as started (and readiness is asked)
        // within a second of serving: every step of a roll waits for it.
        .withStartupProbe(liveness(security, spec, 1, 300))
        .withLivenessProbe(liveness(security, spec, 10, 6))
        .withReadinessProbe(readiness(spec))
        .build();
  }

  /**
   * Whether the member serves clients: what makes its pod an endpoint of the client Service, which
   * the cluster's Ready condition waits for. On etcd 3.5.11 and later, {@code /readyz} on the
   * metrics port: a linearizable read (held while the member has no leader, and failed with "leader
   * changed" when one is elected, so a forming cluster's members are Ready at the probe's next
   * tick, as with {@code /health}); from 3.5.19 it also fails for a learner, which refuses clients'
   * requests, where {@code /health} says a learner is healthy. Before 3.5.11, which has no {@code
   * /readyz}, {@code /health?exclude=NOSPACE}, which fails at once without a leader. Neither fails
   * under NOSPACE (etcd 3.4 and 3.5 both honour {@code exclude}): the cluster still serves reads
   * and deletes, and a readiness that failed on every member at once would take every endpoint out
   * of the client Service while the operator recovers the space.
   *
   * <p>Asked every second, each probe waiting at most 2 s; 7 failures before a member leaves the
   * Service: 7 s when its port refuses, 14 s when it hangs or has no leader (the kubelet asks again
   * as soon as a probe that outlasted its period ends).
   */
  private static Probe readiness(EtcdClusterSpec spec) {
    Probe probe =
        httpProbe(
            hasLivezAndReadyz(spec) ? "/readyz" : "/health?exclude=NOSPACE",
            Names.METRICS_PORT,
            1,
            7);
    probe.setTimeoutSeconds(2);
    return probe;
  }

  /**
   * The image's etcd serves {@code /livez} and {@code /readyz}; unknown versions are taken not to.
   */
  private static boolean hasLivezAndReadyz(EtcdClusterSpec spec) {
    return EtcdVersion.ofImage(imageOf(spec))
        .map(v -> v.compareTo(LIVEZ_AND_READYZ) >= 0)
        .orElse(false);
  }

  /**
   * Whether the member's process serves, quorum or not. Over plain peer URLs, {@code /version} on
   * the peer port. With peer TLS the peer port requires a client certificate, which a kubelet does
   * not present, so the metrics port: {@code /livez} on etcd 3.5.11 and later (a serializable read,
   * which needs no leader), and before, which has no {@code /livez} and whose {@code /health} fails
   * without a leader, {@code /metrics} (served whenever the process is).
   */
  private static Probe liveness(
      Security security, EtcdClusterSpec spec, int periodSeconds, int failureThreshold) {
    if (!security.peerHttps()) {
      return httpProbe("/version", Names.PEER_PORT, periodSeconds, failureThreshold);
    }
    return httpProbe(
        hasLivezAndReadyz(spec) ? "/livez" : "/metrics",
        Names.METRICS_PORT,
        periodSeconds,
        failureThreshold);
  }

  /** The etcd container's image: the user's, else the default. */
  static String imageOf(EtcdClusterSpec spec) {
    PodTemplate user = spec.getPodTemplate();
    if (user != null && user.getSpec() != null && user.getSpec().getContainers() != null) {
      for (Container c : user.getSpec().getContainers()) {
        if (Names.ETCD_CONTAINER.equals(c.getName()) && c.getImage() != null) {
          return c.getImage();
        }
      }
    }
    return EtcdFlags.DEFAULT_IMAGE;
  }

  private static Probe httpProbe(String path, int port, int periodSeconds, int failureThreshold) {
    return new ProbeBuilder()
        .withNewHttpGet()
        .withPath(path)
        .withPort(new IntOrString(port))
        .endHttpGet()
        .withPeriodSeconds(periodSeconds)
        .withTimeoutSeconds(5)
        .withFailureThreshold(failureThreshold)
        .build();
  }

  /** The user's fields over ours, one by one (a security context the user sets in part). */
  @SuppressWarnings("unchecked")
  private static Object fieldwise(Object ours, Object users) {
    return Overlay.overlay((Map<String, Object>) ours, (Map<String, Object>) users, Map.of());
  }

  @SuppressWarnings("unchecked")
  private static Object mergeContainers(Object ours, Object users) {
    List<Object> out = new ArrayList<>((List<Object>) ours);
    for (Object c : (List<Object>) users) {
      Map<String, Object> user = (Map<String, Object>) c;
      int at = indexOf(out, user.get("name"));
      if (at < 0) {
        out.add(user);
      } else {
        Map<String, Object> base = (Map<String, Object>) out.get(at);
        out.set(at, Overlay.overlay(base, user, ETCD_CONTAINER_RULES));
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static int indexOf(List<Object> containers, Object name) {
    for (int i = 0; i < containers.size(); i++) {
      if (((Map<String, Object>) containers.get(i)).get("name").equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
