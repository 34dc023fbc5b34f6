package io.etcdoperator.operator.observe;

/**
 * One member's data claim.
 *
 * @param name claim name
 * @param ordinal StatefulSet ordinal it belongs to
 * @param terminating deletion requested
 * @param memberId the etcd member whose data the claim holds ({@code etcd.aenix.io/member-id},
 *     written once the member was seen healthy on it), or 0 when it never held a member's data
 * @param clusterId the cluster that member belonged to ({@code etcd.aenix.io/cluster-id}, written
 *     with the member ID), or 0 when not recorded
 * @param ownedByCluster the EtcdCluster owns it (it goes with the cluster: whenDeleted Delete)
 */
public record ClaimView(
    String name,
    int ordinal,
    boolean terminating,
    long memberId,
    long clusterId,
    boolean ownedByCluster) {
  public ClaimView(String name, int ordinal, boolean terminating, long memberId) {
    this(name, ordinal, terminating, memberId, 0, false);
  }

  public ClaimView(String name, int ordinal, boolean terminating, long memberId, long clusterId) {
    this(name, ordinal, terminating, memberId, clusterId, false);
  }
}
