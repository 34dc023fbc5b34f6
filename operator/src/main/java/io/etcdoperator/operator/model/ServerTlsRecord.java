package io.etcdoperator.operator.model;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The Secrets of a cluster's server TLS, as the spec named them: the members' server certificate,
 * what the operator trusts for it, the CA members check client certificates with, and the
 * operator's own client certificate. Recorded on the cluster-state ConfigMap ({@link
 * Names#SERVER_TLS_ANNOTATION}) while the spec names them, and kept there while any member still
 * serves clients over https after the spec stopped naming them: only the first and third are
 * mounted by the members, so without the record the operator would have neither the trust nor the
 * client certificate to reach the members a roll off server TLS has not restarted yet.
 *
 * <p>The value is {@code serverSecret=a,serverTrustedCASecret=b,clientTrustedCASecret=c,
 * clientSecret=d}, with the fields the spec left out omitted (Secret names are DNS subdomains, so
 * neither {@code ,} nor {@code =} occurs in one). A value without {@code serverSecret} is no
 * record.
 *
 * @param serverSecret {@code spec.security.tls.serverSecret}
 * @param serverCaSecret {@code serverTrustedCASecret}
 * @param clientCaSecret {@code clientTrustedCASecret}
 * @param clientSecret {@code clientSecret}
 */
public record ServerTlsRecord(
    String serverSecret,
    Optional<String> serverCaSecret,
    Optional<String> clientCaSecret,
    Optional<String> clientSecret) {
  private static final String SERVER = "serverSecret";
  private static final String SERVER_CA = "serverTrustedCASecret";
  private static final String CLIENT_CA = "clientTrustedCASecret";
  private static final String CLIENT = "clientSecret";

  /** What {@code security} names for server TLS; empty without it. */
  public static Optional<ServerTlsRecord> of(Security security) {
    return security
        .serverSecret()
        .map(
            server ->
                new ServerTlsRecord(
                    server,
                    security.serverCaSecret(),
                    security.clientCaSecret(),
                    security.clientSecret()));
  }

  /** The annotation's value. */
  public String annotation() {
    StringJoiner out = new StringJoiner(",");
    out.add(SERVER + "=" + serverSecret);
    serverCaSecret.ifPresent(n -> out.add(SERVER_CA + "=" + n));
    clientCaSecret.ifPresent(n -> out.add(CLIENT_CA + "=" + n));
    clientSecret.ifPresent(n -> out.add(CLIENT + "=" + n));
    return out.toString();
  }

  /** The record an annotation's value holds; empty when it names no server Secret. */
  public static Optional<ServerTlsRecord> parse(String value) {
    if (value == null) {
      return Optional.empty();
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String entry : value.split(",")) {
      int eq = entry.indexOf('=');
      if (eq > 0 && eq < entry.length() - 1) {
        fields.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
      }
    }
    return Optional.ofNullable(fields.get(SERVER))
        .map(
            server ->
                new ServerTlsRecord(
                    server,
                    Optional.ofNullable(fields.get(SERVER_CA)),
                    Optional.ofNullable(fields.get(CLIENT_CA)),
                    Optional.ofNullable(fields.get(CLIENT))));
  }

  /**
   * The operator's side of server TLS as recorded, to check the Secrets and reach the members with
   * (no peer Secret, no authentication: only how to call a member that serves https).
   */
  public Security security() {
    return new Security(
        Optional.empty(),
        Optional.empty(),
        Optional.of(serverSecret),
        serverCaSecret,
        clientCaSecret,
        clientSecret,
        false);
  }
}
