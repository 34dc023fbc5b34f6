package io.etcdoperator.operator.tls;

import io.etcdoperator.api.v1alpha1.CertificateStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Security;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.stream.Collectors;
import javax.security.auth.x500.X500Principal;

/**
 * Whether the Secrets of {@code spec.security.tls} give members and the operator what they need,
 * read before anything is started or changed with them. Pure: Secrets' bytes in, a {@link
 * TlsReport} out.
 *
 * <p>A problem that would break the cluster or blind the operator is <em>invalid</em>, and the
 * planner then starts and changes nothing: a missing Secret or key; PEM that does not parse; a key
 * that is not the certificate's; a certificate not yet valid or expired; one that its CA bundle
 * does not sign (peer: the peer CA; server: what the operator trusts; client: the client CA); one
 * whose extended key usage forbids its use (peer: server and client authentication; server: server;
 * client: client); a peer or server certificate that does not name every member's host ({@code
 * <cluster>-<i>.<cluster>-headless.<ns>.svc}, for every ordinal the cluster has or is to have: a
 * member added later with a name the certificate lacks could not join); with {@code enableAuth}, a
 * client certificate without a CN (the CN is the user etcd sees). <em>Warnings</em> change nothing:
 * a certificate or CA that expires within {@link #EXPIRY_WARNING}; a server certificate that does
 * not name the client Service ({@code <cluster>.<ns>.svc}; members are reached by their own names,
 * as Kamaji does, so the cluster works without it).
 *
 * <p>The report also carries the operator's client material and a fingerprint of the CAs members
 * load at start (peer CA and client CA): etcd re-reads its own certificate and key on every
 * handshake but builds its CA pools once, so a change of those CAs must restart the members, and
 * the fingerprint, in the pod template, makes that a roll.
 */
public final class CertificateCheck {
  /** How soon before expiry a certificate is reported. */
  public static final Duration EXPIRY_WARNING = Duration.ofDays(7);

  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  private static final String ANY_USAGE = "2.5.29.37.0";

  private final Security security;
  private final String namespace;
  private final String cluster;
  private final SortedSet<Integer> ordinals;
  private final Map<String, Map<String, byte[]>> secrets;
  private final Instant now;
  private final List<TlsReport.Problem> invalid = new ArrayList<>();
  private final List<TlsReport.Problem> warnings = new ArrayList<>();
  private final List<CertificateStatus> certificates = new ArrayList<>();

  private CertificateCheck(
      Security security,
      String namespace,
      String cluster,
      SortedSet<Integer> ordinals,
      Map<String, Map<String, byte[]>> secrets,
      Instant now) {
    this.security = security;
    this.namespace = namespace;
    this.cluster = cluster;
    this.ordinals = ordinals;
    this.secrets = secrets;
    this.now = now;
  }

  /**
   * Checks {@code security}'s Secrets.
   *
   * @param ordinals every member ordinal the certificates must cover (those that exist and those
   *     the spec asks for)
   * @param secrets Secret name to its data (key to bytes); a Secret that does not exist is absent
   */
  public static TlsReport check(
      Security security,
      String namespace,
      String cluster,
      SortedSet<Integer> ordinals,
      Map<String, Map<String, byte[]>> secrets,
      Instant now) {
    if (!security.any()) {
      return TlsReport.NONE;
    }
    return new CertificateCheck(security, namespace, cluster, ordinals, secrets, now).run();
  }

  private TlsReport run() {
    Optional<List<X509Certificate>> peerCa =
        security.peerCaSecret().flatMap(s -> bundle("peerCA", s));
    if (security.peerTls()) {
      leaf("peer", security.peerSecret().get())
          .ifPresent(
              l -> {
                usage(l, SERVER_AUTH, "server");
                usage(l, CLIENT_AUTH, "client");
                peerCa.ifPresent(ca -> signedBy(l, ca, security.peerCaSecret().get()));
                names(l, memberHosts(), true, "every member's peer URL host");
              });
    }
    Optional<List<X509Certificate>> serverTrust = serverTrust();
    if (security.serverTls()) {
      leaf("server", security.serverSecret().get())
          .ifPresent(
              l -> {
                usage(l, SERVER_AUTH, "server");
                serverTrust.ifPresent(ca -> signedBy(l, ca, security.operatorTrustSecret().get()));
                names(l, memberHosts(), true, "every member's client URL host");
                names(l, List.of(serviceHost()), false, "the client Service");
              });
    }
    Optional<List<X509Certificate>> clientCa =
        security.clientCaSecret().flatMap(s -> bundle("clientCA", s));
    Optional<Leaf> client = Optional.empty();
    if (security.clientSecret().isPresent()) {
      client = leaf("client", security.clientSecret().get());
      client.ifPresent(
          l -> {
            usage(l, CLIENT_AUTH, "client");
            clientCa.ifPresent(ca -> signedBy(l, ca, security.clientCaSecret().get()));
            if (security.auth() && Certificates.commonName(l.chain.get(0)).isEmpty()) {
              invalid(
                  l.secret,
                  Security.CERT_KEY,
                  "has no CN: with enableAuth the CN is the etcd user the operator acts as (root,"
                      + " or a user the operator makes root)");
            }
          });
    }
    Optional<ClientTls> operator = Optional.empty();
    if (invalid.isEmpty()) {
      List<X509Certificate> trust = serverTrust.orElse(List.of());
      operator =
          Optional.of(
              ClientTls.of(
                  trust, client.map(l -> l.key), client.map(l -> l.chain).orElse(List.of())));
    }
    return new TlsReport(
        List.copyOf(new LinkedHashSet<>(invalid)),
        List.copyOf(new LinkedHashSet<>(warnings)),
        certificates,
        operator,
        Certificates.fingerprint(peerCa, clientCa),
        clientUser(client));
  }

  /** A certificate and its key, read and matched. */
  private record Leaf(String secret, List<X509Certificate> chain, PrivateKey key) {}

  private Optional<Leaf> leaf(String use, String secret) {
    Optional<byte[]> crt = bytes(secret, Security.CERT_KEY);
    Optional<byte[]> key = bytes(secret, Security.PRIVATE_KEY);
    if (crt.isEmpty() || key.isEmpty()) {
      return Optional.empty();
    }
    List<X509Certificate> chain;
    PrivateKey privateKey;
    try {
      chain = Pem.certificates(crt.get());
    } catch (TlsException e) {
      invalid(secret, Security.CERT_KEY, e.getMessage());
      return Optional.empty();
    }
    X509Certificate cert = chain.get(0);
    certificates.add(status(use, secret, Security.CERT_KEY, cert, cert));
    try {
      privateKey = Pem.privateKey(key.get());
    } catch (TlsException e) {
      invalid(secret, Security.PRIVATE_KEY, e.getMessage());
      return Optional.empty();
    }
    if (!Certificates.matches(privateKey, cert.getPublicKey())) {
      invalid(
          secret,
          Security.PRIVATE_KEY,
          "is not the key of the certificate in "
              + Security.CERT_KEY
              + " ("
              + Certificates.subject(cert)
              + ")");
      return Optional.empty();
    }
    validity(secret, Security.CERT_KEY, cert, true);
    return Optional.of(new Leaf(secret, chain, privateKey));
  }

  /**
   * What the operator trusts for the members' server certificate: serverTrustedCASecret's ca.crt,
   * else the server Secret's own ca.crt; invalid when neither is there.
   */
  private Optional<List<X509Certificate>> serverTrust() {
    Optional<List<X509Certificate>> serverTrust = Optional.empty();
    if (security.serverTls()) {
      String trust = security.operatorTrustSecret().get();
      Map<String, byte[]> held = secrets.get(trust);
      if (trust.equals(security.serverSecret().get())
          && held != null
          && (held.get(Security.CA_KEY) == null || held.get(Security.CA_KEY).length == 0)) {
        // aenix would skip verifying the members then; the operator does not.
        invalid(
            trust,
            Security.CA_KEY,
            "missing, and spec.security.tls.serverTrustedCASecret is not set: the operator"
                + " verifies the members' server certificate against the server Secret's ca.crt"
                + " when no serverTrustedCASecret is named; set serverTrustedCASecret to a Secret"
                + " whose ca.crt holds the CA that signed it");
      } else {
        serverTrust = bundle("serverCA", trust);
      }
    }
    return serverTrust;
  }

  private Optional<List<X509Certificate>> bundle(String use, String secret) {
    Optional<byte[]> pem = bytes(secret, Security.CA_KEY);
    if (pem.isEmpty()) {
      return Optional.empty();
    }
    try {
      List<X509Certificate> cas = Pem.certificates(pem.get());
      X509Certificate first =
          cas.stream().min(Comparator.comparing(X509Certificate::getNotAfter)).orElseThrow();
      certificates.add(status(use, secret, Security.CA_KEY, cas.get(0), first));
      // A bundle may hold a CA on its way out: only warn about it, the chain check decides.
      cas.forEach(ca -> validity(secret, Security.CA_KEY, ca, false));
      return Optional.of(cas);
    } catch (TlsException e) {
      invalid(secret, Security.CA_KEY, e.getMessage());
      return Optional.empty();
    }
  }

  private Optional<byte[]> bytes(String secret, String key) {
    Map<String, byte[]> data = secrets.get(secret);
    if (data == null) {
      invalid(
          secret,
          null,
          "not found in namespace "
              + namespace
              + ": create it (cert-manager writes tls.crt, tls.key and ca.crt)");
      return Optional.empty();
    }
    byte[] value = data.get(key);
    if (value == null || value.length == 0) {
      invalid(
          secret,
          key,
          "missing"
              + (data.isEmpty()
                  ? ""
                  : " (the Secret has " + String.join(", ", data.keySet()) + ")"));
      return Optional.empty();
    }
    return Optional.of(value);
  }

  private void validity(String secret, String key, X509Certificate cert, boolean leaf) {
    Instant notBefore = cert.getNotBefore().toInstant();
    Instant notAfter = cert.getNotAfter().toInstant();
    String which = leaf ? "" : " (" + Certificates.subject(cert) + ")";
    if (now.isBefore(notBefore)) {
      if (leaf) {
        invalid(secret, key, "is not valid before " + notBefore);
      } else {
        warn(secret, key, which.strip() + " is not valid before " + notBefore);
      }
    } else if (!now.isBefore(notAfter)) {
      if (leaf) {
        invalid(secret, key, "expired at " + notAfter);
      } else {
        warn(secret, key, which.strip() + " expired at " + notAfter);
      }
    } else if (Duration.between(now, notAfter).compareTo(EXPIRY_WARNING) < 0) {
      long hours = Duration.between(now, notAfter).toHours();
      warn(
          secret,
          key,
          (leaf ? "" : which.strip() + " ")
              + "expires in "
              + (hours >= 48 ? hours / 24 + " days" : hours + " hours")
              + ", at "
              + notAfter
              + ": renew it");
    }
  }

  private void usage(Leaf leaf, String oid, String what) {
    List<String> usages;
    try {
      usages = leaf.chain.get(0).getExtendedKeyUsage();
    } catch (CertificateParsingException e) {
      invalid(leaf.secret, Security.CERT_KEY, "has an unreadable extended key usage");
      return;
    }
    if (usages != null && !usages.contains(oid) && !usages.contains(ANY_USAGE)) {
      invalid(
          leaf.secret,
          Security.CERT_KEY,
          "does not allow " + what + " authentication (extended key usage), which it is used for");
    }
  }

  private void signedBy(Leaf leaf, List<X509Certificate> cas, String caSecret) {
    try {
      Set<TrustAnchor> anchors =
          cas.stream().map(c -> new TrustAnchor(c, null)).collect(Collectors.toSet());
      PKIXParameters params = new PKIXParameters(anchors);
      params.setRevocationEnabled(false);
      params.setDate(Date.from(now));
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      CertPathValidator.getInstance("PKIX")
          .validate(factory.generateCertPath(Certificates.withoutAnchors(leaf.chain, cas)), params);
    } catch (GeneralSecurityException e) {
      X509Certificate cert = leaf.chain.get(0);
      invalid(
          leaf.secret,
          Security.CERT_KEY,
          "is not signed by a CA in "
              + caSecret
              + "'s "
              + Security.CA_KEY
              + " (issuer "
              + cert.getIssuerX500Principal().getName(X500Principal.RFC2253)
              + "; that bundle holds "
              + cas.stream().map(Certificates::subject).collect(Collectors.joining(", "))
              + ")");
    }
  }

  private void names(Leaf leaf, List<String> hosts, boolean required, String what) {
    Set<String> dnsNames = Certificates.dnsNames(leaf.chain.get(0));
    List<String> missing = hosts.stream().filter(h -> !Certificates.covered(h, dnsNames)).toList();
    if (missing.isEmpty()) {
      return;
    }
    String message =
        "does not name "
            + what
            + ": "
            + String.join(", ", missing)
            + " missing from its DNS names"
            + (dnsNames.isEmpty() ? "" : " (" + String.join(", ", dnsNames) + ")");
    if (required) {
      invalid(leaf.secret, Security.CERT_KEY, message);
    } else {
      warn(leaf.secret, Security.CERT_KEY, message + "; clients of the Service cannot verify it");
    }
  }

  private List<String> memberHosts() {
    return ordinals.stream().map(i -> Names.memberHost(namespace, cluster, i)).toList();
  }

  private String serviceHost() {
    return Names.clientService(cluster) + "." + namespace + ".svc";
  }

  private static CertificateStatus status(
      String use, String secret, String key, X509Certificate shown, X509Certificate expiring) {
    CertificateStatus s = new CertificateStatus();
    s.setUse(use);
    s.setSecret(secret);
    s.setKey(key);
    s.setSubject(Certificates.subject(shown));
    s.setNotAfter(expiring.getNotAfter().toInstant().toString());
    return s;
  }

  private static Optional<String> clientUser(Optional<Leaf> client) {
    return client.flatMap(l -> Certificates.commonName(l.chain.get(0)));
  }

  private void invalid(String secret, String key, String message) {
    invalid.add(new TlsReport.Problem(secret, key, message));
  }

  private void warn(String secret, String key, String message) {
    warnings.add(new TlsReport.Problem(secret, key, message));
  }
}
