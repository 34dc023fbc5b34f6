package io.etcdoperator.operator.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM as cert-manager and openssl write it: certificates ({@code CERTIFICATE} blocks, one or a
 * bundle) and a private key in PKCS#1 ({@code RSA PRIVATE KEY}), SEC1 ({@code EC PRIVATE KEY}) or
 * PKCS#8 ({@code PRIVATE KEY}). Encrypted keys are refused: etcd cannot read them either.
 *
 * <p>Keys are read by the JDK's own key factories: a PKCS#8 block as it is (RSA, RSASSA-PSS, EC,
 * Ed25519, Ed448, by its algorithm's object identifier), a PKCS#1 or SEC1 block first wrapped in
 * the PKCS#8 structure that says what it is ({@link Der}), with SEC1's curve taken from the key's
 * own parameters.
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

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);

  /** DER of the object identifiers of the key algorithms the JDK reads, by its name for them. */
  private static final Map<String, String> ALGORITHMS =
      Map.of(
          "2a864886f70d010101", "RSA",
          "2a864886f70d01010a", "RSASSA-PSS",
          "2a8648ce3d0201", "EC",
          "2b6570", "Ed25519",
          "2b6571", "Ed448");

  private static final byte[] RSA_ALGORITHM =
      Der.wrap(
          Der.SEQUENCE,
          Der.wrap(Der.OID, HexFormat.of().parseHex("2a864886f70d010101")),
          new byte[] {Der.NULL, 0});
  private static final byte[] EC_PUBLIC_KEY =
      Der.wrap(Der.OID, HexFormat.of().parseHex("2a8648ce3d0201"));
  private static final byte[] VERSION_0 = {Der.INTEGER, 1, 0};

  /** The private key of a PEM block: the first key block of {@code pem}. */
  public static PrivateKey privateKey(byte[] pem) throws TlsException {
    if (pem == null || pem.length == 0) {
      throw new TlsException("is empty");
    }
    Matcher m = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    try {
      while (m.find()) {
        String type = m.group(1);
        String body = m.group(2);
        boolean encrypted = body.contains("Proc-Type: 4,ENCRYPTED");
        switch (type) {
          case "ENCRYPTED PRIVATE KEY" ->
              throw new TlsException("is an encrypted private key, which etcd cannot read");
          case "PRIVATE KEY" -> {
            return pkcs8(base64(body));
          }
          case "RSA PRIVATE KEY" -> {
            refuseEncrypted(encrypted);
            return pkcs8(Der.wrap(Der.SEQUENCE, VERSION_0, RSA_ALGORITHM, octets(base64(body))));
          }
          case "EC PRIVATE KEY" -> {
            refuseEncrypted(encrypted);
            byte[] sec1 = base64(body);
            return pkcs8(
                Der.wrap(
                    Der.SEQUENCE,
                    VERSION_0,
                    Der.wrap(Der.SEQUENCE, EC_PUBLIC_KEY, curve(sec1)),
                    octets(sec1)));
          }
          default -> {
            // certificates, EC PARAMETERS: not the key
          }
        }
      }
    } catch (RuntimeException | GeneralSecurityException e) {
      throw new TlsException("is no valid PEM private key: " + e.getMessage());
    }
    throw new TlsException("holds no PEM private key");
  }

  private static void refuseEncrypted(boolean encrypted) throws TlsException {
    if (encrypted) {
      throw new TlsException("is an encrypted private key, which etcd cannot read");
    }
  }

  /** A block's base64, without its header lines ({@code Name: value}). */
  private static byte[] base64(String body) {
    StringBuilder b = new StringBuilder();
    for (String line : body.split("\\r?\\n")) {
      if (!line.contains(":")) {
        b.append(line.strip());
      }
    }
    return Base64.getDecoder().decode(b.toString());
  }

  private static byte[] octets(byte[] content) {
    return Der.wrap(Der.OCTET_STRING, content);
  }

  /** The curve's OBJECT IDENTIFIER element in SEC1's {@code [0]} parameters. */
  private static byte[] curve(byte[] sec1) {
    for (Der.Element e : Der.read(sec1).children()) {
      if (e.tag() == Der.CONTEXT_0) {
        for (Der.Element p : e.children()) {
          if (p.tag() == Der.OID) {
            return p.encoded();
          }
        }
      }
    }
    throw new IllegalArgumentException("the EC key names no curve (no [0] parameters)");
  }

  private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    List<Der.Element> parts = Der.read(der).children();
    if (parts.size() < 3 || parts.get(1).tag() != Der.SEQUENCE) {
      throw new IllegalArgumentException("not a PKCS#8 private key");
    }
    Der.Element oid = parts.get(1).children().get(0);
    String hex = HexFormat.of().formatHex(Arrays.copyOfRange(der, oid.content(), oid.end()));
    String algorithm = ALGORITHMS.get(hex);
    if (oid.tag() != Der.OID || algorithm == null) {
      throw new IllegalArgumentException(
          "its key algorithm (object identifier "
              + hex
              + ") is none of RSA, RSASSA-PSS, EC, Ed25519 and Ed448");
    }
    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
  }
}
