package io.etcdoperator.sandbox.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContainerConfigTest {
  static final Pod POD =
      new PodBuilder()
          .withNewMetadata()
          .withName("etcd-1")
          .withNamespace("ns")
          .withUid("u1")
          .withLabels(Map.of("app", "etcd"))
          .endMetadata()
          .withNewSpec()
          .endSpec()
          .build();

  static final ContainerConfig.Objects OBJECTS =
      new ContainerConfig.Objects() {
        @Override
        public ConfigMap configMap(String namespace, String name) {
          return name.equals("state")
              ? new ConfigMapBuilder()
                  .withData(Map.of("ETCD_INITIAL_CLUSTER_STATE", "new", "TOKEN", "t"))
                  .build()
              : null;
        }

        @Override
        public Secret secret(String namespace, String name) {
          return name.equals("s")
              ? new SecretBuilder().withData(Map.of("PASSWORD", "c2VjcmV0")).build()
              : null;
        }
      };

  /** Two unpacked etcd versions, as scripts/ensure-etcd leaves them (the binaries are stubs). */
  static final Path VERSIONS = versions("3.4.23", "3.5.30");

  static Path versions(String... versions) {
    try {
      Path dir = Files.createTempDirectory("etcd-versions");
      for (String v : versions) {
        Path bin = Files.createDirectories(dir.resolve(v).resolve("bin"));
        for (String tool : List.of("etcd", "etcdctl", "etcdutl")) {
          Path f = Files.writeString(bin.resolve(tool), "#!/bin/sh\n");
          f.toFile().setExecutable(true);
        }
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String binary(String version, String tool) {
    return VERSIONS.resolve(version).resolve("bin").resolve(tool).toAbsolutePath().toString();
  }

  static ContainerConfig resolve(Container c) throws ContainerConfig.ConfigError {
    return ContainerConfig.resolve(POD, c, "127.20.0.5", EtcdImages.scan(VERSIONS), OBJECTS);
  }

  @Test
  void theImageTagPicksTheVersionWithTheNewestLocalPatch() throws Exception {
    ContainerConfig v34 =
        resolve(
            new ContainerBuilder()
                .withName("etcd")
                .withImage("quay.io/coreos/etcd:v3.4.13")
                .build());
    assertThat(v34.argv()).containsExactly(binary("3.4.23", "etcd"));
    assertThat(v34.image())
        .hasValue(
            "quay.io/coreos/etcd:v3.4.13 runs the sandbox's etcd 3.4.23 (the image names 3.4.13)");
    ContainerConfig v35 =
        resolve(
            new ContainerBuilder()
                .withName("etcd")
                .withImage("registry.k8s.io/etcd:3.5.21-0")
                .build());
    assertThat(v35.argv()).containsExactly(binary("3.5.30", "etcd"));
    ContainerConfig exact =
        resolve(
            new ContainerBuilder()
                .withName("etcd")
                .withImage("quay.io/coreos/etcd:v3.5.30")
                .build());
    assertThat(exact.image())
        .hasValue("quay.io/coreos/etcd:v3.5.30 runs the sandbox's etcd 3.5.30");
  }

  @Test
  void etcdctlAndEtcdutlRunTheToolsOfTheImagesVersion() throws Exception {
    ContainerConfig cfg =
        resolve(
            new ContainerBuilder()
                .withName("restore")
                .withImage("quay.io/coreos/etcd:v3.5.17")
                .withCommand("etcdutl", "snapshot", "restore")
                .build());
    assertThat(cfg.etcd()).isFalse();
    assertThat(cfg.argv()).containsExactly(binary("3.5.30", "etcdutl"), "snapshot", "restore");
  }

  @Test
  void aVersionTheMachineLacksCannotBePulled() {
    assertThatThrownBy(
            () ->
                resolve(
                    new ContainerBuilder()
                        .withName("etcd")
                        .withImage("quay.io/coreos/etcd:v3.6.0")
                        .build()))
        .isInstanceOf(EtcdImages.ImageUnavailable.class)
        .hasMessage(
            "Failed to pull image \"quay.io/coreos/etcd:v3.6.0\": the sandbox has no etcd 3.6 (it"
                + " has 3.4.23, 3.5.30)");
    assertThatThrownBy(
            () -> resolve(new ContainerBuilder().withName("web").withImage("nginx:1.27").build()))
        .isInstanceOf(EtcdImages.ImageUnavailable.class)
        .hasMessageContaining("the sandbox runs etcd images only");
  }

  @Test
  void etcdCommandRunsTheLocalBinaryWithExpandedArgs() throws Exception {
    ContainerConfig cfg =
        resolve(
            new ContainerBuilder()
                .withName("etcd")
                .withImage("quay.io/coreos/etcd:v3.5.0")
                .withCommand("/usr/local/bin/etcd")
                .withArgs("--name=$(POD_NAME)", "--ip=$(IP)")
                .addNewEnv()
                .withName("POD_NAME")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName("IP")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("status.podIP")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .build());
    assertThat(cfg.etcd()).isTrue();
    assertThat(cfg.argv())
        .containsExactly(binary("3.5.30", "etcd"), "--name=etcd-1", "--ip=127.20.0.5");
  }

  @Test
  void noCommandMeansTheImageEntrypointWhichIsEtcd() throws Exception {
    ContainerConfig cfg =
        resolve(
            new ContainerBuilder()
                .withName("etcd")
                .withImage("quay.io/coreos/etcd")
                .withArgs("--version")
                .build());
    assertThat(cfg.etcd()).isTrue();
    assertThat(cfg.argv()).containsExactly(binary("3.5.30", "etcd"), "--version");
  }

  @Test
  void otherCommandsRunAsWritten() throws Exception {
    ContainerConfig cfg =
        resolve(
            new ContainerBuilder()
                .withName("etcd")
                .withImage("nginx")
                .withCommand("/bin/sh")
                .withArgs("-c", "sleep 3600")
                .build());
    assertThat(cfg.etcd()).isFalse();
    assertThat(cfg.argv()).containsExactly("/bin/sh", "-c", "sleep 3600");
  }

  @Test
  void envFromFirstThenEnvOverridesWithSecretsAndLabels() throws Exception {
    ContainerConfig cfg =
        resolve(
            new ContainerBuilder()
                .withName("c")
                .withCommand("true")
                .addNewEnvFrom()
                .withNewConfigMapRef("state", false)
                .endEnvFrom()
                .addNewEnvFrom()
                .withPrefix("S_")
                .withNewSecretRef("s", false)
                .endEnvFrom()
                .addNewEnv()
                .withName("TOKEN")
                .withValue("override-$(ETCD_INITIAL_CLUSTER_STATE)")
                .endEnv()
                .addNewEnv()
                .withName("APP")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.labels['app']")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName("KEY")
                .withNewValueFrom()
                .withNewConfigMapKeyRef("TOKEN", "state", false)
                .endValueFrom()
                .endEnv()
                .build());
    assertThat(cfg.env())
        .containsEntry("ETCD_INITIAL_CLUSTER_STATE", "new")
        .containsEntry("S_PASSWORD", "secret")
        .containsEntry("TOKEN", "override-new")
        .containsEntry("APP", "etcd")
        .containsEntry("KEY", "t");
  }

  @Test
  void missingReferencesAreConfigErrorsUnlessOptional() throws Exception {
    assertThatThrownBy(
            () ->
                resolve(
                    new ContainerBuilder()
                        .withName("c")
                        .withCommand("true")
                        .addNewEnvFrom()
                        .withNewConfigMapRef("absent", false)
                        .endEnvFrom()
                        .build()))
        .isInstanceOf(ContainerConfig.ConfigError.class)
        .hasMessage("configmap \"absent\" not found");
    assertThatThrownBy(
            () ->
                resolve(
                    new ContainerBuilder()
                        .withName("c")
                        .withCommand("true")
                        .addNewEnv()
                        .withName("K")
                        .withNewValueFrom()
                        .withNewConfigMapKeyRef("NOPE", "state", false)
                        .endValueFrom()
                        .endEnv()
                        .build()))
        .isInstanceOf(ContainerConfig.ConfigError.class)
        .hasMessageContaining("couldn't find key NOPE");
    ContainerConfig ok =
        resolve(
            new ContainerBuilder()
                .withName("c")
                .withCommand("true")
                .addNewEnvFrom()
                .withNewConfigMapRef("absent", true)
                .endEnvFrom()
                .build());
    assertThat(ok.env()).isEmpty();
  }
}
