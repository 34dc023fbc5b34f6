package io.etcdoperator.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Which failures of a reconcile are an update refused because the object changed since it was read
 * ({@link EtcdClusterReconciler#isWriteConflict}): logged in a line and reconciled again, not
 * thrown to the framework (which logs a stack trace and counts a failure). The messages are the API
 * server's.
 */
class WriteConflictTest {
  private static final String MODIFIED =
      "Operation cannot be fulfilled on statefulsets.apps \"a\": the object has been modified;"
          + " please apply your changes to the latest version and try again";

  private static KubernetesClientException refused(int code, String message) {
    Status status = new StatusBuilder().withCode(code).withMessage(message).build();
    return new KubernetesClientException(status);
  }

  @Test
  void anUpdateRefusedForAChangedObjectIsAConflictEvenWrapped() {
    assertThat(EtcdClusterReconciler.isWriteConflict(refused(409, MODIFIED))).isTrue();
    assertThat(
            EtcdClusterReconciler.isWriteConflict(
                new CompletionException(new IllegalStateException(refused(409, MODIFIED)))))
        .isTrue();
  }

  @Test
  void otherRefusalsAreNot() {
    assertThat(
            EtcdClusterReconciler.isWriteConflict(
                refused(409, "statefulsets.apps \"a\" already exists")))
        .isFalse();
    assertThat(EtcdClusterReconciler.isWriteConflict(refused(422, "spec.replicas: Invalid")))
        .isFalse();
    assertThat(EtcdClusterReconciler.isWriteConflict(new IllegalStateException("x"))).isFalse();
  }
}
