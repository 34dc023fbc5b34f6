package io.etcdoperator.sandbox;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Hand-written objects shaped like the operator's, for tests of the stand-in. */
final class Manifests {
  private Manifests() {}

  static Service headless(String cluster) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(cluster + "-headless")
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(Map.of("app", cluster))
        .addNewPort()
        .withName("peer")
        .withPort(2380)
        .endPort()
        .addNewPort()
        .withName("client")
        .withPort(2379)
        .endPort()
        .endSpec()
        .build();
  }

  static Service client(String cluster) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(cluster)
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withSelector(Map.of("app", cluster))
        .addNewPort()
        .withName("client")
        .withPort(2379)
        .withTargetPort(new IntOrString(2379))
        .endPort()
        .endSpec()
        .build();
  }

  static ConfigMap clusterState(String cluster, int replicas) {
    String initial =
        IntStream.range(0, replicas)
            .mapToObj(
                i ->
                    cluster
                        + "-"
                        + i
                        + "=http://"
                        + cluster
                        + "-"
                        + i
                        + "."
                        + cluster
                        + "-headless.default.svc:2380")
            .collect(Collectors.joining(","));
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(cluster + "-cluster-state")
        .withNamespace("default")
        .endMetadata()
        .withData(
            Map.of(
                "ETCD_INITIAL_CLUSTER",
                initial,
                "ETCD_INITIAL_CLUSTER_STATE",
                "new",
                "ETCD_INITIAL_CLUSTER_TOKEN",
                cluster + "-token"))
        .build();
  }

  static Container etcdContainer(String cluster) {
    String host = "$(POD_NAME)." + cluster + "-headless.$(POD_NAMESPACE).svc";
    return new ContainerBuilder()
        .withName("etcd")
        .withImage("quay.io/coreos/etcd:v3.5.12")
        .withCommand("etcd")
        .withArgs(
            "--name=$(POD_NAME)",
            "--data-dir=/var/run/etcd/default.etcd",
            "--listen-peer-urls=http://0.0.0.0:2380",
            "--listen-client-urls=http://0.0.0.0:2379",
            "--listen-metrics-urls=http://0.0.0.0:2381",
            "--initial-advertise-peer-urls=http://" + host + ":2380",
            "--advertise-client-urls=http://" + host + ":2379")
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
        .addNewEnvFrom()
        .withNewConfigMapRef()
        .withName(cluster + "-cluster-state")
        .endConfigMapRef()
        .endEnvFrom()
        .addNewVolumeMount()
        .withName("data")
        .withMountPath("/var/run/etcd")
        .endVolumeMount()
        .withNewReadinessProbe()
        .withNewHttpGet()
        .withPath("/health")
        .withPort(new IntOrString(2381))
        .endHttpGet()
        .withPeriodSeconds(1)
        .withFailureThreshold(3)
        .endReadinessProbe()
        .build();
  }

  static StatefulSet etcd(String cluster, int replicas) {
    return statefulSet(cluster, replicas, etcdContainer(cluster));
  }

  static StatefulSet statefulSet(String name, int replicas, Container container) {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withServiceName(name + "-headless")
        .withPodManagementPolicy("Parallel")
        .withNewUpdateStrategy()
        .withType("OnDelete")
        .endUpdateStrategy()
        .withNewSelector()
        .withMatchLabels(Map.of("app", name))
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Map.of("app", name))
        .endMetadata()
        .withNewSpec()
        .withContainers(container)
        .withTerminationGracePeriodSeconds(5L)
        .endSpec()
        .endTemplate()
        .addNewVolumeClaimTemplate()
        .withNewMetadata()
        .withName("data")
        .endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withNewResources()
        .withRequests(Map.of("storage", new Quantity("1Gi")))
        .endResources()
        .endSpec()
        .endVolumeClaimTemplate()
        .endSpec()
        .build();
  }

  /** A container running {@code sh -c script}. */
  static Container shell(String name, String script) {
    return new ContainerBuilder()
        .withName(name)
        .withImage("busybox")
        .withCommand("/bin/sh", "-c", script)
        .build();
  }

  static List<String> endpoints(String cluster, int replicas) {
    return IntStream.range(0, replicas)
        .mapToObj(i -> "http://" + cluster + "-" + i + "." + cluster + "-headless.default.svc:2379")
        .toList();
  }
}
