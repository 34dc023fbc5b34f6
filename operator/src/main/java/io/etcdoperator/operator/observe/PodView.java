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
 * @param lastTermination the etcd container's last termination message (with {@code
 *     FallbackToLogsOnError}: the tail of its log when it failed), or null
 * @param clientScheme what its etcd container serves clients on, by its arguments: https or http
 *     (while TLS is being turned on or off, pods differ)
 * @param peerListen its etcd container's {@code --listen-peer-urls} ("" when it sets none): what it
 *     serves peers on (while peers move to TLS, pods differ)
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
    Instant createdAt,
    String lastTermination,
    String clientScheme,
    String peerListen) {
  public PodView {
    peerListen = peerListen == null ? "" : peerListen;
  }

  public PodView(
      String name,
      int ordinal,
      String phase,
      boolean ready,
      boolean running,
      int restartCount,
      boolean terminating,
      String podTemplateHash,
      Instant createdAt,
      String lastTermination,
      String clientScheme) {
    this(
        name,
        ordinal,
        phase,
        ready,
        running,
        restartCount,
        terminating,
        podTemplateHash,
        createdAt,
        lastTermination,
        clientScheme,
        "");
  }

  public PodView(
      String name,
      int ordinal,
      String phase,
      boolean ready,
      boolean running,
      int restartCount,
      boolean terminating,
      String podTemplateHash,
      Instant createdAt,
      String lastTermination) {
    this(
        name,
        ordinal,
        phase,
        ready,
        running,
        restartCount,
        terminating,
        podTemplateHash,
        createdAt,
        lastTermination,
        "http");
  }
}
