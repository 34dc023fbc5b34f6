package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/** TLS and authentication, as aenix v1alpha1 names them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"tls", "enableAuth", "peer", "clientServer"})
@ValidationRule(
    value = "!has(self.peer) && !has(self.clientServer)",
    message =
        "spec.security.peer and spec.security.clientServer are an older shape of aenix's API, not"
            + " supported: name the Secrets in spec.security.tls (peerSecret,"
            + " peerTrustedCASecret, serverSecret, serverTrustedCASecret, clientSecret,"
            + " clientTrustedCASecret)")
@ValidationRule(
    value =
        "!has(self.enableAuth) || !self.enableAuth || (has(self.tls) &&"
            + " has(self.tls.clientSecret) && self.tls.clientSecret != '' &&"
            + " has(self.tls.serverSecret) && self.tls.serverSecret != '')",
    message =
        "spec.security.enableAuth: the operator authenticates with its client certificate:"
            + " set spec.security.tls.serverSecret and spec.security.tls.clientSecret")
public class SecuritySpec {
  @JsonPropertyDescription(
      "Secrets (cert-manager's layout: tls.crt, tls.key, ca.crt) for peer, server and client"
          + " TLS.")
  private TlsSpec tls;

  @JsonPropertyDescription(
      "Turn on etcd's authentication: the operator creates the root user and role, then enables"
          + " it, and authenticates with its client certificate (the certificate's CN is the"
          + " user). Needs serverSecret and clientSecret.")
  private Boolean enableAuth;

  @JsonPropertyDescription(
      "An older shape of aenix's API, kept only to be refused with a message: use"
          + " spec.security.tls.")
  private JsonNode peer;

  @JsonPropertyDescription(
      "An older shape of aenix's API, kept only to be refused with a message: use"
          + " spec.security.tls.")
  private JsonNode clientServer;

  public JsonNode getPeer() {
    return peer;
  }

  public void setPeer(JsonNode peer) {
    this.peer = peer;
  }

  public JsonNode getClientServer() {
    return clientServer;
  }

  public void setClientServer(JsonNode clientServer) {
    this.clientServer = clientServer;
  }

  public TlsSpec getTls() {
    return tls;
  }

  public void setTls(TlsSpec tls) {
    this.tls = tls;
  }

  public Boolean getEnableAuth() {
    return enableAuth;
  }

  public void setEnableAuth(Boolean enableAuth) {
    this.enableAuth = enableAuth;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SecuritySpec s
        && Objects.equals(tls, s.tls)
        && Objects.equals(enableAuth, s.enableAuth)
        && Objects.equals(peer, s.peer)
        && Objects.equals(clientServer, s.clientServer);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tls, enableAuth, peer, clientServer);
  }
}
