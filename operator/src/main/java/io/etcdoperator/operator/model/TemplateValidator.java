package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EmbeddedObjectMetadata;
import io.etcdoperator.api.v1alpha1.EmbeddedPodDisruptionBudget;
import io.etcdoperator.api.v1alpha1.EmbeddedService;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * The problems of the templates an EtcdCluster lays over the operator's objects: their metadata
 * (labels the operator sets, annotations under its prefix), the Services (the selector is the
 * operator's, the headless Service must stay headless) and the PodDisruptionBudget (one valid
 * budget), each reported as (field path, reason).
 */
final class TemplateValidator {
  private final String cluster;
  private final BiConsumer<String, String> problem;

  TemplateValidator(String cluster, BiConsumer<String, String> problem) {
    this.cluster = cluster;
    this.problem = problem;
  }

  private void problem(String field, String message) {
    problem.accept(field, message);
  }

  void metadata(String path, EmbeddedObjectMetadata meta) {
    if (meta == null) {
      return;
    }
    if (meta.getLabels() != null) {
      Map<String, String> ours = Names.labels(cluster);
      new TreeMap<>(meta.getLabels())
          .forEach(
              (k, v) -> {
                Labels.keyProblem(k).ifPresent(why -> problem(path + ".labels." + k, why));
                Labels.valueProblem(v).ifPresent(why -> problem(path + ".labels." + k, why));
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
                Labels.keyProblem(k).ifPresent(why -> problem(path + ".annotations." + k, why));
                if (k.startsWith(Names.ANNOTATION_PREFIX)) {
                  problem(
                      path + ".annotations." + k,
                      "annotations under " + Names.ANNOTATION_PREFIX + " belong to the operator");
                }
              });
    }
  }

  void service(String path, EmbeddedService template, boolean headless) {
    if (template == null) {
      return;
    }
    metadata(path + ".metadata", template.getMetadata());
    ServiceSpec spec = template.getSpec();
    if (spec == null) {
      return;
    }
    for (int i = 0; i < spec.getPorts().size(); i++) {
      String name = spec.getPorts().get(i).getName();
      if (name == null || name.isEmpty()) {
        problem(
            path + ".spec.ports[" + i + "].name",
            "required: the operator's Service has its own named port, and a Service with"
                + " several ports names each");
      }
    }
    if (!spec.getSelector().isEmpty()) {
      problem(
          path + ".spec.selector", "set by the operator (the cluster's member pods); remove it");
    }
    if (!spec.getExternalIPs().isEmpty()) {
      problem(
          path + ".spec.externalIPs",
          "not allowed: a Service's externalIPs can capture traffic for any address in the cluster"
              + " (CVE-2020-8554); expose etcd through a LoadBalancer or an Ingress instead");
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

  /** {@code spec.podDisruptionBudgetTemplate}: its metadata, and one valid budget. */
  void budget(EmbeddedPodDisruptionBudget pdb) {
    if (pdb == null) {
      return;
    }
    metadata("spec.podDisruptionBudgetTemplate.metadata", pdb.getMetadata());
    if (pdb.getSpec() != null
        && pdb.getSpec().getMinAvailable() != null
        && pdb.getSpec().getMaxUnavailable() != null) {
      problem(
          "spec.podDisruptionBudgetTemplate.spec", "set minAvailable or maxUnavailable, not both");
    }
    if (pdb.getSpec() != null) {
      intOrPercent(
          "spec.podDisruptionBudgetTemplate.spec.minAvailable", pdb.getSpec().getMinAvailable());
      intOrPercent(
          "spec.podDisruptionBudgetTemplate.spec.maxUnavailable",
          pdb.getSpec().getMaxUnavailable());
    }
  }

  /** A count of pods or a percentage of them, as a PodDisruptionBudget takes it. */
  private void intOrPercent(String field, IntOrString v) {
    if (v == null) {
      return;
    }
    if (v.getIntVal() != null) {
      if (v.getIntVal() < 0) {
        problem(field, "must be 0 or more, got " + v.getIntVal());
      }
      return;
    }
    String s = v.getStrVal();
    if (s == null || !s.matches("[0-9]{1,9}%")) {
      problem(field, "a number of pods or a percentage such as 50%, got '" + s + "'");
    } else if (Integer.parseInt(s.substring(0, s.length() - 1)) > 100) {
      problem(field, "at most 100%, got " + s);
    }
  }
}
