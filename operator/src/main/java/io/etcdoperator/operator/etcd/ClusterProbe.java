package io.etcdoperator.operator.etcd;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The answers of every expected member to one {@link EtcdService#probeAll} round, with what can be
 * derived from them alone.
 *
 * @param members one probe per expected client URL, in the order given
 * @param memberList the member list to believe: the leader's when the leader answered, otherwise
 *     that of the most advanced voter (highest raft term, then index) that served one
 * @param took how long the round took
 */
public record ClusterProbe(
    List<EtcdProbe> members, Optional<EtcdMemberList> memberList, Duration took) {

  public ClusterProbe {
    members = List.copyOf(members);
    Objects.requireNonNull(memberList, "memberList");
    Objects.requireNonNull(took, "took");
  }

  static ClusterProbe of(List<EtcdProbe> members, Duration took) {
    return new ClusterProbe(members, chooseMemberList(members), took);
  }

  private static Optional<EtcdMemberList> chooseMemberList(List<EtcdProbe> members) {
    Comparator<EtcdProbe> preference =
        Comparator.<EtcdProbe, Boolean>comparing(p -> p.status().isLeader())
            .thenComparing(p -> !p.status().learner())
            .thenComparingLong(p -> p.status().raftTerm())
            .thenComparingLong(p -> p.status().raftIndex());
    return members.stream()
        .filter(p -> p.reachable() && p.memberList().isPresent())
        .max(preference)
        .flatMap(EtcdProbe::memberList);
  }

  /** The distinct cluster IDs reported by the members that answered. */
  public Set<Long> clusterIds() {
    return members.stream()
        .filter(EtcdProbe::reachable)
        .map(p -> p.status().clusterId())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** More than one cluster ID answered: these endpoints do not form one cluster. */
  public boolean splitBrain() {
    return clusterIds().size() > 1;
  }

  public List<EtcdProbe> reachable() {
    return members.stream().filter(EtcdProbe::reachable).toList();
  }

  public List<EtcdProbe> unreachable() {
    return members.stream().filter(p -> !p.reachable()).toList();
  }

  public Optional<EtcdProbe> find(String clientUrl) {
    return members.stream().filter(p -> p.endpoint().equals(clientUrl)).findFirst();
  }

  /**
   * The member that says it is the leader; if several do (a deposed leader that has not heard of
   * the new term yet), the one with the highest term.
   */
  public Optional<EtcdStatus> leader() {
    return members.stream()
        .map(EtcdProbe::status)
        .filter(EtcdStatus::isLeader)
        .max(Comparator.comparingLong(EtcdStatus::raftTerm));
  }

  public Optional<String> leaderEndpoint() {
    return leader().map(EtcdStatus::endpoint);
  }

  /**
   * Whether a leader is acknowledged by a majority of the voting members of {@link #memberList()}:
   * counted are the voters that answered, with the leader's cluster ID and the leader's ID as their
   * leader. A voter that did not answer counts against quorum. Split brain is a separate question
   * ({@link #splitBrain()}): this answers it for the leader's cluster only.
   */
  public boolean hasQuorum() {
    Optional<EtcdStatus> leader = leader();
    if (leader.isEmpty() || memberList.isEmpty()) {
      return false;
    }
    long leaderId = leader.get().memberId();
    long clusterId = leader.get().clusterId();
    List<EtcdMember> voters = memberList.get().voters();
    Set<Long> voterIds = voters.stream().map(EtcdMember::id).collect(Collectors.toSet());
    long acknowledging =
        members.stream()
            .map(EtcdProbe::status)
            .filter(s -> s.reachable() && !s.learner())
            .filter(s -> s.clusterId() == clusterId && s.leaderId() == leaderId)
            .map(EtcdStatus::memberId)
            .filter(voterIds::contains)
            .distinct()
            .count();
    return acknowledging > voters.size() / 2;
  }
}
