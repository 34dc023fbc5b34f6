package io.etcdoperator.operator.model;

import java.util.List;

/**
 * The peer Secrets a running cluster's members present and trust, as its StatefulSet (else a pod)
 * mounts them: what the members keep presenting while a move off peer TLS still serves https (the
 * spec names no peer Secret by then).
 *
 * @param certificate the peer certificate's Secret
 * @param trustedCa the peer CA's Secret
 * @param missing those of the two that do not exist now (a member restarted on a missing Secret
 *     would not start, so the move waits for them)
 */
public record PeerSecrets(String certificate, String trustedCa, List<String> missing) {
  public PeerSecrets {
    missing = List.copyOf(missing);
  }

  /** Both Secrets exist. */
  public boolean usable() {
    return missing.isEmpty();
  }
}
