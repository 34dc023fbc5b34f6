package io.etcdoperator.operator.observe;

import java.util.List;
import java.util.Map;

/**
 * The cluster-state ConfigMap as it stands: the durable record of whether the cluster ever formed
 * and, once it has, of its last member list seen with quorum.
 *
 * @param existing {@code ETCD_INITIAL_CLUSTER_STATE=existing}: written only after a quorum was seen
 * @param initialCluster {@code ETCD_INITIAL_CLUSTER} parsed: member name to peer URL, in order
 * @param token {@code ETCD_INITIAL_CLUSTER_TOKEN}
 */
public record ClusterStateView(boolean existing, Map<String, String> initialCluster, String token) {
  public List<String> memberNames() {
    return List.copyOf(initialCluster.keySet());
  }
}
