package io.etcdoperator.operator.etcd;

import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.MemberAddRequest;
import io.etcd.jetcd.api.MemberAddResponse;
import io.etcd.jetcd.api.MemberRemoveRequest;
import io.etcd.jetcd.api.MemberRemoveResponse;
import io.etcd.jetcd.api.MemberUpdateRequest;
import io.etcd.jetcd.api.MemberUpdateResponse;
import io.etcd.jetcd.api.MoveLeaderRequest;
import io.grpc.Deadline;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The membership calls of {@link JetcdEtcdService}: add a learner, promote it, remove a member,
 * update its peer URLs, move leadership. Each first makes sure, with a Status call, that the member
 * asked belongs to the cluster the caller means ({@link EtcdCalls#requireCluster}), so that a
 * change never lands in another cluster behind the same names.
 */
final class EtcdMembership {
  private final EtcdCalls calls;
  private final Duration deadline;

  EtcdMembership(EtcdCalls calls, Duration deadline) {
    this.calls = calls;
    this.deadline = deadline;
  }

  MemberAdded addLearner(
      String clusterKey, String clientUrl, long expectedClusterId, String learnerPeerUrl) {
    calls.requireCluster(clusterKey, clientUrl, expectedClusterId, deadline);
    MemberAddRequest request =
        MemberAddRequest.newBuilder().addPeerURLs(learnerPeerUrl).setIsLearner(true).build();
    Deadline d = after(deadline);
    MemberAddResponse r =
        EtcdCalls.await(
            calls.call(clusterKey, clientUrl, ClusterGrpc.getMemberAddMethod(), request, d),
            clientUrl,
            d);
    return new MemberAdded(
        EtcdMessages.member(r.getMember()),
        EtcdMessages.memberList(clientUrl, r.getHeader(), r.getMembersList()));
  }

  PromoteResult promoteLearner(
      String clusterKey, String clientUrl, long expectedClusterId, long learnerId) {
    calls.requireCluster(clusterKey, clientUrl, expectedClusterId, deadline);
    MemberRemoveRequest request = MemberRemoveRequest.newBuilder().setID(learnerId).build();
    Deadline d = after(deadline);
    CompletableFuture<MemberRemoveResponse> promote =
        calls.call(clusterKey, clientUrl, EtcdMessages.MEMBER_PROMOTE, request, d);
    try {
      MemberRemoveResponse r = EtcdCalls.await(promote, clientUrl, d);
      return new PromoteResult.Promoted(
          EtcdMessages.memberList(clientUrl, r.getHeader(), r.getMembersList()));
    } catch (EtcdException e) {
      if (GrpcErrors.isLearnerNotReady(e.getCause())) {
        return new PromoteResult.NotReadyYet(e.detail());
      }
      throw e;
    }
  }

  EtcdMemberList removeMember(
      String clusterKey, String clientUrl, long expectedClusterId, long memberId) {
    calls.requireCluster(clusterKey, clientUrl, expectedClusterId, deadline);
    MemberRemoveRequest request = MemberRemoveRequest.newBuilder().setID(memberId).build();
    Deadline d = after(deadline);
    MemberRemoveResponse r =
        EtcdCalls.await(
            calls.call(clusterKey, clientUrl, ClusterGrpc.getMemberRemoveMethod(), request, d),
            clientUrl,
            d);
    return EtcdMessages.memberList(clientUrl, r.getHeader(), r.getMembersList());
  }

  EtcdMemberList updatePeerUrls(
      String clusterKey,
      String clientUrl,
      long expectedClusterId,
      long memberId,
      List<String> peerUrls) {
    calls.requireCluster(clusterKey, clientUrl, expectedClusterId, deadline);
    MemberUpdateRequest request =
        MemberUpdateRequest.newBuilder().setID(memberId).addAllPeerURLs(peerUrls).build();
    Deadline d = after(deadline);
    MemberUpdateResponse r =
        EtcdCalls.await(
            calls.call(clusterKey, clientUrl, ClusterGrpc.getMemberUpdateMethod(), request, d),
            clientUrl,
            d);
    return EtcdMessages.memberList(clientUrl, r.getHeader(), r.getMembersList());
  }

  void moveLeader(
      String clusterKey, String leaderClientUrl, long expectedClusterId, long targetMemberId) {
    calls.requireCluster(clusterKey, leaderClientUrl, expectedClusterId, deadline);
    MoveLeaderRequest request = MoveLeaderRequest.newBuilder().setTargetID(targetMemberId).build();
    Deadline d = after(deadline);
    EtcdCalls.await(
        calls.call(clusterKey, leaderClientUrl, MaintenanceGrpc.getMoveLeaderMethod(), request, d),
        leaderClientUrl,
        d);
  }

  private static Deadline after(Duration d) {
    return Deadline.after(d.toNanos(), TimeUnit.NANOSECONDS);
  }
}
