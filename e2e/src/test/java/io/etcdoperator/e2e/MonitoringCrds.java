package io.etcdoperator.e2e;

import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitorSpec;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The prometheus-operator's {@code PodMonitor} and {@code PrometheusRule} CRDs
 * (monitoring.coreos.com/v1), for a sandbox that has none, as a cluster without the
 * prometheus-operator has none. No registry reachable here serves their YAML, so their schemas are
 * generated from fabric8's Java model of those types (openshift-model-monitoring, itself generated
 * from the prometheus-operator's CRDs) with fabric8's CRD generator. The model's catch-all for
 * unknown fields is left out of the schema, as the real CRDs have none: a field the chart misspells
 * is pruned, as a real API server prunes it, and the test reading the object back sees it gone.
 */
final class MonitoringCrds {
  private MonitoringCrds() {}

  @Group("monitoring.coreos.com")
  @Version("v1")
  @Kind("PodMonitor")
  @Plural("podmonitors")
  static final class PodMonitor extends CustomResource<PodMonitorSpec, Void>
      implements Namespaced {}

  @Group("monitoring.coreos.com")
  @Version("v1")
  @Kind("PrometheusRule")
  @Plural("prometheusrules")
  static final class PrometheusRule extends CustomResource<PrometheusRuleSpec, Void>
      implements Namespaced {}

  /** Creates both CRDs and waits until the API server serves them. */
  static void install(KubernetesClient k, Path dir) throws IOException {
    Files.createDirectories(dir);
    new CRDGenerator()
        .customResourceClasses(PodMonitor.class, PrometheusRule.class)
        .forCRDVersions("v1")
        .inOutputDir(dir.toFile())
        .generate();
    List<Path> files;
    try (Stream<Path> all = Files.list(dir)) {
      files = all.filter(f -> f.toString().endsWith("-v1.yml")).sorted().toList();
    }
    if (files.size() != 2) {
      throw new IllegalStateException("expected two generated CRDs in " + dir + ": " + files);
    }
    for (Path file : files) {
      CustomResourceDefinition crd;
      try (InputStream in = Files.newInputStream(file)) {
        crd = k.apiextensions().v1().customResourceDefinitions().load(in).item();
      }
      crd.getSpec().getVersions().forEach(v -> strict(v.getSchema().getOpenAPIV3Schema()));
      k.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }
  }

  /** Leaves out, at every level, the catch-all that keeps unknown fields. */
  private static void strict(JSONSchemaProps schema) {
    if (schema == null) {
      return;
    }
    if (schema.getProperties() != null && !schema.getProperties().isEmpty()) {
      schema.setXKubernetesPreserveUnknownFields(null);
      schema.getProperties().values().forEach(MonitoringCrds::strict);
    }
    if (schema.getItems() != null) {
      strict(schema.getItems().getSchema());
    }
  }
}
