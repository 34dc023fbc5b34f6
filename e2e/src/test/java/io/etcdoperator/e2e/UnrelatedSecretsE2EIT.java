package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.CertificateStatus;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.tls.ClientTls;
import io.etcdoperator.testing.CertManagerEmulation;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's memory does not grow with Secrets that are not its own, and a renewed certificate
 * is still read at once.
 *
 * <p>The product jar runs in a process of its own ({@link ProductOperator}, with the sandbox's
 * kubeconfig), so that its heap is measured apart from the sandbox's. It runs the TLS example; then
 * {@code unrelated.secrets} Secrets of 64 KiB of random data each (250 in README's command, 2,000
 * with {@code -Plong}), labelled as Helm labels its releases, are created beside it; then the
 * server certificate is renewed in its Secret. The live heap (after a full collection) grows by
 * less than 5 MiB, where caching those Secrets would take their size (16 MiB for 250); the renewal
 * shows in status once the operator read it, after every Secret before it.
 */
class UnrelatedSecretsE2EIT {
  static final int SECRETS = Integer.getInteger("unrelated.secrets", 250);
  static final int SIZE = 64 * 1024;
  static final long GROWTH_LIMIT = 5L * 1024 * 1024;

  static final String SECRET_CLASS = "io.fabric8.kubernetes.api.model.Secret";
  static final String META_CLASS = "io.fabric8.kubernetes.api.model.ObjectMeta";

  @TempDir Path dir;

  @Test
  void unrelatedSecretsCostNothingAndARenewalIsStillRead() throws Exception {
    CertManagerEmulation certs = CertManagerEmulation.of(TlsE2EIT.EXAMPLE);
    Map<String, Map<String, byte[]>> tls = certs.issueAll();
    Path log = dir.resolve("operator.log");
    try (E2E e2e = E2E.withoutOperator(TlsE2EIT.sandbox(dir.resolve("sandbox")));
        ProductOperator operator = ProductOperator.start(e2e.sandbox(), log)) {
      ClientTls root = TlsE2EIT.applyExample(e2e, tls);
      try (Cluster c = new Cluster(e2e, TlsE2EIT.C, root)) {
        await()
            .atMost(TlsE2EIT.STEP)
            .pollInterval(Duration.ofMillis(200))
            .until(() -> c.converged(1, 3) || !operator.isAlive());
        assertThat(operator.isAlive()).as(Files.readString(log)).isTrue();
        long before = operator.liveHeapBytes();

        Random random = new Random(3001);
        long start = System.nanoTime();
        create(e2e, random, 0, SECRETS);
        long created = System.nanoTime();

        String notAfter = serverNotAfter(c.status());
        System.out.println("server certificate's notAfter before the renewal: " + notAfter);
        e2e.client()
            .resource(TlsE2EIT.secret("etcd-tls-server", certs.renew("etcd-tls-server")))
            .update();
        long renewed = System.nanoTime();
        await()
            .atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(50))
            .failFast(() -> !operator.isAlive())
            .conditionEvaluationListener(
                e -> {
                  if (e.getRemainingTimeInMS() <= 0) {
                    System.out.println(
                        "status: " + c.status().getCertificates() + "\n" + tail(log, 40));
                  }
                })
            .until(() -> !notAfter.equals(serverNotAfter(c.status())));
        long read = System.nanoTime();
        Map<String, long[]> heap = operator.liveHeap();
        long after = heap.get("Total")[1];
        long[] secrets = heap.getOrDefault(SECRET_CLASS, new long[2]);
        long[] metas = heap.getOrDefault(META_CLASS, new long[2]);
        System.out.printf(
            "%d unrelated Secrets of %d KiB (%d MiB, created in %d ms): the operator's live heap"
                + " %.1f MiB -> %.1f MiB (%+.2f MiB); it holds %d Secret objects (%d bytes) and"
                + " %d ObjectMeta (%d bytes); the renewed server certificate in status %d ms after"
                + " its Secret changed%n",
            SECRETS,
            SIZE / 1024,
            (long) SECRETS * SIZE / (1024 * 1024),
            (created - start) / 1_000_000,
            before / 1048576.0,
            after / 1048576.0,
            (after - before) / 1048576.0,
            secrets[0],
            secrets[1],
            metas[0],
            metas[1],
            (read - renewed) / 1_000_000);
        assertThat(secrets[0]).as("Secret objects held").isGreaterThanOrEqualTo(SECRETS);
        assertThat(after - before).as("live heap growth in bytes").isLessThan(GROWTH_LIMIT);
        assertThat(operator.isAlive()).isTrue();
      }
    }
  }

  /** Secrets {@code from} to {@code to} - 1, as Helm keeps its releases, 64 KiB of noise each. */
  private static void create(E2E e2e, Random random, int from, int to) {
    byte[] data = new byte[SIZE];
    for (int i = from; i < to; i++) {
      random.nextBytes(data);
      e2e.client()
          .resource(
              new SecretBuilder()
                  .withNewMetadata()
                  .withNamespace(E2E.NS)
                  .withName("sh.helm.release.v1.app-" + i + ".v1")
                  .withLabels(Map.of("owner", "helm", "name", "app-" + i, "status", "deployed"))
                  .endMetadata()
                  .withType("helm.sh/release.v1")
                  .withData(Map.of("release", Base64.getEncoder().encodeToString(data)))
                  .build())
          .create();
    }
  }

  private static String tail(Path log, int lines) {
    try {
      var all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** The expiry status gives of the server certificate, not its CA ("" when none). */
  private static String serverNotAfter(EtcdClusterStatus s) {
    if (s == null || s.getCertificates() == null) {
      return "";
    }
    return s.getCertificates().stream()
        .filter(cs -> "etcd-tls-server".equals(cs.getSecret()) && "tls.crt".equals(cs.getKey()))
        .map(CertificateStatus::getNotAfter)
        .findFirst()
        .orElse("");
  }
}
