package io.etcdoperator.operator.observe;

import java.time.Instant;

/**
 * One member pod as Kubernetes reports it.
 *
 * @param name pod name
 * @param ordinal StatefulSet ordinal
 * @param phase Pending, Running, Succeeded, Failed or Unknown
 * @param ready the pod's Ready condition
 * @param running the etcd container is running now
 * @param restartCount restarts of the etcd container
 * @param terminating deletion requested
 * @param podTemplateHash the operator's pod template hash on this pod, or null
 * @param createdAt creation time (a recreated pod is younger)
 */
public record PodView(
    String name,
    int ordinal,
    String phase,
    boolean ready,
    boolean running,
    int restartCount,
    boolean terminating,
    String podTemplateHash,
    Instant createdAt) {}
