package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.tls.ClientTls;
import io.etcdoperator.testing.EtcdBinaries;
import io.etcdoperator.testing.LoopbackAddresses;
import io.etcdoperator.testing.TestPki;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operator's TLS against real etcd: three members with peer TLS (peer client-certificate
 * authentication), server TLS and client-certificate authentication, certificates made in the test
 * and written as the kubelet writes a Secret volume. The operator's client probes them over mutual
 * TLS, reads {@code /version} over https, turns certificate-based authentication on and off (3.5),
 * and sees a renewed server certificate on its next connection while the members keep running.
 */
class TlsEtcdIT {
  @TempDir Path dir;

  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException, IOException {
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    // What the members said, for a failure's report.
    for (int i = 0; i < processes.size(); i++) {
      Path log = dir.resolve("m" + i + ".log");
      if (Files.exists(log)) {
        List<String> lines = Files.readAllLines(log);
        System.out.println("--- m" + i + ".log (last 15 lines)");
        lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(System.out::println);
      }
    }
  }

  /** What a cluster's TLS directory holds, as the pod's Secret volumes do. */
  record Pki(
      TestPki.Ca peerCa,
      TestPki.Ca serverCa,
      TestPki.Ca clientCa,
      TestPki.Leaf client,
      List<String> hosts) {}

  Pki start(String version) throws IOException {
    List<String> hosts = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      hosts.add(LoopbackAddresses.allocate(2379, 2380, 2381));
    }
    TestPki.Ca peerCa = TestPki.ca("peer-ca");
    TestPki.Ca serverCa = TestPki.ca("server-ca");
    TestPki.Ca clientCa = TestPki.ca("client-ca");
    String[] ips = hosts.toArray(new String[0]);
    // Members share this machine's network: a peer dials from 127.0.0.1, whatever address it
    // listens on, and etcd checks a peer's client certificate against that source address.
    String[] peerIps = hosts.toArray(new String[hosts.size() + 1]);
    peerIps[hosts.size()] = "127.0.0.1";
    TestPki.Leaf peer = peerCa.leaf("peer").ip(peerIps).serverAuth().clientAuth().issue();
    TestPki.Leaf server = serverCa.leaf("server").ip(ips).serverAuth().issue();
    TestPki.Leaf client = clientCa.leaf("root").clientAuth().issue();
    write("peer/tls.crt", peer.certPem());
    write("peer/tls.key", peer.keyPem());
    write("peer-ca/ca.crt", peerCa.pem());
    write("server/tls.crt", server.certPem());
    write("server/tls.key", server.keyPem());
    write("client-ca/ca.crt", clientCa.pem());
    StringBuilder initial = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      initial
          .append(i == 0 ? "" : ",")
          .append("m")
          .append(i)
          .append("=https://")
          .append(hosts.get(i))
          .append(":2380");
    }
    for (int i = 0; i < 3; i++) {
      String h = hosts.get(i);
      List<String> cmd =
          List.of(
              EtcdBinaries.etcd(version),
              "--name=m" + i,
              "--data-dir=" + dir.resolve("m" + i + ".etcd"),
              "--listen-peer-urls=https://" + h + ":2380",
              "--initial-advertise-peer-urls=https://" + h + ":2380",
              "--listen-client-urls=https://" + h + ":2379",
              "--advertise-client-urls=https://" + h + ":2379",
              "--listen-metrics-urls=http://" + h + ":2381",
              "--initial-cluster=" + initial,
              "--initial-cluster-state=new",
              "--initial-cluster-token=tls-it",
              "--peer-cert-file=" + dir.resolve("peer/tls.crt"),
              "--peer-key-file=" + dir.resolve("peer/tls.key"),
              "--peer-trusted-ca-file=" + dir.resolve("peer-ca/ca.crt"),
              "--peer-client-cert-auth=true",
              "--cert-file=" + dir.resolve("server/tls.crt"),
              "--key-file=" + dir.resolve("server/tls.key"),
              "--trusted-ca-file=" + dir.resolve("client-ca/ca.crt"),
              "--client-cert-auth=true",
              "--heartbeat-interval=50",
              "--election-timeout=500");
      processes.add(
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("m" + i + ".log").toFile())
              .start());
    }
    return new Pki(peerCa, serverCa, clientCa, client, hosts);
  }

  /** Writes a file the way the kubelet updates a Secret volume: whole, by an atomic rename. */
  void write(String name, String content) throws IOException {
    Path target = dir.resolve(name);
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    Files.writeString(tmp, content);
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  static ClientTls operatorTls(Pki pki) {
    return ClientTls.of(
        List.of(pki.serverCa().certificate()),
        Optional.of(pki.client().keys().getPrivate()),
        List.of(pki.client().certificate()));
  }

  static List<String> urls(Pki pki) {
    return pki.hosts().stream().map(h -> "https://" + h + ":2379").toList();
  }

  @ParameterizedTest(name = "etcd {0}")
  @ValueSource(strings = {"3.4", "3.5"})
  void theOperatorReachesMembersOverMutualTlsAndNotWithoutItsCertificate(String version)
      throws Exception {
    Pki pki = start(version);
    try (JetcdEtcdService etcd =
        new JetcdEtcdService(
            new EtcdServiceConfig(Duration.ofSeconds(2), 1, Duration.ofMinutes(1)))) {
      etcd.useTls("ns/tls", Optional.of(operatorTls(pki)));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> etcd.probeAll("ns/tls", urls(pki)).leaderEndpoint().isPresent());
      ClusterProbe probe = etcd.probeAll("ns/tls", urls(pki));
      assertThat(probe.memberList().orElseThrow().members()).hasSize(3);
      assertThat(probe.memberList().orElseThrow().members())
          .allSatisfy(m -> assertThat(m.peerUrls().get(0)).startsWith("https://"));

      // /version over https with the same material.
      EtcdHttp http = new EtcdHttp(Duration.ofSeconds(2));
      assertThat(http.versions(urls(pki).get(0), Optional.of(operatorTls(pki))))
          .hasValueSatisfying(v -> assertThat(v.server()).startsWith(version));
      assertThat(http.versions(urls(pki).get(0), Optional.empty())).isEmpty();

      // Without a client certificate, or with one of another CA, the members refuse.
      TestPki.Ca other = TestPki.ca("other-ca");
      TestPki.Leaf stranger = other.leaf("root").clientAuth().issue();
      for (ClientTls wrong :
          List.of(
              ClientTls.of(List.of(pki.serverCa().certificate()), Optional.empty(), List.of()),
              ClientTls.of(
                  List.of(pki.serverCa().certificate()),
                  Optional.of(stranger.keys().getPrivate()),
                  List.of(stranger.certificate())))) {
        etcd.useTls("ns/wrong", Optional.of(wrong));
        EtcdStatus status = etcd.status("ns/wrong", urls(pki).get(0));
        assertThat(status.reachable()).as(wrong.toString()).isFalse();
      }
      // A server certificate of a CA the operator does not trust is refused by the operator.
      etcd.useTls(
          "ns/untrusting",
          Optional.of(
              ClientTls.of(
                  List.of(other.certificate()),
                  Optional.of(pki.client().keys().getPrivate()),
                  List.of(pki.client().certificate()))));
      assertThat(etcd.status("ns/untrusting", urls(pki).get(0)).reachable()).isFalse();
    }
  }

  @ParameterizedTest(name = "etcd {0}")
  @ValueSource(strings = {"3.4", "3.5"})
  void aRenewedServerCertificateIsServedOnTheNextConnectionWithoutARestart(String version)
      throws Exception {
    Pki pki = start(version);
    try (JetcdEtcdService etcd =
        new JetcdEtcdService(
            new EtcdServiceConfig(Duration.ofSeconds(2), 1, Duration.ofMinutes(1)))) {
      etcd.useTls("ns/tls", Optional.of(operatorTls(pki)));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> etcd.probeAll("ns/tls", urls(pki)).leaderEndpoint().isPresent());
      String host = pki.hosts().get(0);
      BigInteger before = servedSerial(pki, host);

      TestPki.Leaf renewed =
          pki.serverCa().leaf("server").ip(pki.hosts().toArray(new String[0])).serverAuth().issue();
      write("server/tls.key", renewed.keyPem());
      write("server/tls.crt", renewed.certPem());

      assertThat(servedSerial(pki, host))
          .isEqualTo(renewed.certificate().getSerialNumber())
          .isNotEqualTo(before);
      etcd.closeCluster("ns/tls");
      etcd.useTls("ns/tls", Optional.of(operatorTls(pki)));
      assertThat(etcd.status("ns/tls", urls(pki).get(0)).reachable()).isTrue();
      assertThat(processes).allSatisfy(p -> assertThat(p.isAlive()).isTrue());
    }
  }

  @ParameterizedTest(name = "etcd {0}")
  @ValueSource(strings = {"3.5"})
  void certificateBasedAuthenticationGoesOnAndOffWithoutAPassword(String version) throws Exception {
    Pki pki = start(version);
    try (JetcdEtcdService etcd =
        new JetcdEtcdService(
            new EtcdServiceConfig(Duration.ofSeconds(2), 1, Duration.ofMinutes(1)))) {
      etcd.useTls("ns/tls", Optional.of(operatorTls(pki)));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> etcd.probeAll("ns/tls", urls(pki)).leaderEndpoint().isPresent());
      String leader = etcd.probeAll("ns/tls", urls(pki)).leaderEndpoint().orElseThrow();
      assertThat(etcd.authEnabled("ns/tls", leader)).isFalse();

      etcd.enableAuth("ns/tls", leader, "root");
      assertThat(etcd.authEnabled("ns/tls", leader)).isTrue();
      // Done again (an interrupted step repeated): what exists is left as it is.
      etcd.enableAuth("ns/tls", leader, "root");
      // The operator's own calls still work: its certificate's CN is root.
      assertThat(etcd.probeAll("ns/tls", urls(pki)).memberList()).isPresent();

      // Another certificate of the client CA, whose CN is no user, is refused what needs a user.
      TestPki.Leaf nobody = pki.clientCa().leaf("nobody").clientAuth().issue();
      etcd.useTls(
          "ns/nobody",
          Optional.of(
              ClientTls.of(
                  List.of(pki.serverCa().certificate()),
                  Optional.of(nobody.keys().getPrivate()),
                  List.of(nobody.certificate()))));
      assertThatThrownBy(() -> etcd.enableAuth("ns/nobody", leader, "nobody"))
          .isInstanceOf(EtcdException.class);

      etcd.disableAuth("ns/tls", leader);
      assertThat(etcd.authEnabled("ns/tls", leader)).isFalse();
    }
  }

  /** The serial of the certificate a member serves on a fresh handshake. */
  static BigInteger servedSerial(Pki pki, String host) throws Exception {
    ClientTls tls = operatorTls(pki);
    try (SSLSocket socket =
        (SSLSocket) tls.sslContext().getSocketFactory().createSocket(host, 2379)) {
      socket.setSoTimeout(5000);
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }
}
