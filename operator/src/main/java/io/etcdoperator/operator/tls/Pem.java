package io.etcdoperator.operator.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * PEM as cert-manager and openssl write it: certificates ({@code CERTIFICATE} blocks, one or a
 * bundle) and a private key in PKCS#1 ({@code RSA PRIVATE KEY}), SEC1 ({@code EC PRIVATE KEY}) or
 * PKCS#8 ({@code PRIVATE KEY}). Encrypted keys are refused: etcd cannot read them either.
 */
public final class Pem {
  private Pem() {}

  /** Every certificate of a PEM bundle, in order; at least one. */
  public static List<X509Certificate> certificates(byte[] pem) throws TlsException {
    if (pem == null || pem.length == 0) {
      throw new TlsException("is empty");
    }
    if (!new String(pem, StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
      throw new TlsException("holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      List<X509Certificate> certs = new ArrayList<>();
      for (var c : factory.generateCertificates(new ByteArrayInputStream(pem))) {
        certs.add((X509Certificate) c);
      }
      if (certs.isEmpty()) {
        throw new TlsException("holds no PEM certificate");
      }
      return certs;
    } catch (CertificateException e) {
      throw new TlsException("is no valid PEM certificate: " + e.getMessage());
    }
  }

  /** The private key of a PEM block. */
  public static PrivateKey privateKey(byte[] pem) throws TlsException {
    if (pem == null || pem.length == 0) {
      throw new TlsException("is empty");
    }
    try (PEMParser parser =
        new PEMParser(new StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof PEMKeyPair pair) {
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw new TlsException("is an encrypted private key, which etcd cannot read");
        }
      }
      throw new TlsException("holds no PEM private key");
    } catch (IOException | RuntimeException e) {
      throw new TlsException("is no valid PEM private key: " + e.getMessage());
    }
  }
}
