package io.etcdoperator.e2e;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The objects aenix-io/etcd-operator creates for an EtcdCluster without {@code spec.security} and
 * with a claim template, as its factory code makes them (read at commit 6537618 of
 * internal/controller/factory: statefulset.go, configmap.go, svc.go, pvc.go, labels_builder.go), so
 * that a test can stand up a cluster exactly as that operator would leave it and hand it over.
 *
 * <p>What that operator creates:
 *
 * <ul>
 *   <li>Labels {@code app.kubernetes.io/name=etcd}, {@code instance=<cluster>}, {@code
 *       managed-by=etcd-operator} on every object, and as the selector of the StatefulSet and both
 *       Services (ours selects by the first two only).
 *   <li>ConfigMap {@code <cluster>-cluster-state}: {@code ETCD_INITIAL_CLUSTER} of every replica at
 *       {@code https://<pod>.<cluster>-headless.<ns>.svc:2380}, {@code ETCD_INITIAL_CLUSTER_STATE}
 *       {@code new} until the StatefulSet was Ready, then {@code existing}, {@code
 *       ETCD_INITIAL_CLUSTER_TOKEN} {@code <cluster>-<ns>}; the etcd container reads it with {@code
 *       envFrom}.
 *   <li>Services {@code <cluster>-headless} (peer and client ports, {@code clusterIP: None}, {@code
 *       publishNotReadyAddresses}) and {@code <cluster>} (client and metrics ports).
 *   <li>StatefulSet {@code <cluster>}: {@code Parallel}, the default {@code RollingUpdate}
 *       strategy, claim template {@code data} (so claims {@code data-<cluster>-<i>}), the data
 *       volume at {@code /var/run/etcd}, and etcd started with {@code --peer-auto-tls}: peers talk
 *       https with certificates etcd makes itself, which nobody verifies. No security context (the
 *       image's user, root), startup, liveness and readiness probes on the metrics port every 5 s,
 *       and the image {@code quay.io/coreos/etcd:v3.5.12}.
 * </ul>
 *
 * <p>Every object is owned by the EtcdCluster (a controller reference), as {@code
 * ctrl.SetControllerReference} makes it. The StatefulSet, the ConfigMap and the PodDisruptionBudget
 * (pdb.go: made when the spec has {@code podDisruptionBudgetTemplate}) carry no labels at all.
 */
final class AenixObjects {
  static final String IMAGE = "quay.io/coreos/etcd:v3.5.12";

  private AenixObjects() {}

  static Map<String, String> labels(String cluster) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app.kubernetes.io/name", "etcd");
    labels.put("app.kubernetes.io/instance", cluster);
    labels.put("app.kubernetes.io/managed-by", "etcd-operator");
    return labels;
  }

  /**
   * The resource as aenix's mutating webhook stores it: without emptyDir, the claim template gets
   * {@code ReadWriteOnce} and 4Gi where the spec sets none.
   */
  static EtcdCluster defaulted(EtcdCluster cluster) {
    var spec = cluster.getSpec();
    if (spec.getStorage() == null) {
      spec.setStorage(new io.etcdoperator.api.v1alpha1.StorageSpec());
    }
    var storage = spec.getStorage();
    if (storage.getEmptyDir() != null) {
      return cluster;
    }
    if (storage.getVolumeClaimTemplate() == null) {
      storage.setVolumeClaimTemplate(
          new io.etcdoperator.api.v1alpha1.EmbeddedPersistentVolumeClaim());
    }
    var template = storage.getVolumeClaimTemplate();
    if (template.getSpec() == null) {
      template.setSpec(new io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec());
    }
    var claim = template.getSpec();
    if (claim.getAccessModes() == null || claim.getAccessModes().isEmpty()) {
      claim.setAccessModes(List.of("ReadWriteOnce"));
    }
    if (claim.getResources() == null
        || claim.getResources().getRequests() == null
        || !claim.getResources().getRequests().containsKey("storage")) {
      claim.setResources(
          new io.fabric8.kubernetes.api.model.VolumeResourceRequirementsBuilder()
              .addToRequests("storage", new io.fabric8.kubernetes.api.model.Quantity("4Gi"))
              .build());
    }
    return cluster;
  }

  /**
   * Creates the ConfigMap, both Services, the PodDisruptionBudget (when the spec has a template)
   * and the StatefulSet, as aenix's first reconcile does.
   */
  static void create(KubernetesClient client, EtcdCluster cluster) {
    client.resource(clusterState(cluster, "new")).create();
    client.resource(headlessService(cluster)).create();
    client.resource(clientService(cluster)).create();
    if (cluster.getSpec().getPodDisruptionBudgetTemplate() != null) {
      client.resource(podDisruptionBudget(cluster)).create();
    }
    client.resource(statefulSet(cluster)).create();
  }

  /**
   * aenix's PodDisruptionBudget: no labels, minAvailable the quorum when the template sets neither
   * bound, and {@code unhealthyPodEvictionPolicy: IfHealthyBudget}.
   */
  static io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget podDisruptionBudget(
      EtcdCluster cluster) {
    String name = cluster.getMetadata().getName();
    var template = cluster.getSpec().getPodDisruptionBudgetTemplate().getSpec();
    var spec = new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpec();
    if (template != null) {
      spec.setMinAvailable(template.getMinAvailable());
      spec.setMaxUnavailable(template.getMaxUnavailable());
    }
    if (spec.getMinAvailable() == null && spec.getMaxUnavailable() == null) {
      spec.setMinAvailable(new IntOrString(cluster.getSpec().getReplicas() / 2 + 1));
    }
    spec.setSelector(
        new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
            .withMatchLabels(labels(name))
            .build());
    spec.setUnhealthyPodEvictionPolicy("IfHealthyBudget");
    return new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(cluster.getMetadata().getNamespace())
        .withOwnerReferences(owner(cluster))
        .endMetadata()
        .withSpec(spec)
        .build();
  }

  /**
   * What aenix's reconcile after the StatefulSet became Ready writes: the state {@code existing}.
   */
  static void markExisting(KubernetesClient client, EtcdCluster cluster) {
    client.resource(clusterState(cluster, "existing")).update();
  }

  static OwnerReference owner(EtcdCluster cluster) {
    return new OwnerReferenceBuilder()
        .withApiVersion(cluster.getApiVersion())
        .withKind(cluster.getKind())
        .withName(cluster.getMetadata().getName())
        .withUid(cluster.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  static ConfigMap clusterState(EtcdCluster cluster, String state) {
    String name = cluster.getMetadata().getName();
    String ns = cluster.getMetadata().getNamespace();
    List<String> members = new ArrayList<>();
    for (int i = 0; i < cluster.getSpec().getReplicas(); i++) {
      String pod = name + "-" + i;
      members.add(pod + "=https://" + pod + "." + name + "-headless." + ns + ".svc:2380");
    }
    Map<String, String> data = new TreeMap<>();
    data.put("ETCD_INITIAL_CLUSTER_STATE", state);
    data.put("ETCD_INITIAL_CLUSTER", String.join(",", members));
    data.put("ETCD_INITIAL_CLUSTER_TOKEN", name + "-" + ns);
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name + "-cluster-state")
        .withNamespace(ns)
        .withOwnerReferences(owner(cluster))
        .endMetadata()
        .withData(data)
        .build();
  }

  static Service headlessService(EtcdCluster cluster) {
    String name = cluster.getMetadata().getName();
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(name + "-headless")
        .withNamespace(cluster.getMetadata().getNamespace())
        .withLabels(labels(name))
        .withOwnerReferences(owner(cluster))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(labels(name))
        .withPorts(port("peer", 2380), port("client", 2379))
        .endSpec()
        .build();
  }

  static Service clientService(EtcdCluster cluster) {
    String name = cluster.getMetadata().getName();
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(cluster.getMetadata().getNamespace())
        .withLabels(labels(name))
        .withOwnerReferences(owner(cluster))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(labels(name))
        .withPorts(port("client", 2379), port("metrics", 2381))
        .endSpec()
        .build();
  }

  private static io.fabric8.kubernetes.api.model.ServicePort port(String name, int port) {
    return new ServicePortBuilder()
        .withName(name)
        .withPort(port)
        .withTargetPort(new IntOrString(port))
        .withProtocol("TCP")
        .build();
  }

  static StatefulSet statefulSet(EtcdCluster cluster) {
    String name = cluster.getMetadata().getName();
    String headless = name + "-headless";
    var template = cluster.getSpec().getStorage().getVolumeClaimTemplate();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--name=$(POD_NAME)",
                "--listen-metrics-urls=http://0.0.0.0:2381",
                "--listen-peer-urls=https://0.0.0.0:2380",
                "--listen-client-urls=http://0.0.0.0:2379",
                "--initial-advertise-peer-urls=https://$(POD_NAME)."
                    + headless
                    + ".$(POD_NAMESPACE).svc:2380",
                "--data-dir=/var/run/etcd/default.etcd",
                "--advertise-client-urls=http://$(POD_NAME)."
                    + headless
                    + ".$(POD_NAMESPACE).svc:2379",
                "--peer-auto-tls",
                "--auto-compaction-retention=5m",
                "--snapshot-count=10000"));
    // aenix sets quota-backend-bytes to 95% of the claim's request unless the spec sets it.
    Map<String, String> options =
        cluster.getSpec().getOptions() == null
            ? new TreeMap<>()
            : new TreeMap<>(cluster.getSpec().getOptions());
    if (!options.containsKey("quota-backend-bytes")) {
      long bytes =
          template
              .getSpec()
              .getResources()
              .getRequests()
              .get("storage")
              .getNumericalAmount()
              .longValue();
      options.put("quota-backend-bytes", Long.toString((long) Math.floor(bytes * 0.95)));
    }
    List<String> extra = new ArrayList<>();
    options.forEach((k, v) -> extra.add(v.isEmpty() ? "--" + k : "--" + k + "=" + v));
    extra.sort(null);
    args.addAll(extra);
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(cluster.getMetadata().getNamespace())
        .withOwnerReferences(owner(cluster))
        .endMetadata()
        .withNewSpec()
        .withReplicas(cluster.getSpec().getReplicas())
        .withServiceName(headless)
        .withPodManagementPolicy("Parallel")
        .withNewSelector()
        .withMatchLabels(labels(name))
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels(name))
        .endMetadata()
        .withNewSpec()
        .withContainers(
            new ContainerBuilder()
                .withName("etcd")
                .withImage(IMAGE)
                .withCommand("etcd")
                .withArgs(args)
                .addNewPort()
                .withName("peer")
                .withContainerPort(2380)
                .endPort()
                .addNewPort()
                .withName("client")
                .withContainerPort(2379)
                .endPort()
                .addNewEnvFrom()
                .withNewConfigMapRef()
                .withName(name + "-cluster-state")
                .endConfigMapRef()
                .endEnvFrom()
                .withStartupProbe(probe("/readyz?serializable=false"))
                .withLivenessProbe(probe("/livez"))
                .withReadinessProbe(probe("/readyz"))
                .addNewEnv()
                .withName("POD_NAME")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName("POD_NAMESPACE")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.namespace")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewVolumeMount()
                .withName("data")
                .withMountPath("/var/run/etcd")
                .endVolumeMount()
                .build())
        .addNewVolume()
        .withName("data")
        .withNewPersistentVolumeClaim()
        .withClaimName("data")
        .endPersistentVolumeClaim()
        .endVolume()
        .endSpec()
        .endTemplate()
        .withVolumeClaimTemplates(
            new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName("data")
                .endMetadata()
                .withSpec(template.getSpec())
                .build())
        .endSpec()
        .build();
  }

  private static Probe probe(String path) {
    return new ProbeBuilder()
        .withNewHttpGet()
        .withPath(path)
        .withPort(new IntOrString(2381))
        .endHttpGet()
        .withPeriodSeconds(5)
        .build();
  }
}
