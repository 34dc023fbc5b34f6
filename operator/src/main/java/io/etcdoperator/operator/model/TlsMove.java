package io.etcdoperator.operator.model;

/**
 * Where a running cluster stands on its way from plain http between members to peer TLS, one of the
 * listener sets the members run while their peer URLs move (see {@code
 * io.etcdoperator.operator.plan.TlsMoves} for the steps and why each keeps quorum).
 *
 * <p>A member dials each peer at the URL the member list records for it, and a member list entry
 * changes only by {@code member update}. So no restart alone can move a cluster from http to https:
 * the first restarted member would listen for TLS while its peers dial it in plain text. Members
 * therefore listen on both schemes while their URLs are updated, on a second peer port ({@value
 * Names#MOVE_PEER_PORT}) since one port serves one scheme, and come back to {@value
 * Names#PEER_PORT} the same way.
 */
public enum TlsMove {
  /** No move: the members listen as the spec says. */
  NONE,

  /**
   * Peers listen on http {@value Names#PEER_PORT} and https {@value Names#MOVE_PEER_PORT}, with the
   * peer certificate (which the member also presents when it dials an https peer); members are
   * updated from their http URL to https on {@value Names#MOVE_PEER_PORT}.
   */
  HTTP_AND_HTTPS,

  /**
   * Peers listen on https on both {@value Names#PEER_PORT} and {@value Names#MOVE_PEER_PORT};
   * members are updated back to https on {@value Names#PEER_PORT}.
   */
  HTTPS_ON_BOTH_PORTS,

  /**
   * No move, and not the spec's own peers either: the spec names no peer Secret, while the members
   * formed with peer TLS on certificates etcd makes itself ({@code --peer-auto-tls}, as aenix's
   * operator starts them; their recorded peer URLs are https). They keep it: members restarted onto
   * plain http could not reach the others, which dial them at https URLs. Nobody verifies those
   * certificates (etcd skips it for its own), as before the operator took the cluster over.
   */
  AUTO_TLS;

  /** A step of the move to peer TLS ({@link #HTTP_AND_HTTPS} or {@link #HTTPS_ON_BOTH_PORTS}). */
  public boolean moving() {
    return this == HTTP_AND_HTTPS || this == HTTPS_ON_BOTH_PORTS;
  }

  /** The peer URL members are updated to in this step ({@link #NONE}: the spec's own). */
  public String peerUrlTarget(String namespace, String cluster, int ordinal) {
    return this == HTTP_AND_HTTPS
        ? url("https", Names.memberHost(namespace, cluster, ordinal), Names.MOVE_PEER_PORT)
        : Names.peerUrl(namespace, cluster, ordinal, "https");
  }

  /** etcd's {@code --listen-peer-urls} in this step, on {@code host} ({@code [::]} in a pod). */
  String listenPeerUrls(String host, String specScheme) {
    return switch (this) {
      case NONE, AUTO_TLS -> url(specScheme, host, Names.PEER_PORT);
      case HTTP_AND_HTTPS ->
          url("http", host, Names.PEER_PORT) + "," + url("https", host, Names.MOVE_PEER_PORT);
      case HTTPS_ON_BOTH_PORTS ->
          url("https", host, Names.PEER_PORT) + "," + url("https", host, Names.MOVE_PEER_PORT);
    };
  }

  /**
   * The URL a member of this step advertises when it first starts ({@code
   * --initial-advertise-peer-urls}; a member with data ignores it): the one the members' URLs have
   * at the start of the step, so that the cluster-state ConfigMap and a member joining agree.
   */
  String advertisedPeerUrl(String host, String specScheme) {
    return switch (this) {
      case NONE, AUTO_TLS -> url(specScheme, host, Names.PEER_PORT);
      case HTTP_AND_HTTPS -> url("http", host, Names.PEER_PORT);
      case HTTPS_ON_BOTH_PORTS -> url("https", host, Names.MOVE_PEER_PORT);
    };
  }

  private static String url(String scheme, String host, int port) {
    return scheme + "://" + host + ":" + port;
  }
}
