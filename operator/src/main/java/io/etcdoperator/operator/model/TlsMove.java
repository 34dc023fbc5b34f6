package io.etcdoperator.operator.model;

/**
 * Where a running cluster stands while its members' peer URLs move between plain http and TLS, in
 * either direction: one of the listener sets the members run meanwhile (see {@code
 * io.etcdoperator.operator.plan.TlsMoves} for the steps and why each keeps quorum).
 *
 * <p>A member dials each peer at the URL the member list records for it, and a member list entry
 * changes only by {@code member update}. So no restart alone can move a cluster from http to https
 * or back: the first restarted member would listen on one scheme while its peers dial it on the
 * other. Members therefore listen on both schemes while their URLs are updated, on a second peer
 * port ({@value Names#MOVE_PEER_PORT}) since one port serves one scheme, and come back to {@value
 * Names#PEER_PORT} the same way. The four moving values are the four ways of serving one scheme on
 * each port; which one a cluster needs follows from the URLs recorded ({@code TlsMoves.of}).
 */
public enum TlsMove {
  /** No move: the members listen as the spec says. */
  NONE,

  /**
   * Peers listen on http {@value Names#PEER_PORT} and https {@value Names#MOVE_PEER_PORT}, with the
   * peer certificate (which the member also presents when it dials an https peer). On the way to
   * TLS, members are updated from their http URL to https on {@value Names#MOVE_PEER_PORT}.
   */
  HTTP_AND_HTTPS,

  /**
   * Peers listen on https on both {@value Names#PEER_PORT} and {@value Names#MOVE_PEER_PORT}; on
   * the way to TLS, members are updated back to https on {@value Names#PEER_PORT}.
   */
  HTTPS_ON_BOTH_PORTS,

  /**
   * Peers listen on https {@value Names#PEER_PORT}, with the peer certificate the members ran
   * before, and on http {@value Names#MOVE_PEER_PORT}. On the way off TLS, members are updated from
   * their https URL to http on {@value Names#MOVE_PEER_PORT}.
   */
  HTTPS_AND_HTTP,

  /**
   * Peers listen on http on both {@value Names#PEER_PORT} and {@value Names#MOVE_PEER_PORT}, no
   * certificate; on the way off TLS, members are updated back to http on {@value Names#PEER_PORT}.
   */
  HTTP_ON_BOTH_PORTS,

  /**
   * No move, and not the spec's own peers either: the spec names no peer Secret, while the members
   * formed with peer TLS on certificates etcd makes itself ({@code --peer-auto-tls}, as aenix's
   * operator starts them; their recorded peer URLs are https). They keep it: members restarted onto
   * plain http could not reach the others, which dial them at https URLs. Nobody verifies those
   * certificates (etcd skips it for its own), as before the operator took the cluster over.
   */
  AUTO_TLS;

  /** A step of a move between http and https peers: one of the four listener sets. */
  public boolean moving() {
    return this == HTTP_AND_HTTPS
        || this == HTTPS_ON_BOTH_PORTS
        || this == HTTPS_AND_HTTP
        || this == HTTP_ON_BOTH_PORTS;
  }

  /** The move step serving {@code atPeerPort} on {@value Names#PEER_PORT} and the other scheme. */
  public static TlsMove serving(String atPeerPort, String atMovePort) {
    boolean a = atPeerPort.equals("https");
    boolean b = atMovePort.equals("https");
    if (a) {
      return b ? HTTPS_ON_BOTH_PORTS : HTTPS_AND_HTTP;
    }
    return b ? HTTP_AND_HTTPS : HTTP_ON_BOTH_PORTS;
  }

  /** The scheme a moving step serves on {@value Names#PEER_PORT}. */
  public String atPeerPort() {
    return this == HTTPS_ON_BOTH_PORTS || this == HTTPS_AND_HTTP ? "https" : "http";
  }

  /** The scheme a moving step serves on {@value Names#MOVE_PEER_PORT}. */
  public String atMovePort() {
    return this == HTTP_AND_HTTPS || this == HTTPS_ON_BOTH_PORTS ? "https" : "http";
  }

  /** A moving step with an https listener: members need a peer certificate. */
  public boolean servesHttps() {
    return moving() && (atPeerPort().equals("https") || atMovePort().equals("https"));
  }

  /**
   * The peer URL members are updated to in this step, on the way to {@code want} (the spec's peer
   * scheme): {@code want} on {@value Names#PEER_PORT} when this step serves it there; else {@code
   * want} on {@value Names#MOVE_PEER_PORT} when served there; else (the spec changed its mind in
   * the middle of a move, and neither port serves {@code want}) the scheme served on {@value
   * Names#PEER_PORT}, to gather every member there before the move the spec asks for starts.
   */
  public String peerUrlTarget(String namespace, String cluster, int ordinal, String want) {
    String host = Names.memberHost(namespace, cluster, ordinal);
    if (!moving() || atPeerPort().equals(want)) {
      return url(want, host, Names.PEER_PORT);
    }
    if (atMovePort().equals(want)) {
      return url(want, host, Names.MOVE_PEER_PORT);
    }
    return url(atPeerPort(), host, Names.PEER_PORT);
  }

  /** etcd's {@code --listen-peer-urls} in this step, on {@code host} ({@code [::]} in a pod). */
  String listenPeerUrls(String host, String specScheme) {
    if (!moving()) {
      return url(specScheme, host, Names.PEER_PORT);
    }
    return url(atPeerPort(), host, Names.PEER_PORT)
        + ","
        + url(atMovePort(), host, Names.MOVE_PEER_PORT);
  }

  /**
   * The URL a member of this step advertises when it first starts ({@code
   * --initial-advertise-peer-urls}; a member with data ignores it): the one the members' URLs have
   * at the start of the step when the move goes one way, so that the cluster-state ConfigMap and a
   * member joining agree (no member joins during a move).
   */
  String advertisedPeerUrl(String host, String specScheme) {
    return switch (this) {
      case NONE, AUTO_TLS -> url(specScheme, host, Names.PEER_PORT);
      case HTTP_AND_HTTPS -> url("http", host, Names.PEER_PORT);
      case HTTPS_AND_HTTP -> url("https", host, Names.PEER_PORT);
      case HTTPS_ON_BOTH_PORTS -> url("https", host, Names.MOVE_PEER_PORT);
      case HTTP_ON_BOTH_PORTS -> url("http", host, Names.MOVE_PEER_PORT);
    };
  }

  private static String url(String scheme, String host, int port) {
    return scheme + "://" + host + ":" + port;
  }
}
