package io.etcdoperator.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Certificates made in the test, never committed: a CA, and leaves it signs with the names, usages
 * and validity a case needs, written as cert-manager writes its Secrets ({@code tls.crt}, {@code
 * tls.key}, {@code ca.crt}). EC P-256 keys by default (fast to make); RSA on request, its key
 * written as PKCS#1 like cert-manager's default.
 */
public final class TestPki {
  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  private TestPki() {}

  /** A self-signed CA valid for a year. */
  public static Ca ca(String commonName) {
    return ca(commonName, Instant.now().minus(Duration.ofHours(1)), Duration.ofDays(365));
  }

  public static Ca ca(String commonName, Instant notBefore, Duration validity) {
    KeyPair keys = ec();
    X500Principal name = new X500Principal("CN=" + commonName);
    try {
      JcaX509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              name,
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              Date.from(notBefore),
              Date.from(notBefore.plus(validity)),
              name,
              keys.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      b.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
      X509Certificate cert = sign(b, keys);
      return new Ca(cert, keys);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A CA and what it signs. */
  public static final class Ca {
    private final X509Certificate cert;
    private final KeyPair keys;

    Ca(X509Certificate cert, KeyPair keys) {
      this.cert = cert;
      this.keys = keys;
    }

    public X509Certificate certificate() {
      return cert;
    }

    public String pem() {
      return TestPki.pem(cert);
    }

    /** A leaf to describe, then {@link LeafBuilder#issue()}. */
    public LeafBuilder leaf(String commonName) {
      return new LeafBuilder(this, commonName);
    }

    /** The Secret cert-manager writes for a CA Certificate: its tls.crt, tls.key and ca.crt. */
    public Map<String, byte[]> secret() {
      Map<String, byte[]> data = new LinkedHashMap<>();
      data.put("tls.crt", pem().getBytes(StandardCharsets.US_ASCII));
      data.put("tls.key", new Leaf(cert, keys, this).keyPem().getBytes(StandardCharsets.US_ASCII));
      data.put("ca.crt", pem().getBytes(StandardCharsets.US_ASCII));
      return data;
    }

    /** {@code ca.crt} alone, as a CA-only Secret. */
    public Map<String, byte[]> caSecret() {
      return Map.of("ca.crt", pem().getBytes(StandardCharsets.US_ASCII));
    }
  }

  /** What a leaf should be. */
  public static final class LeafBuilder {
    private final Ca ca;
    private final String commonName;
    private final List<String> dnsNames = new ArrayList<>();
    private final List<String> ips = new ArrayList<>();
    private final List<KeyPurposeId> usages = new ArrayList<>();
    private Instant notBefore = Instant.now().minus(Duration.ofHours(1));
    private Duration validity = Duration.ofDays(90);
    private boolean rsa;

    LeafBuilder(Ca ca, String commonName) {
      this.ca = ca;
      this.commonName = commonName;
    }

    public LeafBuilder dns(String... names) {
      dnsNames.addAll(List.of(names));
      return this;
    }

    public LeafBuilder dns(List<String> names) {
      dnsNames.addAll(names);
      return this;
    }

    /** IP address SANs (etcd's peer listener checks a peer's certificate against its address). */
    public LeafBuilder ip(String... addresses) {
      ips.addAll(List.of(addresses));
      return this;
    }

    public LeafBuilder serverAuth() {
      usages.add(KeyPurposeId.id_kp_serverAuth);
      return this;
    }

    public LeafBuilder clientAuth() {
      usages.add(KeyPurposeId.id_kp_clientAuth);
      return this;
    }

    public LeafBuilder validFrom(Instant from, Duration validity) {
      this.notBefore = from;
      this.validity = validity;
      return this;
    }

    public LeafBuilder rsa() {
      this.rsa = true;
      return this;
    }

    public Leaf issue() {
      KeyPair keys = rsa ? rsaKeys() : ec();
      try {
        JcaX509v3CertificateBuilder b =
            new JcaX509v3CertificateBuilder(
                ca.cert,
                BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(notBefore),
                Date.from(notBefore.plus(validity)),
                new X500Principal(
                    commonName.isEmpty() ? "O=etcd-operator-test" : "CN=" + commonName),
                keys.getPublic());
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(
            Extension.keyUsage,
            true,
            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        if (!usages.isEmpty()) {
          b.addExtension(
              Extension.extendedKeyUsage,
              false,
              new ExtendedKeyUsage(usages.toArray(new KeyPurposeId[0])));
        }
        if (!dnsNames.isEmpty() || !ips.isEmpty()) {
          List<GeneralName> names = new ArrayList<>();
          dnsNames.forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
          ips.forEach(n -> names.add(new GeneralName(GeneralName.iPAddress, n)));
          b.addExtension(
              Extension.subjectAlternativeName,
              false,
              new GeneralNames(names.toArray(new GeneralName[0])));
        }
        b.addExtension(
            Extension.authorityKeyIdentifier,
            false,
            ext.createAuthorityKeyIdentifier(ca.cert.getPublicKey()));
        return new Leaf(sign(b, ca.keys), keys, ca);
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** A certificate, its key, and the CA that signed it. */
  public record Leaf(X509Certificate certificate, KeyPair keys, Ca ca) {
    public String certPem() {
      return pem(certificate);
    }

    /**
     * PKCS#1 for RSA ({@code RSA PRIVATE KEY}, cert-manager's default), SEC1 for EC ({@code EC
     * PRIVATE KEY} with its curve, as openssl and cert-manager write it).
     */
    public String keyPem() {
      if (!keys.getPrivate().getAlgorithm().equals("EC")) {
        return pem(keys.getPrivate());
      }
      try {
        PrivateKeyInfo info = PrivateKeyInfo.getInstance(keys.getPrivate().getEncoded());
        org.bouncycastle.asn1.sec.ECPrivateKey inner =
            org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(info.parsePrivateKey());
        org.bouncycastle.asn1.sec.ECPrivateKey sec1 =
            new org.bouncycastle.asn1.sec.ECPrivateKey(
                256, inner.getKey(), null, info.getPrivateKeyAlgorithm().getParameters());
        return pem(new PemObject("EC PRIVATE KEY", sec1.getEncoded()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** PKCS#8 ({@code PRIVATE KEY}). */
    public String pkcs8KeyPem() {
      try {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
          w.writeObject(new JcaPKCS8Generator(keys.getPrivate(), null));
        }
        return out.toString();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The Secret cert-manager writes: tls.crt, tls.key and its issuer's ca.crt. */
    public Map<String, byte[]> secret() {
      Map<String, byte[]> data = new LinkedHashMap<>();
      data.put("tls.crt", certPem().getBytes(StandardCharsets.US_ASCII));
      data.put("tls.key", keyPem().getBytes(StandardCharsets.US_ASCII));
      data.put("ca.crt", ca.pem().getBytes(StandardCharsets.US_ASCII));
      return data;
    }
  }

  static String pem(Object o) {
    try {
      StringWriter out = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(out)) {
        w.writeObject(o);
      }
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder b, KeyPair signer)
      throws GeneralSecurityException {
    try {
      String algorithm =
          signer.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
      return new JcaX509CertificateConverter()
          .getCertificate(
              b.build(new JcaContentSignerBuilder(algorithm).build(signer.getPrivate())));
    } catch (org.bouncycastle.operator.OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static KeyPair ec() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair rsaKeys() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
