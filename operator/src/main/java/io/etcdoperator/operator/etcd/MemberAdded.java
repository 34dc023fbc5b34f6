package io.etcdoperator.operator.etcd;

/**
 * The result of adding a member.
 *
 * @param member the new member (not started yet: no name, no client URLs)
 * @param members the member list right after the addition
 */
public record MemberAdded(EtcdMember member, EtcdMemberList members) {}
