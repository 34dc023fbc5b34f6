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

  static ProbeFailure of(EtcdException e) {
    return new ProbeFailure(e.failure(), e.detail());
  }

  @Override
  public String toString() {
    return failure + ": " + detail;
  }
}
