package io.etcdoperator.operator.etcd;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Sorts a failed gRPC call into the failures the operator expects ({@link EtcdException}) and the
 * rest ({@link EtcdUnexpectedException}).
 *
 * <p>etcd reports its own refusals with a description starting with {@code "etcdserver: "} (see
 * etcd's {@code api/v3rpc/rpctypes/error.go}); gRPC reports transport failures as UNAVAILABLE
 * without that prefix. The same code (UNAVAILABLE, FAILED_PRECONDITION) carries both kinds, so the
 * text decides.
 */
final class GrpcErrors {
  private static final String ETCD_PREFIX = "etcdserver: ";
  private static final String LEARNER_NOT_READY = "in sync with leader";

  private GrpcErrors() {}

  /** Turns the failure of a call to {@code endpoint} into the exception the caller sees. */
  static RuntimeException classify(Throwable failure, String endpoint) {
    Throwable t = unwrap(failure);
    if (t instanceof EtcdException || t instanceof EtcdUnexpectedException) {
      return (RuntimeException) t;
    }
    if (!(t instanceof StatusRuntimeException || t instanceof StatusException)) {
      return new EtcdUnexpectedException("call to " + endpoint + " failed: " + t, t);
    }
    Status status = Status.fromThrowable(t);
    String description = status.getDescription() == null ? "" : status.getDescription();
    EtcdFailure kind = kindOf(status.getCode(), description);
    if (kind == null) {
      return new EtcdUnexpectedException(
          "call to " + endpoint + " failed: " + status.getCode() + " " + detail(status), t);
    }
    return new EtcdException(kind, endpoint, detail(status), t);
  }

  /** Whether etcd refused a promotion because the learner has not caught up yet. */
  static boolean isLearnerNotReady(Throwable failure) {
    Status status = Status.fromThrowable(unwrap(failure));
    return status.getCode() == Status.Code.FAILED_PRECONDITION
        && status.getDescription() != null
        && status.getDescription().contains(LEARNER_NOT_READY);
  }

  static EtcdFailure kindOf(Status.Code code, String description) {
    if (code == Status.Code.DEADLINE_EXCEEDED) {
      return EtcdFailure.DEADLINE_EXCEEDED;
    }
    // etcd's server gives up at the deadline the call carried and says so in its own words,
    // with code UNKNOWN: the same failure, seen from the other end.
    if (code == Status.Code.UNKNOWN && description.equals("context deadline exceeded")) {
      return EtcdFailure.DEADLINE_EXCEEDED;
    }
    // The member's process died during the call.
    if (code == Status.Code.UNKNOWN && description.equals("channel closed")) {
      return EtcdFailure.UNREACHABLE;
    }
    // An older etcd without this call (3.4 has no AuthStatus): gRPC's own words, naming the
    // method of a service the member does serve. An unknown service is no etcd at all.
    if (code == Status.Code.UNIMPLEMENTED && description.startsWith("unknown method ")) {
      return EtcdFailure.UNIMPLEMENTED;
    }
    if (!description.startsWith(ETCD_PREFIX)) {
      return code == Status.Code.UNAVAILABLE ? EtcdFailure.UNREACHABLE : null;
    }
    if (description.contains("member not found")) {
      return EtcdFailure.MEMBER_NOT_FOUND;
    }
    if (description.equals(ETCD_PREFIX + "not leader")) {
      return EtcdFailure.NOT_LEADER;
    }
    if (description.equals(ETCD_PREFIX + "unhealthy cluster")) {
      return EtcdFailure.UNHEALTHY_CLUSTER;
    }
    if (description.contains("required revision has been compacted")) {
      return EtcdFailure.COMPACTED;
    }
    if (description.contains("not supported for learner")) {
      return EtcdFailure.NOT_SUPPORTED_ON_LEARNER;
    }
    return switch (code) {
      case FAILED_PRECONDITION,
          UNAVAILABLE,
          INVALID_ARGUMENT,
          ALREADY_EXISTS,
          NOT_FOUND,
          RESOURCE_EXHAUSTED ->
          EtcdFailure.REJECTED;
      default -> null;
    };
  }

  private static String detail(Status status) {
    StringBuilder detail = new StringBuilder();
    detail.append(status.getDescription() == null ? status.getCode() : status.getDescription());
    if (status.getCause() != null && status.getCause().getMessage() != null) {
      detail.append(" (").append(status.getCause().getMessage()).append(')');
    }
    return detail.toString();
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
