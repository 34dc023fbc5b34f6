package io.etcdoperator.operator.plan;

import java.util.Optional;

/**
 * etcd's authentication follows {@code spec.security.enableAuth}, with quorum (the change goes
 * through raft) and only once a member has said whether it is on (etcd 3.5's AuthStatus; the
 * operator asks with its client certificate). Authentication is certificate-based: the CN of the
 * operator's certificate is the user it acts as, made root; no password exists anywhere.
 */
final class AuthRules {
  private AuthRules() {}

  /**
   * Asked for and off: root role and user, the operator's user as root, then on. Not while a pod
   * still serves clients over plain http (client TLS being turned on, a roll the later rules take
   * first): the operator, and every client, would reach that member with no certificate, so as
   * nobody.
   */
  static final class EnableAuth implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      String scheme = s.desired().security().clientScheme();
      if (!s.desired().security().auth()
          || !s.view().authEnabled().equals(Optional.of(false))
          || s.view().pods().values().stream()
              .anyMatch(p -> !p.terminating() && !p.clientScheme().equals(scheme))) {
        return Optional.empty();
      }
      String user = s.view().tls().clientUser().orElse("root");
      return Optional.of(
          Decisions.withQuorum(s, Conditions.ENABLING_AUTH, new Step.EnableAuth(user)));
    }
  }

  /** Not asked for and on: off (users and roles stay). */
  static final class DisableAuth implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (s.desired().security().auth() || !s.view().authEnabled().equals(Optional.of(true))) {
        return Optional.empty();
      }
      return Optional.of(
          Decisions.withQuorum(s, Conditions.DISABLING_AUTH, new Step.DisableAuth()));
    }
  }
}
