package io.etcdoperator.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What cert-manager would write for the {@code cert-manager.io/v1} Issuers and Certificates of a
 * manifest: there is no cert-manager here, so a test issues each Certificate itself (a CA
 * Certificate self-signed, a leaf by the CA its Issuer names), with its secretName, commonName,
 * dnsNames, ipAddresses and usages, and gets each Secret's data as cert-manager lays it out. A mock
 * of cert-manager only, never of what is under test: the operator reads the Secrets as it would on
 * a cluster. Certificates are kept by name, so a test can issue a leaf again (a renewal).
 */
public final class CertManagerEmulation {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Map<String, JsonNode> issuers = new HashMap<>();
  private final Map<String, JsonNode> certificates = new LinkedHashMap<>();

  /** CA Secret name to the CA its Certificate made. */
  private final Map<String, TestPki.Ca> cas = new HashMap<>();

  private CertManagerEmulation() {}

  /** Reads the Issuers and Certificates of {@code manifest} (other documents are ignored). */
  public static CertManagerEmulation of(Path manifest) throws IOException {
    CertManagerEmulation e = new CertManagerEmulation();
    try (MappingIterator<JsonNode> it =
        YAML.readerFor(JsonNode.class).readValues(manifest.toFile())) {
      while (it.hasNextValue()) {
        JsonNode doc = it.nextValue();
        if (doc == null || !doc.path("apiVersion").asText().startsWith("cert-manager.io/")) {
          continue;
        }
        String name = doc.at("/metadata/name").asText();
        if (doc.path("kind").asText().equals("Issuer")) {
          e.issuers.put(name, doc);
        } else if (doc.path("kind").asText().equals("Certificate")) {
          e.certificates.put(name, doc);
        }
      }
    }
    return e;
  }

  /** Issues every Certificate, CAs first; Secret name to its data. */
  public Map<String, Map<String, byte[]>> issueAll() {
    Map<String, Map<String, byte[]>> secrets = new LinkedHashMap<>();
    List<JsonNode> ordered = new ArrayList<>();
    certificates.values().stream()
        .filter(c -> c.at("/spec/isCA").asBoolean())
        .forEach(ordered::add);
    certificates.values().stream()
        .filter(c -> !c.at("/spec/isCA").asBoolean())
        .forEach(ordered::add);
    for (JsonNode c : ordered) {
      secrets.put(c.at("/spec/secretName").asText(), issue(c));
    }
    return secrets;
  }

  /** The CA that the CA Certificate writing Secret {@code secretName} made (after issueAll). */
  public TestPki.Ca ca(String secretName) {
    return cas.get(secretName);
  }

  /**
   * Issues the CA Certificate that writes Secret {@code secretName} again: a new CA (new key, new
   * subject key), as when its Certificate is deleted and created again or its Secret removed. The
   * leaves its Issuer issues from now on ({@link #renew}) are signed by the new CA. Returns the new
   * CA's Secret data; the old CA stays readable from a Secret read before.
   */
  public Map<String, byte[]> replaceCa(String secretName) {
    JsonNode ca =
        certificates.values().stream()
            .filter(c -> c.at("/spec/isCA").asBoolean())
            .filter(c -> c.at("/spec/secretName").asText().equals(secretName))
            .findFirst()
            .orElseThrow(
                () -> new IllegalArgumentException("no CA Certificate writes " + secretName));
    return issue(ca);
  }

  /** Issues the Certificate {@code name} again (a renewal: a new key, the same CA). */
  public Map<String, byte[]> renew(String name) {
    return issue(certificates.get(name));
  }

  private Map<String, byte[]> issue(JsonNode c) {
    JsonNode spec = c.path("spec");
    String secret = spec.path("secretName").asText();
    String commonName = spec.path("commonName").asText("");
    if (spec.path("isCA").asBoolean()) {
      TestPki.Ca ca = TestPki.ca(commonName.isEmpty() ? secret : commonName);
      cas.put(secret, ca);
      return ca.secret();
    }
    JsonNode issuer = issuers.get(spec.at("/issuerRef/name").asText());
    if (issuer == null || !issuer.at("/spec/ca/secretName").isTextual()) {
      throw new IllegalArgumentException(
          "Certificate " + c.at("/metadata/name").asText() + ": its Issuer is no CA Issuer");
    }
    TestPki.Ca ca = cas.get(issuer.at("/spec/ca/secretName").asText());
    TestPki.LeafBuilder leaf = ca.leaf(commonName);
    spec.path("dnsNames").forEach(n -> leaf.dns(n.asText()));
    spec.path("ipAddresses").forEach(n -> leaf.ip(n.asText()));
    for (JsonNode usage : spec.path("usages")) {
      switch (usage.asText()) {
        case "server auth" -> leaf.serverAuth();
        case "client auth" -> leaf.clientAuth();
        default -> {}
      }
    }
    return leaf.issue().secret();
  }
}
