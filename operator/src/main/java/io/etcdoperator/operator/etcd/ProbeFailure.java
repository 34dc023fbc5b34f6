package io.etcdoperator.operator.etcd;

import java.util.Objects;

/**
 * Why a member gave no answer to a probe.
 *
 * @param failure the kind of failure
 * @param detail what gRPC or etcd said, for humans (conditions, events, logs)
 */
public record ProbeFailure(EtcdFailure failure, String detail) {
  public ProbeFailure {
    Objects.requireNonNull(failure, "failure");
    detail = detail == null ? "" : detail;
  }

  /**
   * The member's host answered and refused the connection (nothing listens: the member is down), as
   * opposed to a silence (a timeout, a name that does not resolve) that says nothing of the member,
   * only that the operator cannot reach it.
   */
  public boolean refused() {
    return failure == EtcdFailure.UNREACHABLE && detail.contains("Connection refused");
  }

  static ProbeFailure of(EtcdException e) {
    return new ProbeFailure(e.failure(), e.detail());
  }

  @Override
  public String toString() {
    return failure + ": " + detail;
  }
}
