package io.etcdoperator.operator.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What the operator uses to call one cluster's members over TLS: the CAs it trusts for their server
 * certificate and, when client certificates are required, its own certificate and key.
 *
 * @param trust the CAs that sign the members' server certificate
 * @param key the operator's private key, when it presents a certificate
 * @param chain the operator's certificate (and any intermediates), empty without a key
 * @param fingerprint changes whenever any of them changes: a channel made with older material is
 *     replaced
 */
public record ClientTls(
    List<X509Certificate> trust,
    Optional<PrivateKey> key,
    List<X509Certificate> chain,
    String fingerprint) {
  public ClientTls {
    trust = List.copyOf(trust);
    chain = List.copyOf(chain);
  }

  public static ClientTls of(
      List<X509Certificate> trust, Optional<PrivateKey> key, List<X509Certificate> chain) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (X509Certificate c : trust) {
        d.update(c.getEncoded());
      }
      d.update((byte) 0);
      for (X509Certificate c : chain) {
        d.update(c.getEncoded());
      }
      d.update((byte) 0);
      key.ifPresent(k -> d.update(k.getEncoded()));
      return new ClientTls(trust, key, chain, HexFormat.of().formatHex(d.digest(), 0, 8));
    } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A JDK context trusting {@link #trust} and presenting {@link #chain}, for HTTPS calls. */
  public SSLContext sslContext() {
    try {
      KeyStore trustStore = KeyStore.getInstance("PKCS12");
      trustStore.load(null, null);
      for (int i = 0; i < trust.size(); i++) {
        trustStore.setCertificateEntry("ca-" + i, trust.get(i));
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trustStore);
      KeyManagerFactory kmf = null;
      if (key.isPresent()) {
        char[] password = new char[0];
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        keyStore.load(null, null);
        keyStore.setKeyEntry("client", key.get(), password, chain.toArray(new X509Certificate[0]));
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keyStore, password);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a TLS context: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClientTls c && fingerprint.equals(c.fingerprint);
  }

  @Override
  public int hashCode() {
    return fingerprint.hashCode();
  }

  @Override
  public String toString() {
    return "ClientTls[" + fingerprint + "]";
  }
}
