package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.InitialMember;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.ServerTlsRecord;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.plan.Decision.Keep;
import io.etcdoperator.operator.plan.Facts.Member;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * What a decision keeps of the cluster's objects: with quorum, the cluster-state ConfigMap as the
 * member list says, the StatefulSet over every member's ordinal and the claims marked with their
 * members; without it, every known member's pod and a ConfigMap rebuilt from what the world keeps.
 */
final class Keeps {
  private Keeps() {}

  /**
   * Without quorum: every known member's pod, and the ConfigMap written again as {@code existing}
   * when it is gone or says {@code new} (a member starting empty must join, never bootstrap).
   */
  static Keep keepWithoutQuorum(Situation s, int replicas) {
    Keep keep = Keep.statefulSet(replicas);
    boolean recorded = s.view().clusterState().map(ClusterState::existing).orElse(false);
    return recorded ? keep : keep.withClusterState(rebuiltClusterState(s));
  }

  /**
   * The ConfigMap as the world says it must be, when it is lost: {@code existing}, with the members
   * the cluster is known to have (by the member list when a member answered, else by the claims
   * marked with a member and the pods running etcd) under their stable peer URLs, and the cluster
   * ID the members answer with or the claims record.
   */
  static ClusterState rebuiltClusterState(Situation s) {
    Facts f = s.facts();
    List<InitialMember> members =
        f.members().isEmpty()
            ? f.knownOrdinals().stream()
                .map(i -> InitialMember.of(s.namespace(), s.name(), i, s.peerScheme()))
                .toList()
            : quorumMembers(s);
    long clusterId = f.clusterId() != 0 ? f.clusterId() : f.recordedClusterId();
    Map<String, String> annotations =
        clusterId == 0 ? Map.of() : Map.of(Names.CLUSTER_ID_ANNOTATION, Hex.id(clusterId));
    return new ClusterState(
        ClusterState.Kind.EXISTING, members, s.desired().clusterToken(), annotations);
  }

  /**
   * What a cluster with quorum keeps: the ConfigMap says {@code existing} with the current member
   * list (and the cluster ID seen, and the record of rebuilds), the StatefulSet covers every
   * member's ordinal (0 when hibernating), and every healthy member's claim is marked with it.
   */
  static Keep quorumKeep(Situation s) {
    Facts f = s.facts();
    Map<String, String> annotations =
        new TreeMap<>(f.view().clusterState().map(SurvivorRebuild::kept).orElse(Map.of()));
    annotations.put(Names.CLUSTER_ID_ANNOTATION, Hex.id(f.clusterId()));
    Restores.record(f.view())
        .ifPresent(r -> annotations.putIfAbsent(Names.RESTORED_FROM_ANNOTATION, r));
    serverTlsRecord(s, annotations.get(Names.SERVER_TLS_ANNOTATION))
        .ifPresentOrElse(
            r -> annotations.put(Names.SERVER_TLS_ANNOTATION, r),
            () -> annotations.remove(Names.SERVER_TLS_ANNOTATION));
    int replicas =
        s.hibernating() || f.knownOrdinals().isEmpty() ? 0 : f.knownOrdinals().last() + 1;
    return new Keep(
        true,
        Optional.of(
            new ClusterState(
                ClusterState.Kind.EXISTING,
                quorumMembers(s),
                s.desired().clusterToken(),
                annotations)),
        OptionalInt.of(replicas),
        claimMarks(s),
        f.clusterId());
  }

  /**
   * The record of server TLS's Secrets ({@link ServerTlsRecord}): the spec's while it names a
   * server Secret; else the one recorded, while a pod still serves clients over https (a roll off
   * server TLS under way); else none.
   */
  static Optional<String> serverTlsRecord(Situation s, String recorded) {
    Optional<ServerTlsRecord> asked = ServerTlsRecord.of(s.desired().security());
    if (asked.isPresent()) {
      return asked.map(ServerTlsRecord::annotation);
    }
    boolean https =
        s.view().pods().values().stream()
            .anyMatch(p -> !p.terminating() && p.clientScheme().equals("https"));
    return Optional.ofNullable(recorded).filter(r -> https);
  }

  /** The member list's members of our ordinals, by the peer URL etcd has for each. */
  private static List<InitialMember> quorumMembers(Situation s) {
    Facts f = s.facts();
    return f.members().stream()
        .filter(m -> m.ordinal() >= 0)
        .map(
            m ->
                new InitialMember(
                    m.name(),
                    m.etcd().peerUrls().isEmpty()
                        ? Names.peerUrl(s.namespace(), s.name(), m.ordinal(), s.peerScheme())
                        : m.etcd().peerUrls().get(0)))
        .toList();
  }

  /** Each healthy member's claim, marked with the member (and cluster) it holds, where not yet. */
  private static Map<String, Long> claimMarks(Situation s) {
    if (!s.desired().persistentStorage()) {
      return Map.of();
    }
    Facts f = s.facts();
    Map<String, Long> marks = new TreeMap<>();
    for (Member m : f.members()) {
      ClaimView claim = f.view().claims().get(m.ordinal());
      if (claim != null
          && !claim.terminating()
          && m.etcd().started()
          && f.healthy(m)
          && (claim.memberId() != m.id()
              || claim.clusterId() != f.clusterId()
              || claim.ownedByCluster() != s.desired().claims().withCluster())) {
        marks.put(claim.name(), m.id());
      }
    }
    return marks;
  }
}
