package io.etcdoperator.operator.model;

import java.util.Objects;

/** A member as it appears in {@code ETCD_INITIAL_CLUSTER}: {@code name=peerUrl}. */
public record InitialMember(String name, String peerUrl) {
  public InitialMember {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(peerUrl, "peerUrl");
  }

  /** The member of ordinal {@code i} of a cluster, with its stable DNS peer URL. */
  public static InitialMember of(String namespace, String cluster, int ordinal) {
    return of(namespace, cluster, ordinal, "http");
  }

  /** The same, on {@code scheme} (https with peer TLS). */
  public static InitialMember of(String namespace, String cluster, int ordinal, String scheme) {
    return new InitialMember(
        Names.member(cluster, ordinal), Names.peerUrl(namespace, cluster, ordinal, scheme));
  }

  @Override
  public String toString() {
    return name + "=" + peerUrl;
  }
}
