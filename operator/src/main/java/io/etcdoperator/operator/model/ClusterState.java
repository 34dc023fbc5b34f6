package io.etcdoperator.operator.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The cluster-state ConfigMap, as it stands or as the planner wants it: whether a member starting
 * on an empty data dir bootstraps a {@code new} cluster or joins an {@code existing} one, the
 * members it starts with, the cluster token, and the operator's annotations on it (the cluster ID
 * recorded with quorum, the record of rebuilds).
 *
 * <p>etcd reads the first three only on a member's first start (an empty data dir); a member with
 * data ignores them. The planner decides the state from the world (docs/design.md), never from the
 * resource's status.
 *
 * @param kind {@code new} or {@code existing}
 * @param members {@code ETCD_INITIAL_CLUSTER}, in order
 * @param token {@code ETCD_INITIAL_CLUSTER_TOKEN} ("" when a ConfigMap lacks it)
 * @param annotations the annotations under {@value Names#ANNOTATION_PREFIX}, the desired-object
 *     hash excluded
 */
public record ClusterState(
    Kind kind, List<InitialMember> members, String token, Map<String, String> annotations) {
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
    token = token == null ? "" : token;
    members = List.copyOf(members);
    annotations = Map.copyOf(annotations);
  }

  public ClusterState(Kind kind, List<InitialMember> members, String token) {
    this(kind, members, token, Map.of());
  }

  /**
   * A new cluster of members {@code 0..replicas-1}, as the model's spec asks (none for a cluster
   * created with 0 replicas: it is bootstrapped when it is scaled up).
   */
  public static ClusterState bootstrap(EtcdClusterModel m) {
    List<InitialMember> members =
        IntStream.range(0, m.replicas())
            .mapToObj(i -> InitialMember.of(m.namespace(), m.name(), i, m.security().peerScheme()))
            .toList();
    return new ClusterState(Kind.NEW, members, m.clusterToken());
  }

  /** A cluster that exists with these members; a member started now joins it. */
  public static ClusterState existing(EtcdClusterModel m, List<InitialMember> members) {
    return new ClusterState(Kind.EXISTING, members, m.clusterToken());
  }

  /** {@code ETCD_INITIAL_CLUSTER_STATE=existing}: written only after a quorum was seen. */
  public boolean existing() {
    return kind == Kind.EXISTING;
  }

  public Optional<String> annotation(String key) {
    return Optional.ofNullable(annotations.get(key));
  }

  public List<String> memberNames() {
    return members.stream().map(InitialMember::name).toList();
  }

  /** Member name to peer URL, in order. */
  public Map<String, String> peerUrls() {
    Map<String, String> urls = new LinkedHashMap<>();
    members.forEach(m -> urls.put(m.name(), m.peerUrl()));
    return urls;
  }

  /** The value of {@code ETCD_INITIAL_CLUSTER}: {@code name=url,name=url}. */
  public String initialCluster() {
    return members.stream().map(InitialMember::toString).collect(Collectors.joining(","));
  }

  /**
   * Parses {@code ETCD_INITIAL_CLUSTER} ({@code a=http://x:2380,b=http://y:2380}); malformed
   * entries are skipped.
   */
  public static List<InitialMember> parseInitialCluster(String value) {
    Map<String, String> members = new LinkedHashMap<>();
    for (String entry : value == null ? new String[0] : value.split(",")) {
      int eq = entry.indexOf('=');
      if (eq > 0 && eq < entry.length() - 1) {
        members.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
      }
    }
    return members.entrySet().stream()
        .map(e -> new InitialMember(e.getKey(), e.getValue()))
        .toList();
  }
}
