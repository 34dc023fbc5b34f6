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
 * @param annotations the ConfigMap's annotations under {@code etcd.aenix.io/}: where a rebuild from
 *     a survivor is recorded, in progress and done
 */
public record ClusterStateView(
    boolean existing,
    Map<String, String> initialCluster,
    String token,
    Map<String, String> annotations) {
  public ClusterStateView {
    annotations = Map.copyOf(annotations);
  }

  public ClusterStateView(boolean existing, Map<String, String> initialCluster, String token) {
    this(existing, initialCluster, token, Map.of());
  }

  public java.util.Optional<String> annotation(String key) {
    return java.util.Optional.ofNullable(annotations.get(key));
  }

  public List<String> memberNames() {
    return List.copyOf(initialCluster.keySet());
  }
}
