package io.etcdoperator.operator.etcd;

/** The outcome of promoting a learner. */
public sealed interface PromoteResult {

  /** The learner is a voting member now. */
  record Promoted(EtcdMemberList members) implements PromoteResult {}

  /** etcd refused because the learner has not caught up with the leader yet: try again later. */
  record NotReadyYet(String detail) implements PromoteResult {}
}
