package io.etcdoperator.operator.etcd;

import java.util.Objects;

/**
 * An expected failure of a call to etcd: the caller decides what it means (report, wait, try
 * another member next reconcile). Unexpected failures are {@link EtcdUnexpectedException}.
 */
public final class EtcdException extends RuntimeException {
  private final EtcdFailure failure;
  private final String endpoint;
  private final String detail;

  public EtcdException(EtcdFailure failure, String endpoint, String detail, Throwable cause) {
    super(failure + " from " + endpoint + ": " + detail, cause);
    this.failure = Objects.requireNonNull(failure, "failure");
    this.endpoint = endpoint;
    this.detail = detail == null ? "" : detail;
  }

  public EtcdFailure failure() {
    return failure;
  }

  /** The client URL the call was sent to. */
  public String endpoint() {
    return endpoint;
  }

  /** What gRPC or etcd said. */
  public String detail() {
    return detail;
  }
}
