package io.etcdoperator.operator.observe;

import java.util.Optional;

/**
 * The pod that rebuilds a cluster from a survivor ({@code <cluster>-rebuild}), when it exists.
 *
 * @param name pod name
 * @param survivorOrdinal the ordinal whose claim it runs on
 * @param phase pod phase
 * @param terminating deletion requested
 * @param probe what its etcd said when probed by the pod's address, if it has one
 */
public record RebuildView(
    String name,
    int survivorOrdinal,
    String phase,
    boolean terminating,
    Optional<MemberProbe> probe) {

  /** Its etcd runs as the leader of a cluster of its own: the rebuild is done. */
  public boolean leadsAlone() {
    return probe
        .map(p -> p.reachable() && p.memberId() != 0 && p.leaderId() == p.memberId())
        .orElse(false);
  }
}
