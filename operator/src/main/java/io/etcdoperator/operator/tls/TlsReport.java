package io.etcdoperator.operator.tls;

import io.etcdoperator.api.v1alpha1.CertificateStatus;
import java.util.List;
import java.util.Optional;

/**
 * What {@link CertificateCheck} found in a cluster's TLS Secrets.
 *
 * @param invalid what stops the operator from starting or changing anything with these Secrets
 * @param warnings what it reports and lives with (expiry soon, the Service's name missing)
 * @param certificates each certificate read, with its expiry, for status
 * @param client the operator's material for calling the members; empty while anything is invalid
 * @param trustedCa fingerprint of the CAs members load at start (peer and client CA)
 * @param clientUser the CN of the operator's client certificate: the etcd user it acts as
 */
public record TlsReport(
    List<Problem> invalid,
    List<Problem> warnings,
    List<CertificateStatus> certificates,
    Optional<ClientTls> client,
    String trustedCa,
    Optional<String> clientUser) {
  /** No TLS at all. */
  public static final TlsReport NONE =
      new TlsReport(List.of(), List.of(), List.of(), Optional.empty(), "", Optional.empty());

  public TlsReport {
    invalid = List.copyOf(invalid);
    warnings = List.copyOf(warnings);
    certificates = List.copyOf(certificates);
  }

  public boolean usable() {
    return invalid.isEmpty();
  }

  /**
   * One finding, naming the Secret and, when it is about one, the key.
   *
   * @param key null when the Secret itself is the problem
   */
  public record Problem(String secret, String key, String message) {
    @Override
    public String toString() {
      return "Secret " + secret + (key == null ? "" : " key " + key) + ": " + message;
    }
  }
}
