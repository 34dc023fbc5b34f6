package io.etcdoperator.operator.etcd;

import java.util.List;
import java.util.Objects;

/**
 * One entry of etcd's member list.
 *
 * @param id the member ID
 * @param name the member's name; empty for a member that was added but has not started yet
 * @param peerUrls where the other members reach it
 * @param clientUrls where clients reach it; empty for a member that has not started yet
 * @param learner a non-voting member
 */
public record EtcdMember(
    long id, String name, List<String> peerUrls, List<String> clientUrls, boolean learner) {
  public EtcdMember {
    name = Objects.requireNonNullElse(name, "");
    peerUrls = List.copyOf(peerUrls);
    clientUrls = List.copyOf(clientUrls);
  }

  /** Whether the member has started and published its name and client URLs. */
  public boolean started() {
    return !name.isEmpty();
  }

  /** The member ID as etcd prints it (hexadecimal). */
  public String hexId() {
    return Long.toHexString(id);
  }
}
