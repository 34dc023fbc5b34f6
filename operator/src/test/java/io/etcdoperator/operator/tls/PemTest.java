package io.etcdoperator.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.stream.Stream;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.OutputEncryptor;
import org.bouncycastle.util.io.pem.PemObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Private keys in every PEM form cert-manager and openssl write, written by BouncyCastle (an
 * implementation independent of ours); each key read back must sign what the pair's public key
 * verifies. EC keys are BouncyCastle's: as openssl and Go's x509 (cert-manager) do, it writes the
 * curve inside a SEC1 key, where the JDK's own encoding leaves it out.
 */
class PemTest {
  private static final BouncyCastleProvider BC = new BouncyCastleProvider();

  static Stream<Arguments> keys() throws Exception {
    return Stream.of(
        Arguments.of("RSA 2048", rsa(2048), "SHA256withRSA"),
        Arguments.of("RSA 4096", rsa(4096), "SHA256withRSA"),
        Arguments.of("EC P-256", ec("secp256r1"), "SHA256withECDSA"),
        Arguments.of("EC P-384", ec("secp384r1"), "SHA384withECDSA"),
        Arguments.of("EC P-521", ec("secp521r1"), "SHA512withECDSA"));
  }

  @ParameterizedTest(name = "{0} as PKCS#1 or SEC1")
  @MethodSource("keys")
  void traditionalForm(String name, KeyPair pair, String algorithm) throws Exception {
    String pem = pem(pair.getPrivate());
    assertThat(pem).containsPattern("-----BEGIN (RSA|EC) PRIVATE KEY-----");
    assertSigns(Pem.privateKey(pem.getBytes(StandardCharsets.US_ASCII)), pair, algorithm);
  }

  @ParameterizedTest(name = "{0} as PKCS#8")
  @MethodSource("keys")
  void pkcs8Form(String name, KeyPair pair, String algorithm) throws Exception {
    String pem = pem(new JcaPKCS8Generator(pair.getPrivate(), null).generate());
    assertThat(pem).contains("-----BEGIN PRIVATE KEY-----");
    assertSigns(Pem.privateKey(pem.getBytes(StandardCharsets.US_ASCII)), pair, algorithm);
  }

  @Test
  void ed25519AsPkcs8() throws Exception {
    KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    String pem =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(pair.getPrivate().getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    assertSigns(Pem.privateKey(pem.getBytes(StandardCharsets.US_ASCII)), pair, "Ed25519");
  }

  @Test
  void theKeyIsFoundAmongOtherBlocks() throws Exception {
    KeyPair pair = ec("secp256r1");
    // openssl ecparam -genkey writes the curve's parameters before the key
    String pem =
        "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
            + pem(pair.getPrivate());
    assertSigns(Pem.privateKey(pem.getBytes(StandardCharsets.US_ASCII)), pair, "SHA256withECDSA");
  }

  @Test
  void encryptedKeysAreRefusedInEitherForm() throws Exception {
    KeyPair pair = rsa(2048);
    StringWriter legacy = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(legacy)) {
      w.writeObject(
          pair.getPrivate(),
          new JcePEMEncryptorBuilder("AES-256-CBC").setProvider(BC).build("pw".toCharArray()));
    }
    OutputEncryptor enc =
        new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC)
            .setProvider(BC)
            .setPassword("pw".toCharArray())
            .build();
    String pkcs8 = pem(new JcaPKCS8Generator(pair.getPrivate(), enc).generate());

    for (String pem : new String[] {legacy.toString(), pkcs8}) {
      assertThatThrownBy(() -> Pem.privateKey(pem.getBytes(StandardCharsets.US_ASCII)))
          .isInstanceOf(TlsException.class)
          .hasMessage("is an encrypted private key, which etcd cannot read");
    }
  }

  @Test
  void whatIsNoKeyIsSaidSo() throws Exception {
    assertThatThrownBy(() -> Pem.privateKey(new byte[0])).hasMessage("is empty");
    assertThatThrownBy(() -> Pem.privateKey("hello".getBytes(StandardCharsets.US_ASCII)))
        .hasMessage("holds no PEM private key");
    String garbage = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
    assertThatThrownBy(() -> Pem.privateKey(garbage.getBytes(StandardCharsets.US_ASCII)))
        .isInstanceOf(TlsException.class)
        .hasMessageStartingWith("is no valid PEM private key: ");
    KeyPair pair = rsa(2048);
    String rsa = pem(pair.getPrivate());
    String cut = rsa.substring(0, rsa.length() / 2) + "\n-----END RSA PRIVATE KEY-----\n";
    assertThatThrownBy(() -> Pem.privateKey(cut.getBytes(StandardCharsets.US_ASCII)))
        .isInstanceOf(TlsException.class)
        .hasMessageStartingWith("is no valid PEM private key: ");
    // DSA: a key the JDK reads, but not one etcd's TLS takes
    KeyPair dsa = KeyPairGenerator.getInstance("DSA").generateKeyPair();
    String dsaPem = pem(new JcaPKCS8Generator(dsa.getPrivate(), null).generate());
    assertThatThrownBy(() -> Pem.privateKey(dsaPem.getBytes(StandardCharsets.US_ASCII)))
        .hasMessageContaining("is none of RSA, RSASSA-PSS, EC, Ed25519 and Ed448");
  }

  private static void assertSigns(PrivateKey key, KeyPair pair, String algorithm) throws Exception {
    byte[] data = "what etcd's TLS handshake signs".getBytes(StandardCharsets.UTF_8);
    Signature s = Signature.getInstance(algorithm);
    s.initSign(key);
    s.update(data);
    byte[] signature = s.sign();
    Signature v = Signature.getInstance(algorithm);
    v.initVerify(pair.getPublic());
    v.update(data);
    assertThat(v.verify(signature)).isTrue();
  }

  private static KeyPair rsa(int bits) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(bits);
    return g.generateKeyPair();
  }

  private static KeyPair ec(String curve) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC", BC);
    g.initialize(new ECGenParameterSpec(curve));
    return g.generateKeyPair();
  }

  private static String pem(Object o) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      if (o instanceof PemObject p) {
        w.writeObject(p);
      } else {
        w.writeObject(o);
      }
    }
    return out.toString();
  }
}
