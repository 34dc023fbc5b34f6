package io.etcdoperator.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.CertificateStatus;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.testing.TestPki;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each bad certificate is named with its Secret and key; real certificates made in the test. */
public class CertificateCheckTest {
  static final String NS = "ns";
  static final String CLUSTER = "test";
  static final Instant NOW = Instant.now();

  static final TestPki.Ca PEER_CA = TestPki.ca("peer-ca");
  static final TestPki.Ca SERVER_CA = TestPki.ca("server-ca");
  static final TestPki.Ca CLIENT_CA = TestPki.ca("client-ca");
  static final TestPki.Ca OTHER_CA = TestPki.ca("other-ca");

  static final Security ALL =
      new Security(
          Optional.of("peer-tls"),
          Optional.of("peer-ca"),
          Optional.of("server-tls"),
          Optional.empty(),
          Optional.of("client-ca"),
          Optional.of("client-tls"),
          true);

  static List<String> members(int n) {
    return IntStream.range(0, n).mapToObj(i -> "test-" + i + ".test-headless.ns.svc").toList();
  }

  static TestPki.Leaf peer(TestPki.Ca ca, List<String> names) {
    return ca.leaf("peer").dns(names).serverAuth().clientAuth().issue();
  }

  static TestPki.Leaf server(List<String> names) {
    return SERVER_CA.leaf("server").dns(names).serverAuth().issue();
  }

  /** Every Secret right for 3 members. */
  public static Map<String, Map<String, byte[]>> good() {
    Map<String, Map<String, byte[]>> s = new LinkedHashMap<>();
    s.put("peer-ca", PEER_CA.caSecret());
    s.put("peer-tls", peer(PEER_CA, members(3)).secret());
    List<String> serverNames = new java.util.ArrayList<>(members(3));
    serverNames.add("test.ns.svc");
    s.put("server-tls", server(serverNames).secret());
    s.put("client-ca", CLIENT_CA.caSecret());
    s.put("client-tls", CLIENT_CA.leaf("root").clientAuth().issue().secret());
    return s;
  }

  static Map<String, Map<String, byte[]>> with(Consumer<Map<String, Map<String, byte[]>>> change) {
    Map<String, Map<String, byte[]>> s = new HashMap<>(good());
    change.accept(s);
    return s;
  }

  static Map<String, byte[]> without(Map<String, byte[]> data, String key) {
    Map<String, byte[]> d = new LinkedHashMap<>(data);
    d.remove(key);
    return d;
  }

  static TlsReport check(Map<String, Map<String, byte[]>> secrets) {
    return check(ALL, secrets, 3);
  }

  static TlsReport check(Security security, Map<String, Map<String, byte[]>> secrets, int n) {
    SortedSet<Integer> ordinals = new TreeSet<>();
    IntStream.range(0, n).forEach(ordinals::add);
    return CertificateCheck.check(security, NS, CLUSTER, ordinals, secrets, NOW);
  }

  @Test
  void goodSecretsAreUsableAndEveryCertificateIsReportedWithItsExpiry() {
    TlsReport r = check(good());
    assertThat(r.invalid()).isEmpty();
    assertThat(r.warnings()).isEmpty();
    assertThat(r.certificates())
        .extracting(
            CertificateStatus::getUse, CertificateStatus::getSecret, CertificateStatus::getKey)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("peerCA", "peer-ca", "ca.crt"),
            org.assertj.core.groups.Tuple.tuple("peer", "peer-tls", "tls.crt"),
            org.assertj.core.groups.Tuple.tuple("serverCA", "server-tls", "ca.crt"),
            org.assertj.core.groups.Tuple.tuple("server", "server-tls", "tls.crt"),
            org.assertj.core.groups.Tuple.tuple("clientCA", "client-ca", "ca.crt"),
            org.assertj.core.groups.Tuple.tuple("client", "client-tls", "tls.crt"));
    assertThat(r.certificates()).allSatisfy(c -> assertThat(c.getNotAfter()).endsWith("Z"));
    assertThat(r.client()).isPresent();
    assertThat(r.client().get().trust()).containsExactly(SERVER_CA.certificate());
    assertThat(r.client().get().key()).isPresent();
    assertThat(r.clientUser()).contains("root");
    assertThat(r.trustedCa()).matches("[0-9a-f]{16}");
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of(
            "a Secret that does not exist",
            with(s -> s.remove("peer-tls")),
            "Secret peer-tls: not found in namespace ns: create it (cert-manager writes tls.crt,"
                + " tls.key and ca.crt)"),
        Arguments.of(
            "a key missing from its Secret",
            with(s -> s.put("peer-tls", without(s.get("peer-tls"), "tls.key"))),
            "Secret peer-tls key tls.key: missing (the Secret has tls.crt, ca.crt)"),
        Arguments.of(
            "a CA Secret without ca.crt",
            with(s -> s.put("client-ca", Map.of("tls.crt", "x".getBytes()))),
            "Secret client-ca key ca.crt: missing (the Secret has tls.crt)"),
        Arguments.of(
            "no ca.crt for the operator to trust the server with",
            with(s -> s.put("server-tls", without(s.get("server-tls"), "ca.crt"))),
            "Secret server-tls key ca.crt: missing, and spec.security.tls.serverTrustedCASecret is"
                + " not set"),
        Arguments.of(
            "a key that is not the certificate's",
            with(
                s -> {
                  Map<String, byte[]> peer = new LinkedHashMap<>(s.get("peer-tls"));
                  peer.put(
                      "tls.key",
                      peer(PEER_CA, members(3)).keyPem().getBytes(StandardCharsets.US_ASCII));
                  s.put("peer-tls", peer);
                }),
            "Secret peer-tls key tls.key: is not the key of the certificate in tls.crt (CN=peer)"),
        Arguments.of(
            "a peer certificate of another CA",
            with(s -> s.put("peer-tls", peer(OTHER_CA, members(3)).secret())),
            "Secret peer-tls key tls.crt: is not signed by a CA in peer-ca's ca.crt (issuer"
                + " CN=other-ca; that bundle holds CN=peer-ca)"),
        Arguments.of(
            "an expired server certificate",
            with(
                s ->
                    s.put(
                        "server-tls",
                        SERVER_CA
                            .leaf("server")
                            .dns(members(3))
                            .serverAuth()
                            .validFrom(NOW.minus(Duration.ofDays(30)), Duration.ofDays(10))
                            .issue()
                            .secret())),
            "Secret server-tls key tls.crt: expired at "),
        Arguments.of(
            "a client certificate not valid yet",
            with(
                s ->
                    s.put(
                        "client-tls",
                        CLIENT_CA
                            .leaf("root")
                            .clientAuth()
                            .validFrom(NOW.plus(Duration.ofDays(1)), Duration.ofDays(10))
                            .issue()
                            .secret())),
            "Secret client-tls key tls.crt: is not valid before "),
        Arguments.of(
            "a peer certificate missing a member's name",
            with(s -> s.put("peer-tls", peer(PEER_CA, members(2)).secret())),
            "Secret peer-tls key tls.crt: does not name every member's peer URL host:"
                + " test-2.test-headless.ns.svc missing from its DNS names"
                + " (test-0.test-headless.ns.svc, test-1.test-headless.ns.svc)"),
        Arguments.of(
            "a server certificate without the members' names",
            with(s -> s.put("server-tls", server(List.of("test.ns.svc")).secret())),
            "Secret server-tls key tls.crt: does not name every member's client URL host:"
                + " test-0.test-headless.ns.svc, test-1.test-headless.ns.svc,"
                + " test-2.test-headless.ns.svc missing from its DNS names (test.ns.svc)"),
        Arguments.of(
            "a peer certificate that cannot authenticate a client",
            with(
                s ->
                    s.put(
                        "peer-tls",
                        PEER_CA.leaf("peer").dns(members(3)).serverAuth().issue().secret())),
            "Secret peer-tls key tls.crt: does not allow client authentication (extended key"
                + " usage), which it is used for"),
        Arguments.of(
            "a server certificate for clients only",
            with(
                s ->
                    s.put(
                        "server-tls",
                        SERVER_CA.leaf("server").dns(members(3)).clientAuth().issue().secret())),
            "Secret server-tls key tls.crt: does not allow server authentication"),
        Arguments.of(
            "a client certificate without CN under enableAuth",
            with(s -> s.put("client-tls", CLIENT_CA.leaf("").clientAuth().issue().secret())),
            "Secret client-tls key tls.crt: has no CN: with enableAuth the CN is the etcd user"),
        Arguments.of(
            "a client certificate of another CA",
            with(s -> s.put("client-tls", OTHER_CA.leaf("root").clientAuth().issue().secret())),
            "Secret client-tls key tls.crt: is not signed by a CA in client-ca's ca.crt"),
        Arguments.of(
            "not PEM at all",
            with(
                s -> {
                  Map<String, byte[]> peer = new LinkedHashMap<>(s.get("peer-tls"));
                  peer.put("tls.crt", "hello".getBytes(StandardCharsets.US_ASCII));
                  s.put("peer-tls", peer);
                }),
            "Secret peer-tls key tls.crt: holds no PEM certificate (-----BEGIN CERTIFICATE-----)"),
        Arguments.of(
            "a key that is not PEM",
            with(
                s -> {
                  Map<String, byte[]> peer = new LinkedHashMap<>(s.get("peer-tls"));
                  peer.put("tls.key", "-----BEGIN NOTHING-----\n".getBytes());
                  s.put("peer-tls", peer);
                }),
            "Secret peer-tls key tls.key: "));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void invalidSecretsAreNamedAndNothingIsHandedToTheOperator(
      String name, Map<String, Map<String, byte[]>> secrets, String problem) {
    TlsReport r = check(secrets);
    assertThat(r.usable()).isFalse();
    assertThat(r.invalid())
        .extracting(Object::toString)
        .anySatisfy(p -> assertThat(p).startsWith(problem));
    assertThat(r.client()).isEmpty();
  }

  @Test
  void aMissingSecretIsNamedOnce() {
    TlsReport r = check(with(s -> s.remove("server-tls")));
    assertThat(r.invalid()).extracting(TlsReport.Problem::secret).containsExactly("server-tls");
  }

  @Test
  void aScaleUpNeedsTheNewMembersNamesBeforeItStarts() {
    TlsReport r = check(ALL, good(), 5);
    assertThat(r.invalid())
        .extracting(Object::toString)
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains("test-3.test-headless.ns.svc, test-4.test-headless.ns.svc missing"));
  }

  @Test
  void wildcardNamesCoverEveryMember() {
    TlsReport r =
        check(
            with(
                s -> s.put("peer-tls", peer(PEER_CA, List.of("*.test-headless.ns.svc")).secret())));
    assertThat(r.invalid()).isEmpty();
    assertThat(Certificates.covered("a.b.test-headless.ns.svc", List.of("*.test-headless.ns.svc")))
        .as("a wildcard covers one label only")
        .isFalse();
  }

  @Test
  void aServerCertificateWithoutTheServiceNameWorksAndIsReported() {
    // Kamaji's example names the members only: the cluster works, clients of the Service warned.
    TlsReport r = check(with(s -> s.put("server-tls", server(members(3)).secret())));
    assertThat(r.invalid()).isEmpty();
    assertThat(r.warnings())
        .extracting(Object::toString)
        .containsExactly(
            "Secret server-tls key tls.crt: does not name the client Service: test.ns.svc missing"
                + " from its DNS names (test-0.test-headless.ns.svc, test-1.test-headless.ns.svc,"
                + " test-2.test-headless.ns.svc); clients of the Service cannot verify it");
  }

  @Test
  void aCertificateExpiringWithinAWeekIsAWarning() {
    TlsReport r =
        check(
            with(
                s ->
                    s.put(
                        "client-tls",
                        CLIENT_CA
                            .leaf("root")
                            .clientAuth()
                            .validFrom(NOW.minus(Duration.ofDays(80)), Duration.ofDays(83))
                            .issue()
                            .secret())));
    assertThat(r.invalid()).isEmpty();
    assertThat(r.warnings())
        .extracting(Object::toString)
        .singleElement()
        .satisfies(
            w ->
                assertThat(w)
                    .startsWith("Secret client-tls key tls.crt: expires in 2 days, at ")
                    .endsWith(": renew it"));
  }

  @Test
  void rsaKeysInPkcs1AndPkcs8Parse() {
    TestPki.Leaf rsa = PEER_CA.leaf("peer").dns(members(3)).serverAuth().clientAuth().rsa().issue();
    assertThat(rsa.keyPem()).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    for (String key : List.of(rsa.keyPem(), rsa.pkcs8KeyPem())) {
      Map<String, byte[]> peer = new LinkedHashMap<>(rsa.secret());
      peer.put("tls.key", key.getBytes(StandardCharsets.US_ASCII));
      TlsReport r = check(with(s -> s.put("peer-tls", peer)));
      assertThat(r.invalid()).isEmpty();
    }
  }

  @Test
  void aBundleOfTheOldAndNewCaAcceptsLeavesOfEitherAndChangesTheFingerprint() {
    TestPki.Ca next = TestPki.ca("peer-ca-2");
    Map<String, byte[]> bundle =
        Map.of("ca.crt", (PEER_CA.pem() + next.pem()).getBytes(StandardCharsets.US_ASCII));
    String before = check(good()).trustedCa();
    for (TestPki.Ca signer : List.of(PEER_CA, next)) {
      TlsReport r =
          check(
              with(
                  s -> {
                    s.put("peer-ca", bundle);
                    s.put("peer-tls", peer(signer, members(3)).secret());
                  }));
      assertThat(r.invalid()).isEmpty();
      assertThat(r.trustedCa()).isNotEqualTo(before);
    }
    // New leaves of the same CA change nothing members must restart for.
    assertThat(check(good()).trustedCa()).isEqualTo(before);
  }

  @Test
  void serverTlsAloneNeedsNoClientCertificate() {
    Security serverOnly =
        new Security(
            Optional.empty(),
            Optional.empty(),
            Optional.of("server-tls"),
            Optional.of("server-ca"),
            Optional.empty(),
            Optional.empty(),
            false);
    Map<String, Map<String, byte[]>> secrets = new HashMap<>();
    secrets.put("server-tls", without(server(members(3)).secret(), "ca.crt"));
    secrets.put("server-ca", SERVER_CA.caSecret());
    TlsReport r = check(serverOnly, secrets, 3);
    assertThat(r.invalid()).isEmpty();
    assertThat(r.client().orElseThrow().key()).isEmpty();
    assertThat(r.certificates())
        .extracting(CertificateStatus::getUse)
        .containsExactly("serverCA", "server");
  }

  @Test
  void aServerSecretWithoutItsCaAndNoServerTrustedCaSaysWhatToSet() {
    // aenix's kamaji example names no serverTrustedCASecret: the server Secret's ca.crt is trusted,
    // and without one aenix would not verify the members at all.
    TlsReport r = check(with(s -> s.put("server-tls", without(s.get("server-tls"), "ca.crt"))));
    assertThat(r.invalid())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.secret()).isEqualTo("server-tls");
              assertThat(p.key()).isEqualTo("ca.crt");
              assertThat(p.message())
                  .startsWith("missing, and spec.security.tls.serverTrustedCASecret is not set");
            });
  }

  @Test
  void noTlsIsNoReport() {
    assertThat(check(Security.NONE, Map.of(), 3)).isSameAs(TlsReport.NONE);
  }
}
