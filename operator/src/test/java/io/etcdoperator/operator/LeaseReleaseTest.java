package io.etcdoperator.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.testing.MockApi;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Lease a stopping leader gives up, and only then (fabric8's mock API in CRUD mode). */
class LeaseReleaseTest {
  private static final OperatorSettings.LeaderElection ME =
      new OperatorSettings.LeaderElection("ops", "etcd-operator-leader", "op-a");

  private MockApi api;
  private KubernetesClient k;

  @BeforeEach
  void start() {
    api = new MockApi();
    k = api.client();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private void lease(String holder) {
    k.resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("etcd-operator-leader")
                .withNamespace("ops")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(15)
                .withRenewTime(ZonedDateTime.now())
                .endSpec()
                .build())
        .create();
  }

  private Lease read() {
    return k.leases().inNamespace("ops").withName("etcd-operator-leader").get();
  }

  @Test
  void theHolderReleasesItsLease() {
    lease("op-a");
    assertThat(LeaseRelease.release(k, ME)).isTrue();
    assertThat(read().getSpec().getHolderIdentity()).isNull();
    assertThat(read().getSpec().getLeaseDurationSeconds()).isEqualTo(1);
  }

  @Test
  void aLeaseAnotherReplicaHoldsIsNotTouched() {
    lease("op-b");
    String version = read().getMetadata().getResourceVersion();
    assertThat(LeaseRelease.release(k, ME)).isFalse();
    assertThat(read().getSpec().getHolderIdentity()).isEqualTo("op-b");
    assertThat(read().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  void noLeaseIsNothingToRelease() {
    assertThat(LeaseRelease.release(k, ME)).isFalse();
  }
}
