package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/** One certificate of the cluster's TLS, as the operator read it from its Secret. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"use", "secret", "key", "subject", "notAfter"})
public class CertificateStatus {
  @JsonPropertyDescription(
      "What it is for: peer, server, client (the operator's), or peerCA, serverCA, clientCA.")
  private String use;

  @JsonPropertyDescription("The Secret it is in.")
  private String secret;

  @JsonPropertyDescription("The Secret's key: tls.crt or ca.crt.")
  private String key;

  @JsonPropertyDescription("Its subject (of the first certificate of a CA bundle).")
  private String subject;

  @JsonPropertyDescription(
      "When it expires (RFC 3339); for a CA bundle, the first of its certificates to expire.")
  private String notAfter;

  public String getUse() {
    return use;
  }

  public void setUse(String use) {
    this.use = use;
  }

  public String getSecret() {
    return secret;
  }

  public void setSecret(String secret) {
    this.secret = secret;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getSubject() {
    return subject;
  }

  public void setSubject(String subject) {
    this.subject = subject;
  }

  public String getNotAfter() {
    return notAfter;
  }

  public void setNotAfter(String notAfter) {
    this.notAfter = notAfter;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CertificateStatus c
        && Objects.equals(use, c.use)
        && Objects.equals(secret, c.secret)
        && Objects.equals(key, c.key)
        && Objects.equals(subject, c.subject)
        && Objects.equals(notAfter, c.notAfter);
  }

  @Override
  public int hashCode() {
    return Objects.hash(use, secret, key, subject, notAfter);
  }
}
