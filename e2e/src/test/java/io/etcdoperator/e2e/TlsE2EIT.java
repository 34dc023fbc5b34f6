package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.tls.ClientTls;
import io.etcdoperator.operator.tls.Pem;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.CertManagerEmulation;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.RecordingWriter;
import io.etcdoperator.testing.TestPki;
import io.etcdoperator.testing.WriterReport;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TLS end to end, from {@code examples/tls/etcdcluster-tls.yaml} as written: its cert-manager
 * Certificates issued here ({@link CertManagerEmulation}: no cert-manager runs on this machine; the
 * operator reads the Secrets as on a cluster), its EtcdCluster applied unchanged. The cluster comes
 * up with peer, server and client-certificate TLS and etcd's authentication on; a writer over
 * mutual TLS (as root, the client certificate's CN) runs through all of what follows, and no
 * acknowledged write is lost:
 *
 * <ul>
 *   <li>a client without a certificate, and one whose certificate names a user etcd does not know,
 *       are refused;
 *   <li>scale 3 → 5 → 3, a rolling restart, a follower's etcd killed and a follower's claim wiped,
 *       each over https peer URLs;
 *   <li>rotation: the server and peer certificates renewed (new keys, same CA): the kubelet updates
 *       the Secret volumes in place, each member serves the new certificates on its next
 *       connections, no pod restarts and no write fails meanwhile;
 *   <li>an unusable client Secret (signed by a CA the members do not trust): CertificateInvalid
 *       naming the Secret, nothing restarts; put right, Ready again;
 *   <li>enableAuth turned off: etcd's authentication goes off (the unknown user may write);
 *   <li>an EtcdBackup of the cluster: Complete, its agent trusting the server CA and presenting the
 *       operator's client certificate;
 *   <li>with {@code -Plong}, spec.security removed from the running cluster: peers and clients onto
 *       http, nothing lost (README's command turns peer TLS off, then server TLS, in the move
 *       test).
 * </ul>
 */
class TlsE2EIT {
  static final Path EXAMPLE = Path.of("../examples/tls/etcdcluster-tls.yaml");
  static final String C = "etcd-tls";
  static final Duration STEP = Duration.ofMinutes(2);

  @TempDir Path dir;

  static Secret secret(String name, Map<String, byte[]> data) {
    return E2E.tlsSecret(E2E.NS, name, data);
  }

  static ClientTls clientTls(Map<String, byte[]> client, Map<String, byte[]> server)
      throws Exception {
    return ClientTls.of(
        Pem.certificates(server.get("ca.crt")),
        Optional.of(Pem.privateKey(client.get("tls.key"))),
        Pem.certificates(client.get("tls.crt")));
  }

  /** Pod name to "uid/restarts", for "nothing restarted". */
  static Map<String, String> restarts(Cluster c) {
    Map<String, String> out = new TreeMap<>();
    for (Pod p : c.pods()) {
      int restarts =
          p.getStatus() == null || p.getStatus().getContainerStatuses() == null
              ? 0
              : p.getStatus().getContainerStatuses().stream()
                  .mapToInt(s -> s.getRestartCount() == null ? 0 : s.getRestartCount())
                  .sum();
      out.put(p.getMetadata().getName(), p.getMetadata().getUid() + "/" + restarts);
    }
    return out;
  }

  /** The serial of the certificate a member presents on {@code port} to a new connection. */
  static BigInteger served(int ordinal, int port, ClientTls as) throws Exception {
    return served(
        InetAddress.getByName(Names.memberHost(E2E.NS, C, ordinal)).getHostAddress(), port, as);
  }

  /** The serial of the certificate {@code address} presents on {@code port} to a new connection. */
  static BigInteger served(String address, int port, ClientTls as) throws Exception {
    try (SSLSocket s = (SSLSocket) as.sslContext().getSocketFactory().createSocket(address, port)) {
      s.setSoTimeout(2000);
      s.startHandshake();
      return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  static String ready(EtcdClusterStatus s) {
    return E2E.condition(s, "Ready").map(c -> c.getStatus() + "/" + c.getReason()).orElse("");
  }

  /**
   * A peer CA rotated in the three steps README gives, under writes: (1) the peer CA Secret's
   * {@code ca.crt} holds the old and the new CA: members restart one at a time (etcd loads its CA
   * pool at start), and each then trusts both; (2) the peer certificates are issued again by the
   * new CA: nothing restarts, each member presents its new certificate to the others, which trust
   * it; (3) the old CA is dropped from {@code ca.crt}: members restart one at a time again. Same
   * member IDs throughout, 0 acknowledged writes lost. The client CA goes the same way (the same
   * fingerprint in the pod template), which this test does not repeat.
   */
  @Test
  void aPeerCaIsRotatedInThreeStepsWithQuorumKeptAndNothingLost() throws Exception {
    CertManagerEmulation certs = CertManagerEmulation.of(EXAMPLE);
    Map<String, Map<String, byte[]>> secrets = certs.issueAll();
    try (E2E e2e = E2E.start(sandbox(dir))) {
      ClientTls root = applyExample(e2e, secrets);
      try (Cluster c = new Cluster(e2e, C, root)) {
        c.awaitConverged(1, 3, STEP);
        Map<String, String> ids = c.memberIds();
        byte[] oldCa = secrets.get("etcd-tls-peer-ca").get("ca.crt");
        try (RecordingWriter writer = c.writer(Duration.ofMinutes(6))) {
          // 1. Both CAs trusted: a roll.
          Map<String, byte[]> next = certs.replaceCa("etcd-tls-peer-ca");
          Map<String, byte[]> bundle = new java.util.LinkedHashMap<>(next);
          bundle.put("ca.crt", concat(oldCa, next.get("ca.crt")));
          Map<String, String> before = restarts(c);
          writer.mark("1: peer ca.crt holds the old and the new CA");
          long start = System.nanoTime();
          e2e.client().resource(secret("etcd-tls-peer-ca", bundle)).update();
          awaitRolled(c, before);
          System.out.printf(
              "CA rotation step 1 (bundle): every member restarted once, Ready in %d ms%n",
              Duration.ofNanos(System.nanoTime() - start).toMillis());
          assertThat(c.memberIds()).isEqualTo(ids);

          // 2. Peer certificates of the new CA: no restart.
          Map<String, String> rolled = restarts(c);
          writer.mark("2: peer certificates issued by the new CA");
          Map<String, byte[]> peer = certs.renew("etcd-tls-peer");
          e2e.client().resource(secret("etcd-tls-peer", peer)).update();
          BigInteger serial = Pem.certificates(peer.get("tls.crt")).get(0).getSerialNumber();
          ClientTls asPeer =
              ClientTls.of(
                  Pem.certificates(bundle.get("ca.crt")),
                  Optional.of(Pem.privateKey(peer.get("tls.key"))),
                  Pem.certificates(peer.get("tls.crt")));
          for (int i = 0; i < 3; i++) {
            int ordinal = i;
            await()
                .atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> served(ordinal, 2380, asPeer).equals(serial));
          }
          await()
              .during(Duration.ofSeconds(3))
              .atMost(Duration.ofSeconds(20))
              .until(() -> "True/AllMembersReady".equals(ready(c.status())));
          assertThat(restarts(c)).as("no restart for new leaves").isEqualTo(rolled);

          // 3. The old CA dropped: a roll; the members trust only the new CA and still talk.
          writer.mark("3: peer ca.crt holds the new CA only");
          start = System.nanoTime();
          e2e.client().resource(secret("etcd-tls-peer-ca", next)).update();
          awaitRolled(c, rolled);
          System.out.printf(
              "CA rotation step 3 (old CA dropped): every member restarted once, Ready in %d ms%n",
              Duration.ofNanos(System.nanoTime() - start).toMillis());
          assertThat(c.memberIds()).isEqualTo(ids);
          assertThat(E2E.condition(c.status(), "CertificatesReady").orElseThrow().getStatus())
              .isEqualTo("True");

          writer.mark("done");
          WriterReport report = writer.report();
          System.out.println(report.summary());
          assertThat(report.verified()).isTrue();
          assertThat(report.lost()).isEmpty();
          assertThat(report.altered()).isEmpty();
        }
      }
    }
  }

  /**
   * A running plaintext cluster turns TLS on, in the order README gives: peers first, under writes
   * over http (which peer TLS leaves alone), then the clients. Peers move one safe step at a time
   * ({@code TlsMoves}): a roll onto http :2380 plus https :2382, each member's peer URL updated to
   * https :2382 (no restart), a roll onto https on both ports, each URL back to :2380, and a last
   * roll onto the spec's own template. Same member and cluster IDs throughout, 0 acknowledged
   * writes lost; then server and client TLS with etcd's authentication, a roll, and the writer's
   * last write read back over mutual TLS; then peer TLS off again, the move in reverse, under a
   * writer over mutual TLS. On etcd 3.5; on 3.4 too with {@code -Plong} (system property {@code
   * long.all.versions}).
   */
  @ParameterizedTest
  @MethodSource("moveImages")
  void aRunningPlaintextClusterMovesToTlsOneSafeStepAtATimeWithNothingLost(String image)
      throws Exception {
    CertManagerEmulation certs = CertManagerEmulation.of(EXAMPLE);
    Map<String, Map<String, byte[]>> secrets = certs.issueAll();
    try (E2E e2e = E2E.start(sandbox(dir))) {
      secrets.forEach((name, data) -> e2e.client().resource(secret(name, data)).create());
      var serialization = e2e.client().getKubernetesSerialization();
      var plain =
          serialization.unmarshal(
              E2E.document(EXAMPLE, "EtcdCluster"), io.etcdoperator.api.v1alpha1.EtcdCluster.class);
      plain.getSpec().setSecurity(null);
      plain
          .getSpec()
          .setPodTemplate(
              serialization.unmarshal(
                  "{\"spec\":{\"containers\":[{\"name\":\"etcd\",\"image\":\"" + image + "\"}]}}",
                  io.etcdoperator.api.v1alpha1.PodTemplate.class));
      e2e.apply(serialization.asYaml(plain));
      try (Cluster c = new Cluster(e2e, C)) {
        c.awaitConverged(1, 3, STEP);
        Map<String, String> ids = c.memberIds();
        String clusterId = c.clusterId();
        WriterReport report;
        try (RecordingWriter writer = c.writer(Duration.ofMinutes(6))) {
          writer.mark("peer TLS on");
          movePeers(
              c,
              "{\"security\":{\"tls\":{\"peerTrustedCASecret\":\"etcd-tls-peer-ca\","
                  + "\"peerSecret\":\"etcd-tls-peer\"}}}",
              "https");
          writer.mark("peers moved");
          report = writer.report();
        }
        System.out.println(report.summary());
        assertThat(report.verified()).isTrue();
        assertThat(report.lost()).isEmpty();
        assertThat(report.altered()).isEmpty();
        assertThat(c.memberIds()).isEqualTo(ids);
        assertThat(c.clusterId()).isEqualTo(clusterId);
        List<String> updates =
            c.events().stream().filter(e -> e.contains(" MemberPeerUrlUpdated: ")).toList();
        assertThat(updates).as("each member updated to :2382, then back to :2380").hasSize(6);
        updates.forEach(System.out::println);

        // Clients next: server and client TLS, with etcd's authentication on 3.5 (3.4 cannot
        // say whether it is on, and the operator refuses enableAuth there), an ordinary roll.
        var secured =
            serialization
                .unmarshal(
                    E2E.document(EXAMPLE, "EtcdCluster"),
                    io.etcdoperator.api.v1alpha1.EtcdCluster.class)
                .getSpec();
        secured.getSecurity().setEnableAuth(!image.contains("v3.4."));
        c.patchSpec(serialization.asJson(secured));
        ClientTls root = clientTls(secrets.get("etcd-tls-client"), secrets.get("etcd-tls-server"));
        try (Cluster secure = new Cluster(e2e, C, root)) {
          await()
              .atMost(STEP)
              .ignoreExceptions()
              .until(
                  () ->
                      everyPodRuns(c, "--listen-client-urls=https://[::]:2379")
                          && secure.converged(
                              e2e.cluster(C).get().getMetadata().getGeneration(), 3));
          assertThat(secure.memberIds()).isEqualTo(ids);
          var last = report.acknowledged().get(report.acknowledged().size() - 1);
          try (EtcdKv kv = new EtcdKv(Duration.ofSeconds(5), Optional.of(root), URI::getHost)) {
            assertThat(kv.get(Names.clientUrl(E2E.NS, C, 0, "https"), last.key(), false))
                .as("the last write over http, read over mutual TLS")
                .isPresent();
          }
          WriterReport overTls = movePeersOffTls(secure, ids);
          serverTlsOff(e2e, c, ids, overTls, !image.contains("v3.4."));
        }
      }
    }
  }

  /**
   * Peer TLS turned off again, server and client TLS kept, under a writer over mutual TLS: the move
   * in reverse ({@code TlsMoves}): a roll onto https :2380 (the peer Secrets the members ran)
   * beside http :2382, each URL to http :2382, a roll onto http on both ports, each URL back to
   * :2380, a roll onto the spec's template. Same member IDs, 0 acknowledged writes lost, six more
   * URL updates.
   */
  static WriterReport movePeersOffTls(Cluster secure, Map<String, String> ids) {
    long updatesBefore =
        secure.events().stream().filter(e -> e.contains(" MemberPeerUrlUpdated: ")).count();
    WriterReport report;
    try (RecordingWriter writer = secure.writer(Duration.ofMinutes(6))) {
      writer.mark("peer TLS off");
      movePeers(
          secure,
          "{\"security\":{\"tls\":{\"peerTrustedCASecret\":null,\"peerSecret\":null}}}",
          "http");
      writer.mark("peers moved off");
      report = writer.report();
    }
    System.out.println(report.summary());
    assertThat(report.verified()).isTrue();
    assertThat(report.lost()).isEmpty();
    assertThat(report.altered()).isEmpty();
    assertThat(secure.memberIds()).isEqualTo(ids);
    assertThat(secure.pods())
        .as("no pod mounts a peer Secret any more")
        .allMatch(
            p ->
                p.getSpec().getVolumes().stream()
                    .noneMatch(
                        v ->
                            v.getSecret() != null
                                && v.getSecret().getSecretName().contains("peer")));
    assertThat(
            secure.events().stream().filter(e -> e.contains(" MemberPeerUrlUpdated: ")).count()
                - updatesBefore)
        .as("each member updated to http :2382, then back to :2380")
        .isEqualTo(6);
    return report;
  }

  /**
   * Server and client TLS off too ({@code spec.security} removed), with etcd's authentication on
   * when {@code auth}: authentication goes off first, while every member serves https, then an
   * ordinary roll onto http, the operator reaching the members not yet restarted with the Secrets
   * the cluster-state ConfigMap recorded while the spec named them (the record goes once every
   * member serves http). Same member IDs; every write {@code overTls} acknowledged over mutual TLS
   * is in every member's store, read over plain http.
   */
  static void serverTlsOff(
      E2E e2e, Cluster plain, Map<String, String> ids, WriterReport overTls, boolean auth) {
    var configMap =
        e2e.client().configMaps().inNamespace(E2E.NS).withName(Names.clusterStateConfigMap(C));
    assertThat(configMap.get().getMetadata().getAnnotations())
        .as("the server TLS Secrets recorded while the spec names them")
        .containsEntry(
            Names.SERVER_TLS_ANNOTATION,
            "serverSecret=etcd-tls-server,clientTrustedCASecret=etcd-tls-ca,"
                + "clientSecret=etcd-tls-client");
    long start = System.nanoTime();
    long generation = plain.patchSpec("{\"security\":null}");
    try {
      await()
          .atMost(Duration.ofMinutes(3))
          .ignoreExceptions()
          .until(
              () ->
                  everyPodRuns(plain, "--listen-client-urls=http://[::]:2379")
                      && plain.converged(generation, 3));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "server TLS not off: Ready "
              + E2E.condition(plain.status(), "Ready").map(x -> x.getMessage()).orElse("?"),
          e);
    }
    System.out.printf(
        "server TLS off for a running cluster: every member on http, Ready in %d ms%n",
        Duration.ofNanos(System.nanoTime() - start).toMillis());
    assertThat(plain.memberIds()).isEqualTo(ids);
    List<String> events = plain.events();
    if (auth) {
      int disabled = indexOf(events, " AuthDisabled: ");
      assertThat(disabled).as("authentication turned off").isNotNegative();
      System.out.println(events.get(disabled));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              var a = configMap.get().getMetadata().getAnnotations();
              return a == null || !a.containsKey(Names.SERVER_TLS_ANNOTATION);
            });
    List<String> written = overTls.acknowledged().stream().map(w -> w.key()).toList();
    assertThat(written).isNotEmpty();
    try (Members members = new Members(C)) {
      for (int i = 0; i < 3; i++) {
        assertThat(members.keys(i, overTls.prefix(), true))
            .as("member %d, read over http: every write acknowledged over mutual TLS", i)
            .containsAll(written);
      }
    }
  }

  private static int indexOf(List<String> events, String reason) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).contains(reason)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Patches the spec with {@code patch} and awaits every peer URL on {@code scheme} :2380, every
   * pod listening there only, and the cluster converged (5 min at the most); prints how long.
   */
  static void movePeers(Cluster c, String patch, String scheme) {
    long start = System.nanoTime();
    long generation = c.patchSpec(patch);
    List<String> wanted =
        List.of(0, 1, 2).stream().map(i -> Names.peerUrl(E2E.NS, C, i, scheme)).toList();
    try {
      await()
          .atMost(Duration.ofMinutes(5))
          .ignoreExceptions()
          .until(
              () ->
                  peerUrls(c).equals(wanted)
                      && everyPodRuns(c, "--listen-peer-urls=" + scheme + "://[::]:2380")
                      && c.converged(generation, 3));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "peers did not move to "
              + scheme
              + ": peer URLs "
              + peerUrls(c)
              + "; Ready "
              + E2E.condition(c.status(), "Ready").map(x -> x.getMessage()).orElse("?"),
          e);
    }
    System.out.printf(
        "peers of a running cluster moved to %s: every URL %s, Ready in %d ms%n",
        scheme, scheme, Duration.ofNanos(System.nanoTime() - start).toMillis());
  }

  static Stream<String> moveImages() {
    return Boolean.getBoolean("long.all.versions")
        ? Stream.of("quay.io/coreos/etcd:v3.4.23", "quay.io/coreos/etcd:v3.5.30")
        : Stream.of("quay.io/coreos/etcd:v3.5.30");
  }

  /** Every pod of the cluster runs its etcd container with the argument {@code arg}. */
  static boolean everyPodRuns(Cluster c, String arg) {
    return c.pods().stream()
        .allMatch(p -> p.getSpec().getContainers().get(0).getArgs().contains(arg));
  }

  /** The members' peer URLs in ordinal order, as etcd's member list records them. */
  static List<String> peerUrls(Cluster c) {
    return c.memberList().map(l -> l.members()).orElse(List.of()).stream()
        .sorted(java.util.Comparator.comparing(m -> m.name()))
        .flatMap(m -> m.peerUrls().stream())
        .toList();
  }

  /**
   * Backs the TLS example's cluster up to the claim {@code backup-claim} as EtcdBackup {@code
   * name}; returns its status once Complete or Failed (2 min at the most).
   */
  static io.etcdoperator.api.v1alpha1.EtcdBackupStatus backupToClaim(E2E e2e, String name) {
    var backups = e2e.client().resources(io.etcdoperator.api.v1alpha1.EtcdBackup.class);
    backups
        .resource(
            e2e.client()
                .getKubernetesSerialization()
                .unmarshal(
                    """
                    apiVersion: etcd.aenix.io/v1alpha1
                    kind: EtcdBackup
                    metadata:
                      name: %s
                      namespace: default
                    spec:
                      clusterRef:
                        name: etcd-tls
                      destination:
                        pvc:
                          claimName: backup-claim
                    """
                        .formatted(name),
                    io.etcdoperator.api.v1alpha1.EtcdBackup.class))
        .create();
    await()
        .atMost(Duration.ofMinutes(2))
        .until(
            () -> {
              var b = backups.inNamespace(E2E.NS).withName(name).get();
              return b.getStatus() != null
                  && ("Complete".equals(b.getStatus().getPhase())
                      || "Failed".equals(b.getStatus().getPhase()));
            });
    return backups.inNamespace(E2E.NS).withName(name).get().getStatus();
  }

  /**
   * The newest revision in the change log {@code <schedule>.changes} on any claim of the sandbox
   * under {@code dir} (0: none yet).
   */
  static long newestArchived(Path dir, String schedule) throws java.io.IOException {
    Path claims = dir.resolve("pvc").resolve(E2E.NS);
    if (!java.nio.file.Files.isDirectory(claims)) {
      return 0;
    }
    try (var files = java.nio.file.Files.walk(claims)) {
      return files
          .filter(f -> f.getParent().getFileName().toString().equals(schedule + ".changes"))
          .map(f -> io.etcdoperator.operator.backup.ChangeChunk.range(f.getFileName().toString()))
          .filter(r -> r != null)
          .mapToLong(r -> r[1])
          .max()
          .orElse(0);
    }
  }

  /** The sandbox both tests run: short back-offs and grace periods. */
  static SandboxConfig sandbox(Path dir) {
    return SandboxConfig.defaults(dir)
        .withRestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
        .withMaxGracePeriod(Duration.ofSeconds(10));
  }

  /**
   * Creates the example's Secrets ({@code secrets}, as issued) and applies its EtcdCluster; returns
   * the TLS of its root client (the client certificate, trusting the server CA).
   */
  static ClientTls applyExample(E2E e2e, Map<String, Map<String, byte[]>> secrets)
      throws Exception {
    secrets.forEach((name, data) -> e2e.client().resource(secret(name, data)).create());
    e2e.apply(E2E.document(EXAMPLE, "EtcdCluster"));
    return clientTls(secrets.get("etcd-tls-client"), secrets.get("etcd-tls-server"));
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * Awaits a roll after a CA Secret changed: the StatefulSet's template carries a new CA
   * fingerprint, every pod runs it (each restarted once, as pod uids say), and the cluster is Ready
   * with 3 healthy voters.
   */
  static void awaitRolled(Cluster c, Map<String, String> before) {
    await()
        .atMost(STEP)
        .until(
            () -> {
              Map<String, String> now = restarts(c);
              return now.size() == 3
                  && now.keySet().stream()
                      .allMatch(
                          p ->
                              !uid(now.get(p)).equals(uid(before.getOrDefault(p, "")))
                                  && now.get(p).endsWith("/0"))
                  && c.converged(1, 3);
            });
  }

  static String uid(String restarts) {
    int slash = restarts.indexOf('/');
    return slash < 0 ? restarts : restarts.substring(0, slash);
  }

  @Test
  void theTlsExampleRunsScalesRollsAndRotatesWithoutRestartsOrLoss() throws Exception {
    CertManagerEmulation certs = CertManagerEmulation.of(EXAMPLE);
    Map<String, Map<String, byte[]>> secrets = certs.issueAll();
    try (E2E e2e = E2E.start(sandbox(dir))) {
      ClientTls root = applyExample(e2e, secrets);
      try (Cluster c = new Cluster(e2e, C, root)) {
        Duration up = c.awaitConverged(1, 3, STEP);
        System.out.printf("TLS cluster of 3 Ready in %d ms%n", up.toMillis());
        EtcdClusterStatus status = c.status();
        assertThat(E2E.condition(status, "CertificatesReady").orElseThrow().getStatus())
            .isEqualTo("True");
        assertThat(status.getCertificates()).isNotEmpty();
        assertThat(status.getMembers())
            .extracting(MemberStatus::getClientURL)
            .allMatch(u -> u.startsWith("https://"));
        Map<String, String> ids = c.memberIds();

        // Refused: no client certificate; a certificate whose CN etcd does not know (auth on).
        ClientTls anonymous =
            ClientTls.of(
                Pem.certificates(secrets.get("etcd-tls-server").get("ca.crt")),
                Optional.empty(),
                List.of());
        TestPki.Leaf nobodyLeaf = certs.ca("etcd-tls-ca").leaf("nobody").clientAuth().issue();
        ClientTls nobody =
            ClientTls.of(
                Pem.certificates(secrets.get("etcd-tls-server").get("ca.crt")),
                Optional.of(nobodyLeaf.keys().getPrivate()),
                List.of(nobodyLeaf.certificate()));
        String member0 = Names.clientUrl(E2E.NS, C, 0, "https");
        try (EtcdKv plain =
            new EtcdKv(Duration.ofSeconds(3), Optional.of(anonymous), URI::getHost)) {
          assertThatThrownBy(() -> plain.put(member0, "/tls-e2e/anonymous", "x"))
              .isInstanceOf(EtcdKv.CallFailed.class);
        }
        try (EtcdKv kv = new EtcdKv(Duration.ofSeconds(3), Optional.of(nobody), URI::getHost)) {
          assertThatThrownBy(() -> kv.put(member0, "/tls-e2e/nobody", "x"))
              .isInstanceOf(EtcdKv.CallFailed.class)
              .hasMessageContaining("permission denied");
        }

        try (RecordingWriter writer = c.writer(Duration.ofMinutes(8))) {
          writer.mark("scale 3 -> 5");
          Duration five = c.awaitConverged(c.scale(5), 5, STEP);
          writer.mark("scale 5 -> 3");
          Duration three = c.awaitConverged(c.scale(3), 3, STEP);
          System.out.printf(
              "TLS scale 3 -> 5: %d ms, 5 -> 3: %d ms%n", five.toMillis(), three.toMillis());
          assertThat(c.memberIds()).isEqualTo(ids);

          writer.mark("rolling restart");
          long rolled =
              c.patchSpec(
                  "{\"podTemplate\":{\"metadata\":{\"annotations\":{\"rolled\":\"once\"}}}}");
          Duration roll = c.awaitConverged(rolled, 3, STEP);
          c.awaitPodsAnnotated("rolled", "once", STEP);
          c.awaitConverged(rolled, 3, STEP);
          System.out.printf("TLS rolling restart of 3: %d ms%n", roll.toMillis());
          assertThat(c.memberIds()).isEqualTo(ids);

          // A follower's etcd killed; then a follower's claim wiped (the writer pauses while the
          // wiped member restarts, as in DurabilityE2EIT: under writes it may catch up silently).
          String leader = c.leader().orElseThrow();
          String follower =
              c.podNames(false).stream().filter(p -> !p.equals(leader)).findFirst().orElseThrow();
          writer.mark("kill " + follower);
          e2e.sandbox().faults().kill(E2E.NS, follower, "etcd");
          await()
              .atMost(STEP)
              .until(() -> !restarts(c).getOrDefault(follower, "/0").endsWith("/0"));
          Duration killed = c.awaitConverged(rolled, 3, STEP);
          System.out.printf(
              "TLS member %s killed: Ready again in %d ms%n", follower, killed.toMillis());
          writer.pause();
          writer.mark("wipe " + follower);
          String beforeWipe = restarts(c).get(follower);
          List<String> wiped = e2e.sandbox().faults().wipe(E2E.NS, follower);
          assertThat(wiped).hasSize(1);
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> !beforeWipe.equals(restarts(c).get(follower)));
          Duration rejoined = c.awaitConverged(rolled, 3, STEP);
          writer.resume();
          System.out.printf(
              "TLS claim of %s wiped: Ready again in %d ms (member ID %s -> %s)%n",
              follower, rejoined.toMillis(), ids.get(follower), c.memberIds().get(follower));

          // Rotation: server and peer certificates renewed in their Secrets.
          Map<String, String> before = restarts(c);
          java.time.Instant rotationStart = writer.mark("rotate server and peer certificates");
          Map<String, byte[]> server = certs.renew("etcd-tls-server");
          Map<String, byte[]> peer = certs.renew("etcd-tls-peer");
          e2e.client().resource(secret("etcd-tls-server", server)).update();
          e2e.client().resource(secret("etcd-tls-peer", peer)).update();
          BigInteger serverSerial =
              Pem.certificates(server.get("tls.crt")).get(0).getSerialNumber();
          BigInteger peerSerial = Pem.certificates(peer.get("tls.crt")).get(0).getSerialNumber();
          ClientTls asPeer =
              ClientTls.of(
                  Pem.certificates(peer.get("ca.crt")),
                  Optional.of(Pem.privateKey(peer.get("tls.key"))),
                  Pem.certificates(peer.get("tls.crt")));
          long rotateStart = System.nanoTime();
          for (int i = 0; i < 3; i++) {
            int ordinal = i;
            await()
                .atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(
                    () ->
                        served(ordinal, Names.CLIENT_PORT, root).equals(serverSerial)
                            && served(ordinal, 2380, asPeer).equals(peerSerial));
          }
          System.out.printf(
              "renewed server and peer certificates served by all 3 members after %d ms%n",
              Duration.ofNanos(System.nanoTime() - rotateStart).toMillis());
          await()
              .during(Duration.ofSeconds(3))
              .atMost(Duration.ofSeconds(10))
              .until(() -> "True/AllMembersReady".equals(ready(c.status())));
          assertThat(restarts(c)).as("no pod restarted for the rotation").isEqualTo(before);
          java.time.Instant rotationEnd = writer.mark("rotation done");

          // An unusable client Secret: reported, nothing restarts; put right, Ready again.
          int eventsBefore = c.events().size();
          Map<String, byte[]> goodClient = secrets.get("etcd-tls-client");
          TestPki.Ca stranger = TestPki.ca("stranger-ca");
          e2e.client()
              .resource(
                  secret("etcd-tls-client", stranger.leaf("root").clientAuth().issue().secret()))
              .update();
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> "False/CertificateInvalid".equals(ready(c.status())));
          String message = E2E.condition(c.status(), "Ready").orElseThrow().getMessage();
          System.out.println("unusable client Secret: " + message);
          assertThat(message).contains("etcd-tls-client");
          assertThat(restarts(c)).isEqualTo(before);
          // The operator cannot see the members with that certificate: their quorum is unknown to
          // it, not lost.
          assertThat(E2E.condition(c.status(), "Available").orElseThrow().getStatus())
              .isNotEqualTo("False");
          assertThat(c.events().subList(eventsBefore, c.events().size()))
              .noneMatch(e -> e.contains("QuorumLost"));
          e2e.client().resource(secret("etcd-tls-client", goodClient)).update();
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> "True/AllMembersReady".equals(ready(c.status())));

          // enableAuth off: etcd's authentication goes off.
          writer.mark("auth off");
          c.patchSpec("{\"security\":{\"enableAuth\":false}}");
          try (EtcdKv kv = new EtcdKv(Duration.ofSeconds(3), Optional.of(nobody), URI::getHost)) {
            await()
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> kv.put(member0, "/tls-e2e/nobody", "x") > 0);
          }
          writer.mark("done");
          WriterReport report = writer.report();
          System.out.println(report.summary());
          assertThat(report.unconfirmed())
              .as("requests that failed while the certificates were renewed")
              .noneMatch(f -> !f.at().isBefore(rotationStart) && f.at().isBefore(rotationEnd));
          assertThat(report.verified()).isTrue();
          assertThat(report.lost()).isEmpty();
          assertThat(report.altered()).isEmpty();
        }

        // A backup of the TLS cluster: its agent trusts the server CA and presents the
        // operator's client certificate, both mounted from their Secrets.
        e2e.client()
            .resource(
                new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder()
                    .withNewMetadata()
                    .withName("backup-claim")
                    .withNamespace(E2E.NS)
                    .endMetadata()
                    .withNewSpec()
                    .withAccessModes("ReadWriteOnce")
                    .withNewResources()
                    .withRequests(
                        Map.of("storage", new io.fabric8.kubernetes.api.model.Quantity("1Gi")))
                    .endResources()
                    .endSpec()
                    .build())
            .create();
        var backup = backupToClaim(e2e, "of-tls");
        System.out.println("backup of a TLS cluster: " + backup.getConditions());
        assertThat(backup.getPhase()).as("%s", backup.getConditions()).isEqualTo("Complete");
        assertThat(backup.getSnapshot().getUri()).isEqualTo("pvc://backup-claim/of-tls.db");
        assertThat(backup.getSnapshot().getRevision()).isPositive();

        // A continuous backup of the TLS cluster: its archiver watches the cluster through the
        // client Service over mutual TLS and writes every change to the claim's change log, from
        // the newest full backup of the schedule's name on: one taken by hand here, so that the
        // test need not wait for the cron's next minute.
        assertThat(backupToClaim(e2e, "tls-pitr-base").getPhase()).isEqualTo("Complete");
        e2e.client()
            .resource(
                e2e.client()
                    .getKubernetesSerialization()
                    .unmarshal(
                        """
                        apiVersion: etcd.aenix.io/v1alpha1
                        kind: EtcdBackupSchedule
                        metadata:
                          name: tls-pitr
                          namespace: default
                        spec:
                          clusterRef:
                            name: etcd-tls
                          schedule: "0 0 1 1 *"
                          continuous:
                            enabled: true
                          destination:
                            pvc:
                              claimName: backup-claim
                        """,
                        io.etcdoperator.api.v1alpha1.EtcdBackupSchedule.class))
            .create();
        long lastRevision = 0;
        try (EtcdKv kv = new EtcdKv(Duration.ofSeconds(5), Optional.of(root), URI::getHost)) {
          // The archiver may start after some of these: it reads etcd's history from the full
          // backup's revision on, so every one arrives.
          for (int i = 0; i < 20; i++) {
            lastRevision = kv.put(member0, "/tls-e2e/continuous/" + i, "v" + i);
            Thread.sleep(100);
          }
          long last = lastRevision;
          try {
            // An archiver that started after these writes records from the full backup's revision
            // on, past them (seen twice under a full verify: "recording changes from revision
            // 1308" after the last write at 1307, so nothing to archive): a write while waiting
            // gives it a change past the last one, which it archives whenever it started.
            await()
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(500))
                .until(
                    () -> {
                      if (newestArchived(dir, "tls-pitr") >= last) {
                        return true;
                      }
                      kv.put(member0, "/tls-e2e/continuous/after", "nudge");
                      return false;
                    });
          } catch (org.awaitility.core.ConditionTimeoutException e) {
            // What the archiver printed and where the schedule's full backups stood.
            var pods = e2e.client().pods().inNamespace(E2E.NS);
            var archiver = pods.withName("tls-pitr-archiver").get();
            String log;
            try {
              log = pods.withName("tls-pitr-archiver").getLog();
              log = log.substring(Math.max(0, log.length() - 4000));
            } catch (RuntimeException logError) {
              log = "(no log: " + logError + ")";
            }
            var backups =
                e2e
                    .client()
                    .resources(io.etcdoperator.api.v1alpha1.EtcdBackup.class)
                    .inNamespace(E2E.NS)
                    .list()
                    .getItems()
                    .stream()
                    .map(
                        b ->
                            b.getMetadata().getName()
                                + "="
                                + (b.getStatus() == null ? "?" : b.getStatus().getPhase()))
                    .toList();
            throw new AssertionError(
                "revision "
                    + last
                    + " not archived within 2 min; newest "
                    + newestArchived(dir, "tls-pitr")
                    + "; backups "
                    + backups
                    + "; archiver pod "
                    + (archiver == null ? "none" : archiver.getStatus())
                    + "\narchiver log:\n"
                    + log,
                e);
          }
        }
        var schedule =
            e2e.client()
                .resources(io.etcdoperator.api.v1alpha1.EtcdBackupSchedule.class)
                .inNamespace(E2E.NS)
                .withName("tls-pitr")
                .get()
                .getStatus();
        System.out.printf(
            "continuous backup of a TLS cluster: revision %d archived to %s%n",
            lastRevision, schedule.getChangeLog());
        assertThat(schedule.getChangeLog()).isEqualTo("pvc://backup-claim/tls-pitr.changes");
        // The schedule's backups run on the archiver's node: the claim is ReadWriteOnce, and on a
        // real cluster a second node could not attach it while the archiver holds it.
        String archiverNode =
            e2e.client()
                .pods()
                .inNamespace(E2E.NS)
                .withName(Names.archiverPod("tls-pitr"))
                .get()
                .getSpec()
                .getNodeName();
        List<String> scheduled =
            e2e
                .client()
                .resources(io.etcdoperator.api.v1alpha1.EtcdBackup.class)
                .inNamespace(E2E.NS)
                .withLabel(Names.SCHEDULE_LABEL, "tls-pitr")
                .list()
                .getItems()
                .stream()
                .map(b -> Names.backupPod(b.getMetadata().getName()))
                .toList();
        assertThat(scheduled).isNotEmpty();
        for (String podName : scheduled) {
          Pod p = e2e.client().pods().inNamespace(E2E.NS).withName(podName).get();
          assertThat(p).as(podName).isNotNull();
          assertThat(p.getSpec().getNodeName()).as(podName).isEqualTo(archiverNode);
        }
        e2e.client()
            .resources(io.etcdoperator.api.v1alpha1.EtcdBackupSchedule.class)
            .inNamespace(E2E.NS)
            .withName("tls-pitr")
            .delete();

        // All of TLS off at once (-Plong: README's command turns peer TLS off, then server TLS,
        // in the move test): the peers' move off with the clients onto http in its first roll.
        if (Boolean.getBoolean("long.all.cases")) {
          WriterReport overTls;
          try (RecordingWriter writer = c.writer(Duration.ofSeconds(20))) {
            await().atMost(Duration.ofSeconds(20)).until(() -> writer.acknowledgedCount() >= 200);
            overTls = writer.report();
          }
          Map<String, String> before = c.memberIds();
          try (Cluster plain = new Cluster(e2e, C)) {
            long started = System.nanoTime();
            long generation = plain.patchSpec("{\"security\":null}");
            await()
                .atMost(Duration.ofMinutes(5))
                .ignoreExceptions()
                .until(
                    () ->
                        everyPodRuns(plain, "--listen-client-urls=http://[::]:2379")
                            && everyPodRuns(plain, "--listen-peer-urls=http://[::]:2380")
                            && peerUrls(plain)
                                .equals(
                                    List.of(0, 1, 2).stream()
                                        .map(i -> Names.peerUrl(E2E.NS, C, i, "http"))
                                        .toList())
                            && plain.converged(generation, 3));
            System.out.printf(
                "all of TLS off at once: peers and clients on http, Ready in %d ms; %s%n",
                Duration.ofNanos(System.nanoTime() - started).toMillis(),
                plain.events().stream().filter(e -> e.contains(" MemberPeerUrlUpdated: ")).count()
                    + " peer URL updates in all");
            assertThat(plain.memberIds()).isEqualTo(before);
            List<String> written = overTls.acknowledged().stream().map(w -> w.key()).toList();
            try (Members members = new Members(C)) {
              for (int i = 0; i < 3; i++) {
                assertThat(members.keys(i, overTls.prefix(), true)).containsAll(written);
              }
            }
          }
        }
      }
    }
  }
}
