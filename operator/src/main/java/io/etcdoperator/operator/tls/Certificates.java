package io.etcdoperator.operator.tls;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import javax.security.auth.x500.X500Principal;

/**
 * What {@link CertificateCheck} asks of single X.509 certificates and keys: the DNS names a
 * certificate carries and whether one covers a host (wildcards of the first label), whether a key
 * belongs to a certificate (by a signature over a random challenge), subjects and common names, and
 * the fingerprint of the CAs members load.
 */
final class Certificates {
  private Certificates() {}

  /** A host matches a DNS name, or a wildcard one of its first label ({@code *.a.b}). */
  static boolean covered(String host, Collection<String> dnsNames) {
    String h = host.toLowerCase(Locale.ROOT);
    for (String n : dnsNames) {
      String name = n.toLowerCase(Locale.ROOT);
      if (name.equals(h)) {
        return true;
      }
      if (name.startsWith("*.")) {
        int dot = h.indexOf('.');
        if (dot > 0 && h.substring(dot).equals(name.substring(1))) {
          return true;
        }
      }
    }
    return false;
  }

  static Set<String> dnsNames(X509Certificate cert) {
    Set<String> names = new LinkedHashSet<>();
    try {
      if (cert.getSubjectAlternativeNames() != null) {
        for (List<?> san : cert.getSubjectAlternativeNames()) {
          if (Integer.valueOf(2).equals(san.get(0))) {
            names.add((String) san.get(1));
          }
        }
      }
    } catch (CertificateParsingException e) {
      // no names
    }
    return names;
  }

  /** Signs a challenge with the key and verifies it with the certificate's public key. */
  static boolean matches(PrivateKey key, PublicKey cert) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC", "ECDSA" -> "SHA256withECDSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          default -> null;
        };
    if (algorithm == null || !sameFamily(key.getAlgorithm(), cert.getAlgorithm())) {
      return false;
    }
    try {
      byte[] challenge = new byte[32];
      new SecureRandom().nextBytes(challenge);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(challenge);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert);
      verifier.update(challenge);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static boolean sameFamily(String a, String b) {
    return normal(a).equals(normal(b));
  }

  private static String normal(String algorithm) {
    return switch (algorithm) {
      case "ECDSA" -> "EC";
      case "EdDSA" -> "Ed25519";
      default -> algorithm;
    };
  }

  static String subject(X509Certificate cert) {
    return cert.getSubjectX500Principal().getName(X500Principal.RFC2253);
  }

  /** The CN of a certificate's subject, or empty. */
  static Optional<String> commonName(X509Certificate cert) {
    for (String part : cert.getSubjectX500Principal().getName(X500Principal.RFC2253).split(",")) {
      String p = part.trim();
      if (p.regionMatches(true, 0, "CN=", 0, 3) && p.length() > 3) {
        return Optional.of(p.substring(3));
      }
    }
    return Optional.empty();
  }

  /**
   * The CAs members load at start (peer CA and client CA, as certificates: re-encoding a PEM file
   * changes nothing): a change to them must restart every member, one at a time.
   */
  static String fingerprint(
      Optional<List<X509Certificate>> peerCa, Optional<List<X509Certificate>> clientCa) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (Optional<List<X509Certificate>> bundle : List.of(peerCa, clientCa)) {
        for (X509Certificate c : bundle.orElse(List.of())) {
          d.update(c.getEncoded());
        }
        d.update((byte) 0);
      }
      return HexFormat.of().formatHex(d.digest(), 0, 8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The chain as sent, less any CA the bundle already holds (a path ends below its anchor). */
  static List<X509Certificate> withoutAnchors(
      List<X509Certificate> chain, List<X509Certificate> cas) {
    List<X509Certificate> path = new ArrayList<>();
    path.add(chain.get(0));
    for (int i = 1; i < chain.size(); i++) {
      if (!cas.contains(chain.get(i))) {
        path.add(chain.get(i));
      }
    }
    return path;
  }
}
