package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.EtcdBackupStatus;
import io.etcdoperator.operator.observe.ClusterView;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the backup controller saw of one EtcdBackup at one reconcile.
 *
 * @param now when (the planner has no clock)
 * @param name the backup's name
 * @param namespace the backup's namespace
 * @param cluster the EtcdCluster's name ({@code spec.clusterRef.name})
 * @param created the backup's creation time
 * @param recorded the backup's status as last written (a record once Complete or Failed)
 * @param clusterView the cluster's objects and a probe of its members; empty when the EtcdCluster
 *     does not exist
 * @param problems what is wrong with the backup's spec (field: reason); empty when valid
 * @param pod the agent pod, if it exists
 */
public record BackupView(
    Instant now,
    String name,
    String namespace,
    String cluster,
    Instant created,
    Optional<EtcdBackupStatus> recorded,
    Optional<ClusterView> clusterView,
    List<String> problems,
    Optional<AgentPod> pod) {

  /**
   * An agent pod as Kubernetes reports it.
   *
   * @param name the pod's name
   * @param phase Pending, Running, Succeeded, Failed (Unknown counts as Pending)
   * @param startedAt when its container started, if it did
   * @param message the container's termination message (the agent's result), or ""
   * @param exitCode the container's exit code once it ended
   * @param waitingReason why the container is not running yet (CreateContainerConfigError,
   *     ImagePullBackOff, ...), or ""
   * @param waitingMessage what the kubelet said about it, or ""
   * @param attempt which attempt of the backup it is (its annotation; 1 when absent)
   * @param created when the pod was created (what its deadline counts from until it starts)
   */
  public record AgentPod(
      String name,
      String phase,
      Optional<Instant> startedAt,
      String message,
      Optional<Integer> exitCode,
      String waitingReason,
      String waitingMessage,
      int attempt,
      Instant created) {}
}
