package io.etcdoperator.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.api.v1alpha1.SecuritySpec;
import io.etcdoperator.api.v1alpha1.TlsSpec;
import io.etcdoperator.operator.model.ServerTlsRecord;
import io.etcdoperator.operator.tls.CertificateCheckTest;
import io.etcdoperator.operator.tls.TlsReport;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * What the operator reaches a cluster's members with while server TLS is turned off: the Secrets
 * the cluster-state ConfigMap records, checked as the spec's would be (real certificates made
 * here); their problems block, their fingerprint and status do not count.
 */
class ClusterTlsTest {
  static final ServerTlsRecord RECORD =
      new ServerTlsRecord(
          "server-tls", Optional.empty(), Optional.of("client-ca"), Optional.of("client-tls"));

  static EtcdCluster cluster(TlsSpec tls) {
    EtcdCluster c = new EtcdCluster();
    c.setMetadata(new ObjectMetaBuilder().withName("test").withNamespace("ns").build());
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setReplicas(3);
    if (tls != null) {
      SecuritySpec security = new SecuritySpec();
      security.setTls(tls);
      spec.setSecurity(security);
    }
    c.setSpec(spec);
    return c;
  }

  static Optional<Secret> secret(Map<String, Map<String, byte[]>> all, String name) {
    Map<String, byte[]> data = all.get(name);
    if (data == null) {
      return Optional.empty();
    }
    Map<String, String> encoded = new LinkedHashMap<>();
    data.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v)));
    return Optional.of(
        new SecretBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withData(encoded)
            .build());
  }

  static TlsReport check(EtcdCluster c, Map<String, Map<String, byte[]>> secrets, boolean kept) {
    return ClusterTls.check(
        c,
        name -> secret(secrets, name),
        new TreeSet<>(),
        Instant.now(),
        kept ? Optional.of(RECORD) : Optional.empty());
  }

  @Test
  void withServerTlsOffTheRecordedSecretsReachTheMembersStillServingHttps() {
    TlsReport report = check(cluster(null), CertificateCheckTest.good(), true);
    assertThat(report.invalid()).isEmpty();
    assertThat(report.client()).as("the operator's trust and client certificate").isPresent();
    assertThat(report.client().get().key()).isPresent();
    assertThat(report.clientUser()).contains("root");
    assertThat(report.certificates()).as("status shows what the spec asks for").isEmpty();
    assertThat(report.trustedCa())
        .as("the members' template keeps the spec's fingerprint")
        .isEqualTo(check(cluster(null), CertificateCheckTest.good(), false).trustedCa());
    assertThat(check(cluster(null), CertificateCheckTest.good(), false).client())
        .as("without the record: nothing to reach https members with")
        .isEmpty();
  }

  @Test
  void aRecordedSecretThatIsGoneBlocksNamingItAndWhatToDo() {
    Map<String, Map<String, byte[]>> secrets = new LinkedHashMap<>(CertificateCheckTest.good());
    secrets.remove("client-tls");
    TlsReport report = check(cluster(null), secrets, true);
    assertThat(report.usable()).isFalse();
    assertThat(report.client()).isEmpty();
    assertThat(report.invalid().get(0).toString())
        .contains("Secret client-tls", "still serve clients over https", "create it again");
  }

  @Test
  void whileTheSpecNamesAServerSecretTheRecordIsNotRead() {
    TlsSpec tls = new TlsSpec();
    tls.setServerSecret("server-tls");
    Map<String, Map<String, byte[]>> secrets = new LinkedHashMap<>(CertificateCheckTest.good());
    secrets.remove("client-tls");
    TlsReport report = check(cluster(tls), secrets, true);
    assertThat(report.invalid()).as("the recorded client Secret is not the spec's").isEmpty();
    assertThat(report.client().orElseThrow().key()).isEmpty();
  }
}
