package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.tls.ClientTls;
import io.etcdoperator.operator.tls.Pem;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.CertManagerEmulation;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * aenix's published examples (operator/src/test/resources/aenix, byte for byte), each one's
 * EtcdCluster applied unchanged in the sandbox and Ready with 3 members, one after the other (they
 * all name the cluster {@code test}; between two, the cluster and its claims are deleted, as a user
 * would). The sandbox has no PriorityClass, RuntimeClass, StorageClass or registry credentials and
 * checks none of them: it behaves as a cluster that has {@code low}, {@code legacy}, {@code gp3},
 * {@code standard-with-expansion} and {@code myregistrykey}. {@code -full} sets both storage kinds:
 * emptyDir is used, its Ready message and a Warning Event say the claim template is ignored. {@code
 * -kamaji} (namespace kamaji-system) runs once its cert-manager Certificates are issued here
 * ({@link CertManagerEmulation}; RSA 4096 keys become EC P-256, which changes nothing the operator
 * reads); it names no serverTrustedCASecret, so the operator trusts the server Secret's ca.crt.
 */
class AenixExamplesE2EIT {
  static final Path EXAMPLES = Path.of("../operator/src/test/resources/aenix");
  static final Duration STEP = Duration.ofMinutes(2);

  @TempDir Path dir;

  static String etcdCluster(String example) throws Exception {
    return E2E.document(EXAMPLES.resolve("etcdcluster-" + example + ".yaml"), "EtcdCluster");
  }

  @Test
  void everyPublishedExampleBecomesReadyUnchanged() throws Exception {
    SandboxConfig config =
        SandboxConfig.defaults(dir)
            .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
            .withMaxGracePeriod(Duration.ofSeconds(5));
    try (E2E e2e = E2E.start(config)) {
      for (String example :
          List.of(
              "simple",
              "emptydir",
              "persistent",
              "resources",
              "custom-image",
              "with-default-pdb",
              "full")) {
        e2e.apply(etcdCluster(example));
        try (Cluster c = new Cluster(e2e, "test")) {
          Duration up = c.awaitConverged(1, 3, STEP);
          System.out.printf("aenix example %s: Ready in %d ms%n", example, up.toMillis());
          if (example.equals("full")) {
            String ready = E2E.condition(c.status(), "Ready").orElseThrow().getMessage();
            assertThat(ready).contains("spec.storage.volumeClaimTemplate is ignored");
            assertThat(c.events()).anyMatch(e -> e.startsWith("Warning SpecIgnored: "));
            assertThat(c.claims()).as("emptyDir: no claim").isEmpty();
          }
          deleteClusterAndClaims(e2e, c);
        }
      }

      // Kamaji: its own namespace, its Secrets as cert-manager would write them.
      String ns = "kamaji-system";
      e2e.client()
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      CertManagerEmulation certs =
          CertManagerEmulation.of(EXAMPLES.resolve("etcdcluster-kamaji.yaml"));
      Map<String, Map<String, byte[]>> secrets = certs.issueAll();
      secrets.forEach(
          (name, data) -> e2e.client().resource(E2E.tlsSecret(ns, name, data)).create());
      e2e.apply(etcdCluster("kamaji"));
      ClientTls root =
          ClientTls.of(
              Pem.certificates(secrets.get("etcd-server-tls").get("ca.crt")),
              Optional.of(Pem.privateKey(secrets.get("etcd-client-tls").get("tls.key"))),
              Pem.certificates(secrets.get("etcd-client-tls").get("tls.crt")));
      long start = System.nanoTime();
      await()
          .atMost(STEP)
          .until(
              () -> {
                EtcdClusterStatus s = kamajiStatus(e2e);
                return s != null
                    && E2E.condition(s, "Ready")
                        .map(r -> "True".equals(r.getStatus()))
                        .orElse(false)
                    && s.getMembers() != null
                    && s.getMembers().size() == 3;
              });
      System.out.printf(
          "aenix example kamaji: Ready in %d ms%n",
          Duration.ofNanos(System.nanoTime() - start).toMillis());
      EtcdClusterStatus s = kamajiStatus(e2e);
      System.out.println(
          "kamaji CertificatesReady: " + E2E.condition(s, "CertificatesReady").orElseThrow());
      assertThat(s.getMembers())
          .allMatch(m -> m.getClientURL() != null && m.getClientURL().startsWith("https://"));
      // The members answer over mutual TLS with the example's client certificate.
      try (var kv =
          new io.etcdoperator.testing.EtcdKv(
              Duration.ofSeconds(3), Optional.of(root), java.net.URI::getHost)) {
        String url = Names.clientUrl(ns, "etcd", 0, "https");
        assertThat(kv.put(url, "/kamaji/probe", "x")).isPositive();
      }
    }
  }

  static EtcdClusterStatus kamajiStatus(E2E e2e) {
    return e2e.client()
        .resources(io.etcdoperator.api.v1alpha1.EtcdCluster.class)
        .inNamespace("kamaji-system")
        .withName("etcd")
        .get()
        .getStatus();
  }

  /** What a user does between two examples of the same name: the cluster, then its claims. */
  static void deleteClusterAndClaims(E2E e2e, Cluster c) {
    e2e.cluster(c.name()).delete();
    await().atMost(STEP).until(() -> c.pods().isEmpty());
    e2e.client()
        .persistentVolumeClaims()
        .inNamespace(E2E.NS)
        .withLabel(Names.LABEL_INSTANCE, c.name())
        .delete();
    await().atMost(STEP).until(() -> c.claims().isEmpty());
    await().atMost(STEP).until(() -> e2e.cluster(c.name()).get() == null);
  }
}
