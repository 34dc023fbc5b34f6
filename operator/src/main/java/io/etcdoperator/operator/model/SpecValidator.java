package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EmbeddedObjectMetadata;
import io.etcdoperator.api.v1alpha1.EmbeddedPersistentVolumeClaim;
import io.etcdoperator.api.v1alpha1.EmbeddedService;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.api.v1alpha1.StorageSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Every reason an {@code EtcdCluster} cannot be run, each with the path of the field. Admission
 * (the CRD's schema and CEL rules) catches some of these first on a real API server; this class
 * checks them all again, because {@code render} reads files and the test API server runs no CEL.
 */
final class SpecValidator {
  private static final Pattern DNS_1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern FLAG_NAME = Pattern.compile("[a-z0-9][a-z0-9.-]*");
  private static final Map<Integer, String> ETCD_PORTS =
      Map.of(
          Names.CLIENT_PORT, Names.CLIENT_PORT_NAME,
          Names.PEER_PORT, Names.PEER_PORT_NAME,
          Names.METRICS_PORT, Names.METRICS_PORT_NAME);

  private final List<SpecProblem> problems = new ArrayList<>();
  private String cluster;

  private SpecValidator() {}

  /** Every problem of the resource, in the order of its fields; empty when it can be run. */
  static List<SpecProblem> validate(EtcdCluster resource) {
    SpecValidator v = new SpecValidator();
    v.metadata(resource);
    EtcdClusterSpec spec = resource.getSpec() == null ? new EtcdClusterSpec() : resource.getSpec();
    v.spec(spec);
    return List.copyOf(v.problems);
  }

  private void problem(String field, String message) {
    problems.add(new SpecProblem(field, message));
  }

  private void metadata(EtcdCluster resource) {
    var meta = resource.getMetadata();
    cluster = meta == null ? null : meta.getName();
    if (cluster == null || cluster.isEmpty()) {
      problem("metadata.name", "required");
    } else if (!DNS_1035_LABEL.matcher(cluster).matches()) {
      problem(
          "metadata.name",
          "must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter and"
              + " ending with a letter or digit): it names the cluster's Services");
    } else if (cluster.length() > Names.MAX_CLUSTER_NAME_LENGTH) {
      problem(
          "metadata.name",
          "must be at most "
              + Names.MAX_CLUSTER_NAME_LENGTH
              + " characters, got "
              + cluster.length()
              + ": pods carry the label controller-revision-hash=<name>-<hash>, at most 63");
    }
    if (meta == null || meta.getNamespace() == null || meta.getNamespace().isEmpty()) {
      problem("metadata.namespace", "required");
    }
  }

  private void spec(EtcdClusterSpec spec) {
    if (spec.getReplicas() != null && spec.getReplicas() < 0) {
      problem("spec.replicas", "must be 0 or more, got " + spec.getReplicas());
    }
    if (spec.getReplicas() != null && spec.getReplicas() == 0 && !DataStorage.persistent(spec)) {
      problem(
          "spec.replicas",
          "0 with emptyDir storage would delete every member's data; only a cluster on a"
              + " volumeClaimTemplate can hibernate");
    }
    options(spec.getOptions());
    if (spec.getBootstrap() != null && spec.getBootstrap().getRestore() != null) {
      for (String p :
          BackupSpecs.destination(
              spec.getBootstrap().getRestore().getSource(),
              "spec.bootstrap.restore.source",
              true)) {
        int colon = p.indexOf(": ");
        problem(p.substring(0, colon), p.substring(colon + 2));
      }
    }
    if (spec.getPodTemplate() != null) {
      templateMetadata("spec.podTemplate.metadata", spec.getPodTemplate().getMetadata());
      if (spec.getPodTemplate().getSpec() != null) {
        podSpec(spec.getPodTemplate().getSpec());
      }
    }
    service("spec.serviceTemplate", spec.getServiceTemplate(), false);
    service("spec.headlessServiceTemplate", spec.getHeadlessServiceTemplate(), true);
    if (spec.getPodDisruptionBudgetTemplate() != null) {
      var pdb = spec.getPodDisruptionBudgetTemplate();
      templateMetadata("spec.podDisruptionBudgetTemplate.metadata", pdb.getMetadata());
      if (pdb.getSpec() != null
          && pdb.getSpec().getMinAvailable() != null
          && pdb.getSpec().getMaxUnavailable() != null) {
        problem(
            "spec.podDisruptionBudgetTemplate.spec",
            "set minAvailable or maxUnavailable, not both");
      }
    }
    storage(spec.getStorage());
    if (spec.getSecurity() != null) {
      problem(
          "spec.security",
          "TLS and authentication are not supported yet; remove spec.security rather than run"
              + " without the security it asks for");
    }
  }

  private void options(Map<String, String> options) {
    if (options == null) {
      return;
    }
    new TreeMap<>(options)
        .forEach(
            (key, value) -> {
              String field = "spec.options." + key;
              if (key.startsWith("-")) {
                problem(
                    field,
                    "write the flag name without leading dashes: '"
                        + key.replaceFirst("^-+", "")
                        + "'");
              } else if (!FLAG_NAME.matcher(key).matches()) {
                problem(field, "not an etcd flag name (lowercase letters, digits, '-' and '.')");
              } else if (EtcdFlags.ownedBecause(key).isPresent()) {
                problem(field, ownedFlag(key));
              } else if (value == null) {
                problem(field, "a value is required (write \"true\" for a boolean flag)");
              }
            });
  }

  private static String ownedFlag(String flag) {
    return "--"
        + flag
        + " is set by the operator ("
        + EtcdFlags.ownedBecause(flag).orElseThrow()
        + "); remove it";
  }

  private void templateMetadata(String path, EmbeddedObjectMetadata meta) {
    if (meta == null) {
      return;
    }
    if (meta.getLabels() != null) {
      Map<String, String> ours = Names.labels(cluster == null ? "" : cluster);
      new TreeMap<>(meta.getLabels())
          .forEach(
              (k, v) -> {
                if (ours.containsKey(k) && !ours.get(k).equals(v)) {
                  problem(
                      path + ".labels." + k,
                      "the operator sets this label to '" + ours.get(k) + "'; remove it");
                }
              });
    }
    if (meta.getAnnotations() != null) {
      new TreeMap<>(meta.getAnnotations())
          .keySet()
          .forEach(
              k -> {
                if (k.startsWith(Names.ANNOTATION_PREFIX)) {
                  problem(
                      path + ".annotations." + k,
                      "annotations under " + Names.ANNOTATION_PREFIX + " belong to the operator");
                }
              });
    }
  }

  private void podSpec(PodSpec pod) {
    String path = "spec.podTemplate.spec";
    Set<String> names = new HashSet<>();
    containers(path + ".initContainers", pod.getInitContainers(), names);
    containers(path + ".containers", pod.getContainers(), names);
    for (int i = 0; i < pod.getVolumes().size(); i++) {
      if (Names.DATA_VOLUME.equals(pod.getVolumes().get(i).getName())) {
        problem(
            path + ".volumes[" + i + "].name",
            "'" + Names.DATA_VOLUME + "' is the operator's data volume; choose another name");
      }
    }
  }

  private void containers(String path, List<Container> containers, Set<String> names) {
    boolean init = path.endsWith("initContainers");
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      String at = path + "[" + i + "]";
      if (c.getName() == null || c.getName().isEmpty()) {
        problem(at + ".name", "required");
        continue;
      }
      if (!names.add(c.getName())) {
        problem(at + ".name", "duplicate container name '" + c.getName() + "'");
      }
      if (init && Names.ETCD_CONTAINER.equals(c.getName())) {
        problem(
            at + ".name",
            "'" + Names.ETCD_CONTAINER + "' is the etcd container's name; choose another");
      }
      boolean etcd = !init && Names.ETCD_CONTAINER.equals(c.getName());
      if (etcd) {
        etcdContainer(at, c);
      }
      if (!init) {
        ports(at, c.getPorts(), etcd);
      }
    }
  }

  private void etcdContainer(String path, Container c) {
    for (int i = 0; i < c.getEnv().size(); i++) {
      EnvVar env = c.getEnv().get(i);
      String field = path + ".env[" + i + "].name";
      if (Names.ENV_POD_NAME.equals(env.getName())
          || Names.ENV_POD_NAMESPACE.equals(env.getName())) {
        problem(field, env.getName() + " is set by the operator (member identity); remove it");
      } else {
        EtcdFlags.ownedFlagOfEnv(env.getName())
            .ifPresent(
                flag ->
                    problem(
                        field,
                        env.getName()
                            + " sets --"
                            + flag
                            + ", which is set by the operator ("
                            + EtcdFlags.ownedBecause(flag).orElseThrow()
                            + "); remove it"));
      }
    }
    for (int i = 0; i < c.getVolumeMounts().size(); i++) {
      VolumeMount m = c.getVolumeMounts().get(i);
      if (Names.DATA_VOLUME.equals(m.getName())) {
        problem(
            path + ".volumeMounts[" + i + "].name",
            "'"
                + Names.DATA_VOLUME
                + "' is mounted by the operator at "
                + Names.DATA_MOUNT_PATH
                + "; remove it");
      } else if (Names.DATA_MOUNT_PATH.equals(m.getMountPath())) {
        problem(
            path + ".volumeMounts[" + i + "].mountPath",
            Names.DATA_MOUNT_PATH + " is the operator's data mount; choose another path");
      }
    }
  }

  private void ports(String path, List<ContainerPort> ports, boolean etcd) {
    for (int i = 0; i < ports.size(); i++) {
      ContainerPort p = ports.get(i);
      String field = path + ".ports[" + i + "].containerPort";
      String ours = ETCD_PORTS.get(p.getContainerPort());
      if (ours != null && !(etcd && ours.equals(p.getName()))) {
        problem(field, p.getContainerPort() + " is etcd's " + ours + " port; use another port");
      } else if (etcd && ETCD_PORTS.containsValue(p.getName()) && ours == null) {
        problem(
            field,
            "port '"
                + p.getName()
                + "' is "
                + portOf(p.getName())
                + ", where etcd listens; got "
                + p.getContainerPort());
      }
    }
  }

  private static int portOf(String name) {
    return ETCD_PORTS.entrySet().stream()
        .filter(e -> e.getValue().equals(name))
        .findFirst()
        .orElseThrow()
        .getKey();
  }

  private void service(String path, EmbeddedService template, boolean headless) {
    if (template == null) {
      return;
    }
    templateMetadata(path + ".metadata", template.getMetadata());
    ServiceSpec spec = template.getSpec();
    if (spec == null) {
      return;
    }
    if (!spec.getSelector().isEmpty()) {
      problem(
          path + ".spec.selector", "set by the operator (the cluster's member pods); remove it");
    }
    if (!headless) {
      return;
    }
    String why = " (the headless Service gives each member its DNS name)";
    if (spec.getClusterIP() != null && !"None".equals(spec.getClusterIP())) {
      problem(
          path + ".spec.clusterIP", "must be None" + why + ", got '" + spec.getClusterIP() + "'");
    }
    if (spec.getType() != null && !"ClusterIP".equals(spec.getType())) {
      problem(path + ".spec.type", "must be ClusterIP" + why + ", got '" + spec.getType() + "'");
    }
    if (Boolean.FALSE.equals(spec.getPublishNotReadyAddresses())) {
      problem(
          path + ".spec.publishNotReadyAddresses",
          "must be true: members resolve each other's names before they are ready");
    }
  }

  private void storage(StorageSpec storage) {
    if (storage == null) {
      return;
    }
    if (storage.getEmptyDir() != null && storage.getVolumeClaimTemplate() != null) {
      problem("spec.storage", "set exactly one of emptyDir or volumeClaimTemplate, not both");
    }
    EmbeddedPersistentVolumeClaim claim = storage.getVolumeClaimTemplate();
    if (claim != null) {
      templateMetadata("spec.storage.volumeClaimTemplate.metadata", claim.getMetadata());
      String field = "spec.storage.volumeClaimTemplate.spec.resources.requests.storage";
      Quantity size =
          claim.getSpec() == null || claim.getSpec().getResources() == null
              ? null
              : claim.getSpec().getResources().getRequests().get("storage");
      if (size == null) {
        problem(field, "required: the size of each member's volume, e.g. 4Gi");
      } else {
        size(field, size);
      }
    }
  }

  private void size(String field, Quantity size) {
    BigDecimal bytes;
    try {
      bytes = size.getNumericalAmount();
    } catch (IllegalArgumentException | ArithmeticException e) {
      problem(field, "not a quantity: '" + size + "'");
      return;
    }
    if (bytes.signum() <= 0) {
      problem(field, "must be more than 0, got " + size);
    }
  }
}
