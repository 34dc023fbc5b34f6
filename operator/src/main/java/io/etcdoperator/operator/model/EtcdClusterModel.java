package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.EmbeddedPodDisruptionBudget;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The desired Kubernetes objects of one {@code EtcdCluster}: built from its spec alone, with no
 * client, clock or I/O. {@link #of} validates once and throws {@link InvalidSpecException} listing
 * every problem; the {@code x()} methods then build fresh fabric8 objects on every call, so callers
 * may change what they get.
 *
 * <p>What the spec does not decide is a parameter: the StatefulSet's replicas (the planner grows
 * and shrinks it one member at a time) and the cluster state the ConfigMap announces ({@code new}
 * or {@code existing}, decided from the world).
 */
public final class EtcdClusterModel {
  /** The etcd image members run when the spec names none. */
  public static String defaultEtcdImage() {
    return EtcdFlags.DEFAULT_IMAGE;
  }

  private final String name;
  private final String namespace;
  private final String uid;
  private final EtcdClusterSpec spec;
  private final int replicas;
  private final PodTemplateSpec podTemplate;
  private final String podTemplateHash;

  private final Security security;

  private EtcdClusterModel(
      EtcdCluster resource,
      String operatorImage,
      String trustedCa,
      TlsMove move,
      Optional<PeerSecrets> kept) {
    this.name = resource.getMetadata().getName();
    this.namespace = resource.getMetadata().getNamespace();
    this.uid = resource.getMetadata().getUid();
    EtcdClusterSpec given = Overlay.copy(resource.getSpec(), EtcdClusterSpec.class);
    this.spec = given == null ? new EtcdClusterSpec() : given;
    this.replicas =
        spec.getReplicas() == null ? EtcdClusterSpec.DEFAULT_REPLICAS : spec.getReplicas();
    this.security = Security.of(spec.getSecurity(), move, kept);
    // kept as long as the spec stays the same, one per cluster, handed out as copies only
    this.podTemplate =
        Compactor.compact(MemberPod.template(name, spec, operatorImage, trustedCa, move, kept));
    this.podTemplateHash =
        podTemplate.getMetadata().getAnnotations().get(Names.POD_TEMPLATE_HASH_ANNOTATION);
  }

  /** Validates once; throws InvalidSpecException listing every problem (field path + reason). */
  public static EtcdClusterModel of(EtcdCluster resource) throws InvalidSpecException {
    return of(resource, Names.DEFAULT_OPERATOR_IMAGE, "");
  }

  /** As {@link #of(EtcdCluster)}, with the operator's own image (a restore's init container's). */
  public static EtcdClusterModel of(EtcdCluster resource, String operatorImage)
      throws InvalidSpecException {
    return of(resource, operatorImage, "");
  }

  /** As the five-argument {@code of}, with no move of peer TLS under way. */
  public static EtcdClusterModel of(EtcdCluster resource, String operatorImage, String trustedCa)
      throws InvalidSpecException {
    return of(resource, operatorImage, trustedCa, TlsMove.NONE, Optional.empty());
  }

  /**
   * The model with the operator's own image (what a restore's init container runs), its pod
   * template carrying {@code trustedCa} (the fingerprint of the CAs members load at start, see
   * {@code tls.CertificateCheck}; empty: none known; a change of those CAs is a change of the
   * template, so members restart one at a time), with the peer listeners of {@code move} while a
   * running cluster moves its peers to or off TLS, presenting the peer Secrets the members ran
   * ({@code kept}) while a move off TLS serves https.
   */
  public static EtcdClusterModel of(
      EtcdCluster resource,
      String operatorImage,
      String trustedCa,
      TlsMove move,
      Optional<PeerSecrets> kept)
      throws InvalidSpecException {
    List<SpecProblem> problems = SpecValidator.validate(resource);
    if (!problems.isEmpty()) {
      throw new InvalidSpecException(problems);
    }
    return new EtcdClusterModel(resource, operatorImage, trustedCa, move, kept);
  }

  /** What spec.security asks for. */
  public Security security() {
    return security;
  }

  public String name() {
    return name;
  }

  public String namespace() {
    return namespace;
  }

  /** {@code spec.replicas}, default {@value EtcdClusterSpec#DEFAULT_REPLICAS}. */
  public int replicas() {
    return replicas;
  }

  /** The initial-cluster token of this incarnation of the cluster (carries the resource's UID). */
  public String clusterToken() {
    return Names.clusterToken(namespace, name, uid);
  }

  /** Changes iff the pod template the members should run changes; never with replicas. */
  public String podTemplateHash() {
    return podTemplateHash;
  }

  /** The pod template every member should run, with its hash annotation. */
  public PodTemplateSpec podTemplate() {
    return Overlay.copy(podTemplate, PodTemplateSpec.class);
  }

  /** {@code spec.bootstrap.restore.source}, when the cluster starts from a snapshot. */
  public Optional<BackupDestination> restoreSource() {
    return spec.getBootstrap() == null || spec.getBootstrap().getRestore() == null
        ? Optional.empty()
        : Optional.ofNullable(spec.getBootstrap().getRestore().getSource());
  }

  /** The image of the etcd container, as the pod template has it. */
  public String etcdImage() {
    return podTemplate.getSpec().getContainers().stream()
        .filter(c -> Names.ETCD_CONTAINER.equals(c.getName()))
        .map(Container::getImage)
        .findFirst()
        .orElseThrow();
  }

  /** Defragmentation policy, space quota and claim size, with their defaults. */
  public Maintenance maintenance() {
    return Maintenance.of(spec);
  }

  /** What the spec's retention policy asks of the operator for members' claims. */
  public Target.ClaimPolicy claimPolicy() {
    return DataStorage.claimPolicy(spec);
  }

  public boolean usesPersistentStorage() {
    return DataStorage.persistent(spec);
  }

  /** The StatefulSet with {@code replicas} members: the planner decides, one step at a time. */
  public StatefulSet statefulSet(int replicas) {
    return new StatefulSetBuilder()
        .withMetadata(metadata(Names.statefulSet(name), Names.labels(name), null))
        .withNewSpec()
        .withReplicas(replicas)
        .withServiceName(Names.headlessService(name))
        .withPodManagementPolicy("Parallel")
        .withNewUpdateStrategy()
        .withType("OnDelete")
        .endUpdateStrategy()
        .withRevisionHistoryLimit(10)
        .withNewSelector()
        .withMatchLabels(Names.selectorLabels(name))
        .endSelector()
        .withTemplate(podTemplate())
        .withVolumeClaimTemplates(DataStorage.claimTemplates(name, spec))
        .withPersistentVolumeClaimRetentionPolicy(DataStorage.retentionPolicy())
        .endSpec()
        .build();
  }

  /**
   * The pod that rebuilds the cluster from the survivor of ordinal {@code survivor}: the member's
   * own pod, on the survivor's claim, under the survivor's name, with {@code --force-new-cluster}
   * added, no probes (the operator probes it itself), never restarted, and labels no Service or
   * StatefulSet selects. Only used while every member pod is stopped.
   */
  public Pod rebuildPod(int survivor) {
    PodTemplateSpec template = podTemplate();
    PodSpec pod = template.getSpec();
    String member = Names.member(name, survivor);
    pod.setHostname(member);
    pod.setSubdomain(Names.headlessService(name));
    pod.setRestartPolicy("Never");
    List<Volume> volumes = new ArrayList<>(pod.getVolumes() == null ? List.of() : pod.getVolumes());
    volumes.removeIf(v -> Names.DATA_VOLUME.equals(v.getName()));
    volumes.add(
        new VolumeBuilder()
            .withName(Names.DATA_VOLUME)
            .withNewPersistentVolumeClaim(Names.dataClaim(name, survivor), false)
            .build());
    pod.setVolumes(volumes);
    for (Container c : pod.getContainers()) {
      if (!Names.ETCD_CONTAINER.equals(c.getName())) {
        continue;
      }
      List<String> args = new ArrayList<>(c.getArgs() == null ? List.of() : c.getArgs());
      args.add("--force-new-cluster");
      c.setArgs(args);
      c.setStartupProbe(null);
      c.setLivenessProbe(null);
      c.setReadinessProbe(null);
      for (EnvVar env : c.getEnv()) {
        if (Names.ENV_POD_NAME.equals(env.getName())) {
          env.setValueFrom(null);
          env.setValue(member);
        }
      }
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(Names.LABEL_INSTANCE, name);
    labels.put(Names.LABEL_MANAGED_BY, Names.MANAGER);
    labels.put(Names.LABEL_COMPONENT, "rebuild");
    return new PodBuilder()
        .withMetadata(
            metadata(
                Names.rebuildPod(name),
                labels,
                new LinkedHashMap<>(Map.of(Names.SURVIVOR_ANNOTATION, Integer.toString(survivor)))))
        .withSpec(pod)
        .build();
  }

  /** {@code <cluster>-headless}: each member's stable DNS name, resolvable before it is ready. */
  public Service headlessService() {
    return ClusterServices.headless(this, spec.getHeadlessServiceTemplate());
  }

  /** {@code <cluster>}: the clients' Service, to ready members only. */
  public Service clientService() {
    return ClusterServices.client(this, spec.getServiceTemplate());
  }

  /**
   * {@code <cluster>-cluster-state}: what a member starting with an empty data dir joins, and the
   * state's annotations (the cluster ID recorded with quorum, the record of rebuilds).
   */
  public ConfigMap clusterStateConfigMap(ClusterState state) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put(Names.ENV_INITIAL_CLUSTER, state.initialCluster());
    data.put(Names.ENV_INITIAL_CLUSTER_STATE, state.kind().flagValue());
    data.put(Names.ENV_INITIAL_CLUSTER_TOKEN, state.token());
    Map<String, String> annotations =
        state.annotations().isEmpty() ? null : new LinkedHashMap<>(state.annotations());
    return new ConfigMapBuilder()
        .withMetadata(metadata(Names.clusterStateConfigMap(name), Names.labels(name), annotations))
        .withData(data)
        .build();
  }

  /** The budget for the spec's replicas; see {@link #podDisruptionBudget(int)}. */
  public Optional<PodDisruptionBudget> podDisruptionBudget() {
    return podDisruptionBudget(replicas);
  }

  /**
   * The budget while the StatefulSet runs {@code statefulSetReplicas} (empty: left as it is): it
   * follows the members that exist, not the target, since scaling 5 to 3 must not allow three
   * disruptions while five members still need three for quorum.
   */
  public Optional<PodDisruptionBudget> podDisruptionBudget(OptionalInt statefulSetReplicas) {
    return podDisruptionBudget(statefulSetReplicas.orElse(replicas));
  }

  /**
   * The merge patch that marks a claim with the member whose data it holds and that member's
   * cluster ({@value Names#MEMBER_ID_ANNOTATION}, {@value Names#CLUSTER_ID_ANNOTATION}, hex): a
   * claim a former member leaves behind is known for what it is, and the cluster's history survives
   * the loss of its ConfigMap. With whenDeleted Delete the EtcdCluster owns the claim (it goes with
   * the cluster), else nothing does.
   */
  public Map<String, Object> claimMark(long memberId, long clusterId) {
    return Map.of(
        "metadata",
        Map.of(
            "annotations",
            Map.of(
                Names.MEMBER_ID_ANNOTATION,
                Long.toHexString(memberId),
                Names.CLUSTER_ID_ANNOTATION,
                Long.toHexString(clusterId)),
            "ownerReferences",
            claimPolicy().withCluster()
                ? List.of(
                    Map.of(
                        "apiVersion",
                        EtcdCluster.API_VERSION,
                        "kind",
                        EtcdCluster.KIND,
                        "name",
                        name,
                        "uid",
                        uid,
                        "controller",
                        false,
                        "blockOwnerDeletion",
                        true))
                : List.of()));
  }

  /**
   * The template's budget if it sets one, else one that keeps quorum ({@code minAvailable =
   * members/2+1}) for 2 or more members, else none. While a cluster scales down, pass the number of
   * members it still has: a budget for the smaller target would allow too many disruptions.
   */
  public Optional<PodDisruptionBudget> podDisruptionBudget(int members) {
    EmbeddedPodDisruptionBudget template = spec.getPodDisruptionBudgetTemplate();
    var budget = template == null ? null : template.getSpec();
    boolean templateBudget =
        budget != null && (budget.getMinAvailable() != null || budget.getMaxUnavailable() != null);
    if (!templateBudget && members < 2) {
      return Optional.empty();
    }
    var meta = template == null ? null : template.getMetadata();
    return Optional.of(
        new PodDisruptionBudgetBuilder()
            .withMetadata(
                metadata(
                    Names.podDisruptionBudget(name),
                    Overlay.labels(name, meta),
                    Overlay.annotations(meta)))
            .withNewSpec()
            .withSelector(
                new LabelSelectorBuilder().withMatchLabels(Names.selectorLabels(name)).build())
            .withMinAvailable(
                templateBudget ? budget.getMinAvailable() : new IntOrString(members / 2 + 1))
            .withMaxUnavailable(templateBudget ? budget.getMaxUnavailable() : null)
            .endSpec()
            .build());
  }

  /** Everything, in the order to create it: what {@code render} prints. */
  public List<HasMetadata> all(ClusterState state, int replicas) {
    List<HasMetadata> all = new ArrayList<>();
    all.add(clusterStateConfigMap(state));
    all.add(headlessService());
    all.add(clientService());
    all.add(statefulSet(replicas));
    podDisruptionBudget(replicas).ifPresent(all::add);
    return all;
  }

  /** An object of this cluster: in its namespace, owned by its EtcdCluster. */
  ObjectMeta metadata(
      String objectName, Map<String, String> labels, Map<String, String> annotations) {
    return new ObjectMetaBuilder()
        .withName(objectName)
        .withNamespace(namespace)
        .withLabels(labels)
        .withAnnotations(annotations)
        .withOwnerReferences(owner())
        .build();
  }

  private OwnerReference owner() {
    return new OwnerReferenceBuilder()
        .withApiVersion(EtcdCluster.API_VERSION)
        .withKind(EtcdCluster.KIND)
        .withName(name)
        .withUid(uid)
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
