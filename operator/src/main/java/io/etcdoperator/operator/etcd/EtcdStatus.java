package io.etcdoperator.operator.etcd;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one member says about itself (etcd's Maintenance/Status), or why it said nothing.
 *
 * <p>When {@link #failure()} is present every other field is zero or empty.
 *
 * @param endpoint the client URL the status was asked from
 * @param failure why the member did not answer; empty when it answered
 * @param clusterId the cluster ID in the member's response header
 * @param memberId the ID of the member that answered
 * @param leaderId the leader this member follows; 0 when it knows of none (no quorum, election)
 * @param raftTerm the member's current raft term
 * @param raftIndex the member's last raft log index
 * @param raftAppliedIndex the index the member has applied (etcd 3.4+; 0 when not reported)
 * @param learner whether the member says it is a learner (etcd 3.4+)
 * @param version the etcd server version
 * @param dbSize the physical size of the backend database, in bytes
 * @param dbSizeInUse the logical size in use, in bytes (etcd 3.4+; 0 when not reported)
 * @param errors errors the member reports, e.g. {@code "memberID:... alarm:NOSPACE "} (etcd 3.4+)
 * @param revision the key-value store revision in the response header
 */
public record EtcdStatus(
    String endpoint,
    Optional<ProbeFailure> failure,
    long clusterId,
    long memberId,
    long leaderId,
    long raftTerm,
    long raftIndex,
    long raftAppliedIndex,
    boolean learner,
    String version,
    long dbSize,
    long dbSizeInUse,
    List<String> errors,
    long revision) {

  public EtcdStatus {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(failure, "failure");
    version = Objects.requireNonNullElse(version, "");
    errors = List.copyOf(errors);
  }

  static EtcdStatus unreachable(String endpoint, ProbeFailure failure) {
    return new EtcdStatus(
        endpoint, Optional.of(failure), 0, 0, 0, 0, 0, 0, false, "", 0, 0, List.of(), 0);
  }

  public boolean reachable() {
    return failure.isEmpty();
  }

  /** Whether this member says it is the leader. */
  public boolean isLeader() {
    return reachable() && memberId != 0 && memberId == leaderId;
  }

  /** Whether this member knows of a leader. */
  public boolean hasLeader() {
    return reachable() && leaderId != 0;
  }
}
