package io.etcdoperator.operator.etcd;

import java.util.Objects;
import java.util.Optional;

/**
 * One member's answers to a probe.
 *
 * @param status its status, or why it gave none
 * @param memberList the member list as this member sees it, when it served one
 * @param memberListFailure why it served none (a learner in etcd 3.4 serves no member list)
 */
public record EtcdProbe(
    EtcdStatus status,
    Optional<EtcdMemberList> memberList,
    Optional<ProbeFailure> memberListFailure) {
  public EtcdProbe {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(memberList, "memberList");
    Objects.requireNonNull(memberListFailure, "memberListFailure");
  }

  public String endpoint() {
    return status.endpoint();
  }

  public boolean reachable() {
    return status.reachable();
  }
}
