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
 * @param peerCertificate the certificate its etcd container presents to peers, by its arguments
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
    String peerListen,
    PeerCertificate peerCertificate) {
  /** The certificate a member presents to its peers. */
  public enum PeerCertificate {
    /** None: plain http between members. */
    NONE,
    /**
     * One etcd makes itself at start ({@code --peer-auto-tls}, as aenix's operator runs members):
     * self-signed, and etcd then verifies no peer's certificate either.
     */
    AUTO,
    /** The peer Secret's ({@code --peer-cert-file}), checked against the peer CA. */
    FILE
  }

  public PodView {
    peerListen = peerListen == null ? "" : peerListen;
    peerCertificate = peerCertificate == null ? PeerCertificate.NONE : peerCertificate;
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
        "",
        PeerCertificate.NONE);
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
