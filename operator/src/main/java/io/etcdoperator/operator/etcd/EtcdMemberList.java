package io.etcdoperator.operator.etcd;

import java.util.List;
import java.util.Optional;

/**
 * The member list as seen by one member.
 *
 * @param endpoint the client URL of the member that answered
 * @param clusterId the cluster ID in that member's response header
 * @param reportedBy the ID of the member that answered
 * @param members the members, in etcd's order
 */
public record EtcdMemberList(
    String endpoint, long clusterId, long reportedBy, List<EtcdMember> members) {
  public EtcdMemberList {
    members = List.copyOf(members);
  }

  public Optional<EtcdMember> find(long id) {
    return members.stream().filter(m -> m.id() == id).findFirst();
  }

  public Optional<EtcdMember> findByPeerUrl(String peerUrl) {
    return members.stream().filter(m -> m.peerUrls().contains(peerUrl)).findFirst();
  }

  public Optional<EtcdMember> findByClientUrl(String clientUrl) {
    return members.stream().filter(m -> m.clientUrls().contains(clientUrl)).findFirst();
  }

  public List<EtcdMember> voters() {
    return members.stream().filter(m -> !m.learner()).toList();
  }

  public List<EtcdMember> learners() {
    return members.stream().filter(EtcdMember::learner).toList();
  }
}
