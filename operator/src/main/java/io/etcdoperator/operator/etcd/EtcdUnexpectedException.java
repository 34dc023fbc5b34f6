package io.etcdoperator.operator.etcd;

/**
 * A failure the operator has no rule for (an internal error in etcd, an unknown gRPC status, a
 * malformed answer). It propagates so that the reconcile fails and is retried with back-off.
 */
public final class EtcdUnexpectedException extends RuntimeException {
  public EtcdUnexpectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
