package io.etcdoperator.operator.observe;

import java.util.List;

/**
 * The etcd member list.
 *
 * @param members every member, voters and learners, started or not
 * @param seenFromOrdinal the ordinal of the member that returned it
 */
public record MemberList(List<Entry> members, int seenFromOrdinal) {
  public MemberList {
    members = List.copyOf(members);
  }

  /**
   * One member.
   *
   * @param id member ID
   * @param name member name; empty while a newly added member has not started
   * @param peerUrls peer URLs
   * @param clientUrls client URLs; empty while not started
   * @param learner a learner (non-voting)
   */
  public record Entry(
      long id, String name, List<String> peerUrls, List<String> clientUrls, boolean learner) {
    public Entry {
      name = name == null ? "" : name;
      peerUrls = List.copyOf(peerUrls);
      clientUrls = List.copyOf(clientUrls);
    }

    public boolean started() {
      return !name.isEmpty();
    }
  }
}
