package io.etcdoperator.sandbox.api;

import java.io.StringWriter;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The sandbox cluster's CA, made anew at each start (EC P-256, valid a year), and the API server's
 * serving certificate it signs: for the address clients reach it at (an IP SAN, as in-cluster
 * clients connect to {@code KUBERNETES_SERVICE_HOST}) and the names {@code kubernetes}, {@code
 * kubernetes.default}, {@code kubernetes.default.svc}, {@code kubernetes.default.svc.cluster.local}
 * and {@code localhost}. Pods find the CA in their namespace's {@code kube-root-ca.crt}, projected
 * into their token volume, and check the server with it as they would on a real cluster.
 */
public final class ClusterCa {
  private final String caPem;
  private final String certPem;
  private final String keyPem;

  private ClusterCa(String caPem, String certPem, String keyPem) {
    this.caPem = caPem;
    this.certPem = certPem;
    this.keyPem = keyPem;
  }

  /** A new CA and a serving certificate for {@code ip}. */
  public static ClusterCa create(String ip) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(256);
      KeyPair caKey = g.generateKeyPair();
      KeyPair serverKey = g.generateKeyPair();
      Instant now = Instant.now();
      Date from = Date.from(now.minus(Duration.ofMinutes(5)));
      Date to = Date.from(now.plus(Duration.ofDays(365)));
      X500Name caName = new X500Name("CN=sandbox-ca");
      var caBuilder =
          new JcaX509v3CertificateBuilder(
              caName, BigInteger.ONE, from, to, caName, caKey.getPublic());
      caBuilder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      caBuilder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      X509Certificate ca = sign(caBuilder, caKey);
      var serverBuilder =
          new JcaX509v3CertificateBuilder(
              caName,
              BigInteger.TWO,
              from,
              to,
              new X500Name("CN=kube-apiserver"),
              serverKey.getPublic());
      serverBuilder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      serverBuilder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      serverBuilder.addExtension(
          Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      serverBuilder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, ip),
                new GeneralName(GeneralName.dNSName, "kubernetes"),
                new GeneralName(GeneralName.dNSName, "kubernetes.default"),
                new GeneralName(GeneralName.dNSName, "kubernetes.default.svc"),
                new GeneralName(GeneralName.dNSName, "kubernetes.default.svc.cluster.local"),
                new GeneralName(GeneralName.dNSName, "localhost")
              }));
      X509Certificate server = sign(serverBuilder, caKey);
      return new ClusterCa(
          pem(ca), pem(server), pem(new JcaPKCS8Generator(serverKey.getPrivate(), null)));
    } catch (Exception e) {
      throw new IllegalStateException("the sandbox's CA could not be made: " + e, e);
    }
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder b, KeyPair issuer)
      throws Exception {
    var signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate());
    return new JcaX509CertificateConverter().getCertificate(b.build(signer));
  }

  private static String pem(Object o) throws Exception {
    StringWriter s = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(s)) {
      w.writeObject(o);
    }
    return s.toString();
  }

  /** The CA certificate, PEM: what {@code kube-root-ca.crt} holds. */
  public String caPem() {
    return caPem;
  }

  /** The serving certificate, PEM. */
  public String certPem() {
    return certPem;
  }

  /** The serving certificate's private key, PKCS#8 PEM. */
  public String keyPem() {
    return keyPem;
  }
}
