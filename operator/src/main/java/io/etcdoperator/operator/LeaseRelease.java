package io.etcdoperator.operator;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader-election Lease given up by a replica that stops cleanly. The framework cancels its
 * elector on stop without releasing the Lease, so the next replica waited out the whole lease
 * duration before acting (13 to 17 s with the default 15 s, measured by deleting the leader's pod
 * of the chart's Deployment). Released as client-go releases it: no holder, a lease of 1 s, renewed
 * now; and only when the Lease, read now, still names this replica, written with its
 * resourceVersion, so that a Lease another replica took meanwhile is never touched. Called after
 * the operator stopped (its reconciles finished or given up), just before the process ends.
 */
final class LeaseRelease {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseRelease.class);

  private LeaseRelease() {}

  /** Releases the Lease if this identity holds it; true when it did. */
  static boolean release(KubernetesClient client, OperatorSettings.LeaderElection election) {
    try {
      Lease lease =
          client.leases().inNamespace(election.namespace()).withName(election.name()).get();
      if (lease == null
          || lease.getSpec() == null
          || !election.identity().equals(lease.getSpec().getHolderIdentity())) {
        return false;
      }
      lease.getSpec().setHolderIdentity(null);
      lease.getSpec().setLeaseDurationSeconds(1);
      lease.getSpec().setRenewTime(ZonedDateTime.now().truncatedTo(ChronoUnit.MICROS));
      client.resource(lease).update();
      LOG.info("Released the Lease {}/{}", election.namespace(), election.name());
      return true;
    } catch (KubernetesClientException e) {
      // taken meanwhile (409), or the API is not reachable: the lease expires on its own
      LOG.info("Lease not released: {}", e.getMessage());
      return false;
    }
  }
}
