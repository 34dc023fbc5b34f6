package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rules by which spec.podTemplate is laid over the operator's pod. */
class PodTemplateOverlayTest {

  static PodTemplateSpec template(String spec) {
    return TestClusters.model(spec).podTemplate();
  }

  static Container etcd(PodTemplateSpec t) {
    return t.getSpec().getContainers().stream()
        .filter(c -> c.getName().equals("etcd"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void withoutTemplateTheOperatorsEtcdContainerRuns() {
    Container etcd = etcd(template("{}"));
    assertThat(etcd.getImage()).isEqualTo("quay.io/coreos/etcd:v3.5.30");
    assertThat(etcd.getCommand()).containsExactly("etcd");
    assertThat(etcd.getArgs())
        .containsExactly(
            "--name=$(POD_NAME)",
            "--data-dir=/var/run/etcd/default.etcd",
            "--listen-peer-urls=http://[::]:2380",
            "--listen-client-urls=http://[::]:2379",
            "--listen-metrics-urls=http://[::]:2381",
            "--initial-advertise-peer-urls=http://$(POD_NAME).demo-headless.$(POD_NAMESPACE).svc:2380",
            "--advertise-client-urls=http://$(POD_NAME).demo-headless.$(POD_NAMESPACE).svc:2379",
            "--auto-compaction-mode=periodic",
            "--auto-compaction-retention=5m",
            "--experimental-corrupt-check-time=5m",
            "--experimental-initial-corrupt-check=true");
    assertThat(etcd.getEnv())
        .extracting(EnvVar::getName)
        .containsExactly("POD_NAME", "POD_NAMESPACE");
    assertThat(etcd.getEnvFrom().get(0).getConfigMapRef().getName())
        .isEqualTo("demo-cluster-state");
    assertThat(etcd.getVolumeMounts())
        .extracting(VolumeMount::getName, VolumeMount::getMountPath)
        .containsExactly(tuple("data", "/var/run/etcd"));
  }

  @Test
  void optionsBecomeFlagsSortedByName() {
    Container etcd =
        etcd(template("options: {snapshot-count: '10000', auto-compaction-retention: '1h'}"));
    assertThat(etcd.getArgs())
        .endsWith("--auto-compaction-retention=1h", "--snapshot-count=10000")
        .hasSize(11);
  }

  @Test
  void optionsReplaceTheCorruptionCheckDefaults() {
    Container etcd = etcd(template("options: {experimental-corrupt-check-time: '1m'}"));
    assertThat(etcd.getArgs())
        .contains(
            "--experimental-corrupt-check-time=1m", "--experimental-initial-corrupt-check=true")
        .doesNotContain("--experimental-corrupt-check-time=5m");
  }

  @Test
  void probesDoNotDependOnQuorumExceptReadiness() {
    Container etcd = etcd(template("{}"));
    assertThat(etcd.getStartupProbe().getHttpGet().getPath()).isEqualTo("/version");
    assertThat(etcd.getStartupProbe().getHttpGet().getPort().getIntVal()).isEqualTo(2380);
    assertThat(etcd.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/version");
    assertThat(etcd.getLivenessProbe().getHttpGet().getPort().getIntVal()).isEqualTo(2380);
    assertThat(etcd.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(etcd.getReadinessProbe().getHttpGet().getPort().getIntVal()).isEqualTo(2381);
  }

  /**
   * Readiness asks {@code /readyz} where etcd has it (3.5.11), else {@code /health}; liveness over
   * peer TLS asks {@code /livez} where etcd has it, else {@code /metrics}. An etcd before 3.5.11
   * answers 404 to both new paths: a probe of them would never succeed.
   */
  @ParameterizedTest
  @CsvSource({
    "quay.io/coreos/etcd:v3.4.23, /health?exclude=NOSPACE, /metrics",
    "quay.io/coreos/etcd:v3.5.0, /health?exclude=NOSPACE, /metrics",
    "registry.local/etcd:v3.5.10, /health?exclude=NOSPACE, /metrics",
    "quay.io/coreos/etcd:v3.5.11, /readyz, /livez",
    "quay.io/coreos/etcd:v3.5.30, /readyz, /livez",
    "registry.local/etcd:latest, /health?exclude=NOSPACE, /metrics",
  })
  void probesAskOnlyWhatTheImagesEtcdServes(String image, String readiness, String liveness)
      throws InvalidSpecException {
    var cluster =
        TestClusters.withSpec(
            "replicas: 3\npodTemplate:\n  spec:\n    containers:\n    - name: etcd\n      image: "
                + image
                + "\n");
    Container etcd =
        etcd(
            EtcdClusterModel.of(
                    cluster, Names.DEFAULT_OPERATOR_IMAGE, "", TlsMove.AUTO_TLS, Optional.empty())
                .podTemplate());
    assertThat(etcd.getReadinessProbe().getHttpGet().getPath()).isEqualTo(readiness);
    assertThat(etcd.getReadinessProbe().getTimeoutSeconds())
        .as("a probe held while the member has no leader ends within 2 s")
        .isEqualTo(2);
    assertThat(etcd.getLivenessProbe().getHttpGet().getPath()).isEqualTo(liveness);
    assertThat(etcd.getStartupProbe().getHttpGet().getPath()).isEqualTo(liveness);
  }

  @Test
  void seedNginxManifestIsRefusedNamingItsCommandAndArgs() {
    // The seed's first manifest runs "sh -c sleep" in place of etcd: the operator would wait for a
    // member that never answers. It is refused before anything is created, naming both fields.
    assertThatThrownBy(
            () ->
                EtcdClusterModel.of(TestClusters.read(Path.of("../examples/seed-000-nginx.yaml"))))
        .isInstanceOf(InvalidSpecException.class)
        .hasMessageContaining("spec.podTemplate.spec.containers[0].args")
        .hasMessageContaining("spec.podTemplate.spec.containers[0].command")
        .hasMessageContaining("[/bin/sh]");
  }

  @Test
  void etcdContainerFieldsTheUserSetsReplaceOurs() {
    Container etcd =
        etcd(
            template(
                """
                podTemplate:
                  spec:
                    containers:
                    - name: etcd
                      image: registry.local/etcd:v3.5.9
                      imagePullPolicy: Always
                      resources:
                        requests: {cpu: 500m, memory: 1Gi}
                      securityContext: {runAsUser: 1000}
                      livenessProbe:
                        tcpSocket: {port: 2380}
                """));
    assertThat(etcd.getImage()).isEqualTo("registry.local/etcd:v3.5.9");
    assertThat(etcd.getImagePullPolicy()).isEqualTo("Always");
    assertThat(etcd.getResources().getRequests()).containsEntry("memory", new Quantity("1Gi"));
    assertThat(etcd.getSecurityContext().getRunAsUser()).isEqualTo(1000L);
    assertThat(etcd.getLivenessProbe().getHttpGet()).isNull();
    assertThat(etcd.getLivenessProbe().getTcpSocket().getPort().getIntVal()).isEqualTo(2380);
    // Fields not set are ours.
    assertThat(etcd.getCommand()).containsExactly("etcd");
    assertThat(etcd.getReadinessProbe().getHttpGet().getPath())
        .isEqualTo("/health?exclude=NOSPACE");
  }

  @Test
  void envVolumeMountsAndPortsMergeByName() {
    Container etcd =
        etcd(
            template(
                """
                podTemplate:
                  spec:
                    volumes:
                    - name: backup
                      emptyDir: {}
                    containers:
                    - name: etcd
                      env:
                      - {name: GOMAXPROCS, value: "2"}
                      volumeMounts:
                      - {name: backup, mountPath: /backup}
                      ports:
                      - {name: client, containerPort: 2379, hostPort: 2379}
                """));
    assertThat(etcd.getEnv())
        .extracting(EnvVar::getName)
        .containsExactly("POD_NAME", "POD_NAMESPACE", "GOMAXPROCS");
    assertThat(etcd.getEnvFrom())
        .extracting(e -> e.getConfigMapRef().getName())
        .containsExactly("demo-cluster-state");
    assertThat(etcd.getVolumeMounts())
        .extracting(VolumeMount::getName)
        .containsExactly("data", "backup");
    assertThat(etcd.getPorts()).hasSize(3);
    assertThat(etcd.getPorts().get(0).getHostPort()).isEqualTo(2379);
    assertThat(etcd.getPorts().get(0).getProtocol()).isEqualTo("TCP");
  }

  @Test
  void otherContainersInitContainersAndVolumesAreAdded() {
    PodSpec spec =
        template(
                """
                podTemplate:
                  spec:
                    initContainers:
                    - {name: wait, image: busybox:1.36}
                    containers:
                    - {name: exporter, image: exporter:latest}
                    - {name: etcd, image: etcd:v3.5.17}
                    volumes:
                    - name: config
                      configMap: {name: etcd-extra}
                """)
            .getSpec();
    assertThat(spec.getContainers())
        .extracting(Container::getName)
        .containsExactly("etcd", "exporter");
    assertThat(spec.getInitContainers()).extracting(Container::getName).containsExactly("wait");
    assertThat(spec.getVolumes()).hasSize(1);
    assertThat(spec.getVolumes().get(0).getConfigMap().getDefaultMode()).isEqualTo(420);
    // Server defaults are written for the user's containers too.
    assertThat(spec.getContainers().get(1).getImagePullPolicy()).isEqualTo("Always");
    assertThat(spec.getInitContainers().get(0).getImagePullPolicy()).isEqualTo("IfNotPresent");
    assertThat(spec.getInitContainers().get(0).getTerminationMessagePath())
        .isEqualTo("/dev/termination-log");
  }

  @Test
  void podFieldsTheUserSetsAreTaken() {
    PodSpec spec =
        template(
                """
                podTemplate:
                  spec:
                    nodeSelector: {disk: ssd}
                    tolerations:
                    - {key: dedicated, operator: Equal, value: etcd, effect: NoSchedule}
                    affinity:
                      podAntiAffinity:
                        requiredDuringSchedulingIgnoredDuringExecution:
                        - topologyKey: kubernetes.io/hostname
                          labelSelector:
                            matchLabels: {app.kubernetes.io/instance: demo}
                    securityContext: {fsGroup: 1000}
                    serviceAccountName: etcd
                    priorityClassName: system-cluster-critical
                    terminationGracePeriodSeconds: 60
                    enableServiceLinks: true
                """)
            .getSpec();
    assertThat(spec.getNodeSelector()).containsEntry("disk", "ssd");
    assertThat(spec.getTolerations()).hasSize(1);
    assertThat(spec.getAffinity().getPodAntiAffinity()).isNotNull();
    assertThat(spec.getSecurityContext().getFsGroup()).isEqualTo(1000L);
    assertThat(spec.getServiceAccountName()).isEqualTo("etcd");
    assertThat(spec.getPriorityClassName()).isEqualTo("system-cluster-critical");
    assertThat(spec.getTerminationGracePeriodSeconds()).isEqualTo(60L);
    assertThat(spec.getEnableServiceLinks()).isTrue();
    // Not set: ours, and the server's defaults.
    assertThat(spec.getRestartPolicy()).isEqualTo("Always");
    assertThat(spec.getDnsPolicy()).isEqualTo("ClusterFirst");
  }

  @Test
  void templateLabelsAndAnnotationsAreAddedToOurs() {
    PodTemplateSpec t =
        template(
            """
            podTemplate:
              metadata:
                labels: {team: storage}
                annotations: {prometheus.io/scrape: "true"}
            """);
    assertThat(t.getMetadata().getLabels())
        .containsAllEntriesOf(Names.labels("demo"))
        .containsEntry("team", "storage");
    assertThat(t.getMetadata().getAnnotations())
        .containsEntry("prometheus.io/scrape", "true")
        .containsKey(Names.POD_TEMPLATE_HASH_ANNOTATION);
  }

  @Test
  void emptyDirStorageIsAPodVolumeNamedData() {
    PodSpec spec = template("storage: {emptyDir: {medium: Memory}}").getSpec();
    assertThat(spec.getVolumes()).hasSize(1);
    assertThat(spec.getVolumes().get(0).getName()).isEqualTo("data");
    assertThat(spec.getVolumes().get(0).getEmptyDir().getMedium()).isEqualTo("Memory");
  }

  @Test
  void theResourceIsNotChangedByTheOverlay() {
    var cluster =
        TestClusters.withSpec(
            """
            podTemplate:
              spec:
                containers:
                - {name: etcd, image: etcd:1}
            """);
    String before = cluster.getSpec().getPodTemplate().getSpec().toString();
    try {
      EtcdClusterModel.of(cluster).statefulSet(3);
    } catch (InvalidSpecException e) {
      throw new AssertionError(e);
    }
    assertThat(cluster.getSpec().getPodTemplate().getSpec().toString()).isEqualTo(before);
  }

  static EtcdClusterModel modelOf(String manifest) {
    try {
      return EtcdClusterModel.of(TestClusters.read(Path.of(manifest)));
    } catch (InvalidSpecException e) {
      throw new AssertionError(e);
    }
  }
}
