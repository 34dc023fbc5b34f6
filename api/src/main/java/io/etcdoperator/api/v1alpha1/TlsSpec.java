package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * The Secrets of a cluster's TLS, each in the cluster's namespace, in the layout cert-manager
 * writes ({@code tls.crt}, {@code tls.key}, {@code ca.crt}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "peerTrustedCASecret",
  "peerSecret",
  "serverTrustedCASecret",
  "serverSecret",
  "clientTrustedCASecret",
  "clientSecret"
})
@ValidationRule(
    value =
        "(has(self.peerSecret) && self.peerSecret != '') =="
            + " (has(self.peerTrustedCASecret) && self.peerTrustedCASecret != '')",
    message =
        "spec.security.tls: set both peerSecret and peerTrustedCASecret, or neither (members"
            + " verify each other's certificate)")
@ValidationRule(
    value =
        "(has(self.clientSecret) && self.clientSecret != '') =="
            + " (has(self.clientTrustedCASecret) && self.clientTrustedCASecret != '')",
    message =
        "spec.security.tls: set both clientSecret and clientTrustedCASecret, or neither (members"
            + " verify the operator's client certificate)")
@ValidationRule(
    value =
        "!has(self.clientTrustedCASecret) || self.clientTrustedCASecret == '' ||"
            + " (has(self.serverSecret) && self.serverSecret != '')",
    message =
        "spec.security.tls.clientTrustedCASecret: client certificates need TLS on the client"
            + " port: set serverSecret too")
public class TlsSpec {
  @JsonPropertyDescription(
      "Secret whose ca.crt members trust for peer certificates. With peerSecret: peer TLS with"
          + " peer client-certificate authentication.")
  private String peerTrustedCASecret;

  @JsonPropertyDescription(
      "Secret with the members' peer certificate (tls.crt, tls.key): it must name every member"
          + " (<cluster>-<i>.<cluster>-headless.<namespace>.svc) and allow server and client"
          + " authentication.")
  private String peerSecret;

  @JsonPropertyDescription(
      "Secret whose ca.crt the operator trusts for the members' server certificate (default:"
          + " serverSecret's own ca.crt).")
  private String serverTrustedCASecret;

  @JsonPropertyDescription(
      "Secret with the members' server certificate (tls.crt, tls.key): clients use https. It"
          + " must name every member; the client Service's names are recommended.")
  private String serverSecret;

  @JsonPropertyDescription(
      "Secret whose ca.crt members trust for client certificates: client-certificate"
          + " authentication is on.")
  private String clientTrustedCASecret;

  @JsonPropertyDescription(
      "Secret with the client certificate (tls.crt, tls.key) the operator uses for every call"
          + " to etcd; with enableAuth its CN is the user it acts as.")
  private String clientSecret;

  public String getPeerTrustedCASecret() {
    return peerTrustedCASecret;
  }

  public void setPeerTrustedCASecret(String peerTrustedCASecret) {
    this.peerTrustedCASecret = peerTrustedCASecret;
  }

  public String getPeerSecret() {
    return peerSecret;
  }

  public void setPeerSecret(String peerSecret) {
    this.peerSecret = peerSecret;
  }

  public String getServerTrustedCASecret() {
    return serverTrustedCASecret;
  }

  public void setServerTrustedCASecret(String serverTrustedCASecret) {
    this.serverTrustedCASecret = serverTrustedCASecret;
  }

  public String getServerSecret() {
    return serverSecret;
  }

  public void setServerSecret(String serverSecret) {
    this.serverSecret = serverSecret;
  }

  public String getClientTrustedCASecret() {
    return clientTrustedCASecret;
  }

  public void setClientTrustedCASecret(String clientTrustedCASecret) {
    this.clientTrustedCASecret = clientTrustedCASecret;
  }

  public String getClientSecret() {
    return clientSecret;
  }

  public void setClientSecret(String clientSecret) {
    this.clientSecret = clientSecret;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TlsSpec t
        && Objects.equals(peerTrustedCASecret, t.peerTrustedCASecret)
        && Objects.equals(peerSecret, t.peerSecret)
        && Objects.equals(serverTrustedCASecret, t.serverTrustedCASecret)
        && Objects.equals(serverSecret, t.serverSecret)
        && Objects.equals(clientTrustedCASecret, t.clientTrustedCASecret)
        && Objects.equals(clientSecret, t.clientSecret);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        peerTrustedCASecret,
        peerSecret,
        serverTrustedCASecret,
        serverSecret,
        clientTrustedCASecret,
        clientSecret);
  }
}
