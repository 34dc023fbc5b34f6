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

  /**
   * Server TLS turned off (the spec cannot ask for authentication without it) while members still
   * serve clients over https with authentication on: off first, while the operator still reaches
   * every member as its certificate's user. A member restarted onto http before that would take
   * every client, the operator too, for nobody, and a leader on http could not be asked to turn it
   * off. While nobody has said whether it is on, wait: nothing restarts a member until it is known.
   * Before any rule that restarts or adds a member (the ordinary {@link DisableAuth} comes after
   * the rolls of a move of peer TLS). Without a client certificate the operator never turned
   * authentication on and cannot tell, so it does not wait.
   */
  static final class DisableAuthBeforeServerTlsOff implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (s.desired().security().serverTls()
          || s.view().tls().clientUser().isEmpty()
          || s.view().authEnabled().equals(Optional.of(false))
          || s.view().pods().values().stream()
              .noneMatch(p -> !p.terminating() && p.clientScheme().equals("https"))) {
        return Optional.empty();
      }
      Step step =
          s.view().authEnabled().isPresent()
              ? new Step.DisableAuth()
              : new Step.Wait(
                  "a member to say whether authentication is on, before the first member serves"
                      + " clients over http");
      return Optional.of(Decisions.withQuorum(s, Conditions.DISABLING_AUTH, step));
    }
  }
}
