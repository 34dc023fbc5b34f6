package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.Status.Code;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GrpcErrorsTest {

  @ParameterizedTest(name = "{0} \"{1}\" -> {2}")
  @CsvSource(
      delimiter = '|',
      nullValues = "UNEXPECTED",
      value = {
        "DEADLINE_EXCEEDED   | CallOptions deadline exceeded after 1s                | DEADLINE_EXCEEDED",
        "DEADLINE_EXCEEDED   | context deadline exceeded                             | DEADLINE_EXCEEDED",
        "UNKNOWN             | context deadline exceeded                             | DEADLINE_EXCEEDED",
        "UNKNOWN             | channel closed                                        | UNREACHABLE",
        "UNAVAILABLE         | io exception                                          | UNREACHABLE",
        "UNAVAILABLE         | Channel shutdownNow invoked                           | UNREACHABLE",
        "FAILED_PRECONDITION | etcdserver: not leader                                | NOT_LEADER",
        "NOT_FOUND           | etcdserver: member not found                          | MEMBER_NOT_FOUND",
        "UNAVAILABLE         | etcdserver: rpc not supported for learner             | NOT_SUPPORTED_ON_LEARNER",
        "UNAVAILABLE         | etcdserver: unhealthy cluster                         | UNHEALTHY_CLUSTER",
        "FAILED_PRECONDITION | etcdserver: can only promote a learner member         | REJECTED",
        "FAILED_PRECONDITION | etcdserver: Peer URLs already exists                  | REJECTED",
        "FAILED_PRECONDITION | etcdserver: bad leader transferee                     | REJECTED",
        "UNAVAILABLE         | etcdserver: no leader                                 | REJECTED",
        "UNAVAILABLE         | etcdserver: request timed out                         | REJECTED",
        "INVALID_ARGUMENT    | etcdserver: given member URLs are invalid             | REJECTED",
        "RESOURCE_EXHAUSTED  | etcdserver: mvcc: database space exceeded             | REJECTED",
        "INTERNAL            | etcdserver: something new                             | UNEXPECTED",
        "DATA_LOSS           | etcdserver: corrupt cluster                           | UNEXPECTED",
        "UNKNOWN             | boom                                                  | UNEXPECTED",
        "UNIMPLEMENTED       | unknown service etcdserverpb.Cluster                  | UNEXPECTED",
        "UNIMPLEMENTED       | unknown method AuthStatus for service etcdserverpb.Auth | UNIMPLEMENTED",
        "FAILED_PRECONDITION | not from etcd                                         | UNEXPECTED",
        "CANCELLED           | cancelled                                             | UNEXPECTED",
      })
  void sortsStatusesIntoExpectedFailures(Code code, String description, EtcdFailure expected) {
    assertThat(GrpcErrors.kindOf(code, description)).isEqualTo(expected);

    RuntimeException e =
        GrpcErrors.classify(
            new CompletionException(
                Status.fromCode(code).withDescription(description).asRuntimeException()),
            "http://x:2379");
    if (expected == null) {
      assertThat(e).isInstanceOf(EtcdUnexpectedException.class).hasMessageContaining(description);
    } else {
      assertThat(e).isInstanceOf(EtcdException.class);
      assertThat(((EtcdException) e).failure()).isEqualTo(expected);
      assertThat(((EtcdException) e).endpoint()).isEqualTo("http://x:2379");
    }
  }

  @ParameterizedTest
  @CsvSource({"true", "false"})
  void learnerNotReadyIsRecognised(boolean notReady) {
    String description =
        notReady
            ? "etcdserver: can only promote a learner member which is in sync with leader"
            : "etcdserver: can only promote a learner member";
    assertThat(
            GrpcErrors.isLearnerNotReady(
                Status.FAILED_PRECONDITION.withDescription(description).asRuntimeException()))
        .isEqualTo(notReady);
  }

  @org.junit.jupiter.api.Test
  void transportCauseIsKeptInTheDetail() {
    RuntimeException e =
        GrpcErrors.classify(
            Status.UNAVAILABLE
                .withDescription("io exception")
                .withCause(new ConnectException("Connection refused: /127.10.0.1:2379"))
                .asRuntimeException(),
            "http://127.10.0.1:2379");
    assertThat(((EtcdException) e).detail())
        .isEqualTo("io exception (Connection refused: /127.10.0.1:2379)");
  }

  @org.junit.jupiter.api.Test
  void nonGrpcFailuresAreUnexpected() {
    assertThat(GrpcErrors.classify(new IllegalStateException("bug"), "http://x:2379"))
        .isInstanceOf(EtcdUnexpectedException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
  }
}
