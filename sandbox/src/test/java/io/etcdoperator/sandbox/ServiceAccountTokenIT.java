package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tokens the kubelet puts in pods expire, as TokenRequest tokens do, and the kubelet writes a
 * new one into the pod at 80 % of their lifetime (here 10 s instead of an hour): a process that
 * read its token once is refused (401) after that, one that reads the file again is not.
 */
class ServiceAccountTokenIT {
  @TempDir Path dir;

  @Test
  void aPodsTokenExpiresAndTheKubeletWritesANewOneBeforeThat() throws Exception {
    SandboxConfig config =
        SandboxFixture.fastConfig(dir.resolve("sandbox")).withTokenTtl(Duration.ofSeconds(10));
    Path out = dir.resolve("out");
    try (Sandbox sandbox = Sandbox.start(config, OperatorLauncher.NONE)) {
      KubernetesClient k = sandbox.client();
      String sa = "/var/run/secrets/kubernetes.io/serviceaccount";
      Container c =
          Manifests.shell(
              "main",
              "cp "
                  + sa
                  + "/ca.crt /out/ca.crt; while :; do cp "
                  + sa
                  + "/token /out/t.tmp; mv /out/t.tmp /out/token; sleep 0.2; done");
      c.setVolumeMounts(
          List.of(new VolumeMountBuilder().withName("out").withMountPath("/out").build()));
      k.pods()
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("reader")
                  .withNamespace("default")
                  .endMetadata()
                  .withNewSpec()
                  .withTerminationGracePeriodSeconds(1L)
                  .withContainers(c)
                  .addNewVolume()
                  .withName("out")
                  .withHostPath(new HostPathVolumeSource(out.toString(), "DirectoryOrCreate"))
                  .endVolume()
                  .endSpec()
                  .build())
          .create();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.exists(out.resolve("token")) && Files.exists(out.resolve("ca.crt")));
      String first = Files.readString(out.resolve("token"));
      assertThat(status(sandbox, out, first)).isEqualTo(403);

      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> !Files.readString(out.resolve("token")).equals(first));
      String second = Files.readString(out.resolve("token"));
      assertThat(status(sandbox, out, second)).as("the renewed token").isEqualTo(403);
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> status(sandbox, out, first) == 401);
    }
  }

  /**
   * The HTTP status of listing Secrets with the token, from outside the pod exactly as an
   * in-cluster client would: 403 (authenticated as the ServiceAccount, which may not list them) or
   * 401 (not authenticated).
   */
  private static int status(Sandbox sandbox, Path out, String token) throws Exception {
    try (KubernetesClient inCluster =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl(sandbox.kubectlUrl())
                    .withCaCertData(
                        Base64.getEncoder()
                            .encodeToString(Files.readAllBytes(out.resolve("ca.crt"))))
                    .withOauthToken(token)
                    .withRequestTimeout(10_000)
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      inCluster.secrets().inNamespace("default").list();
      return 200;
    } catch (KubernetesClientException e) {
      return e.getCode();
    }
  }
}
