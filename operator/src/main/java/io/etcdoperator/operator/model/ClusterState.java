package io.etcdoperator.operator.model;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * What the cluster-state ConfigMap tells a starting member: whether it bootstraps a {@code new}
 * cluster or joins an {@code existing} one, the members it starts with, and the cluster token.
 *
 * <p>etcd reads these only on a member's first start (an empty data dir); a member with data
 * ignores them. The planner decides the state from the world (DESIGN.md section 4), never from the
 * resource's status.
 */
public record ClusterState(Kind kind, List<InitialMember> members, String token) {
  /** The two values of {@code --initial-cluster-state}. */
  public enum Kind {
    NEW("new"),
    EXISTING("existing");

    private final String flagValue;

    Kind(String flagValue) {
      this.flagValue = flagValue;
    }

    /** As etcd spells it. */
    public String flagValue() {
      return flagValue;
    }
  }

  public ClusterState {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(token, "token");
    members = List.copyOf(members);
  }

  /**
   * A new cluster of members {@code 0..replicas-1}, as the model's spec asks (none for a cluster
   * created with 0 replicas: it is bootstrapped when it is scaled up).
   */
  public static ClusterState bootstrap(EtcdClusterModel m) {
    List<InitialMember> members =
        IntStream.range(0, m.replicas())
            .mapToObj(i -> InitialMember.of(m.namespace(), m.name(), i))
            .toList();
    return new ClusterState(Kind.NEW, members, m.clusterToken());
  }

  /** A cluster that exists with these members; a member started now joins it. */
  public static ClusterState existing(EtcdClusterModel m, List<InitialMember> members) {
    return new ClusterState(Kind.EXISTING, members, m.clusterToken());
  }

  /** The value of {@code ETCD_INITIAL_CLUSTER}: {@code name=url,name=url}. */
  public String initialCluster() {
    return members.stream().map(InitialMember::toString).collect(Collectors.joining(","));
  }
}
