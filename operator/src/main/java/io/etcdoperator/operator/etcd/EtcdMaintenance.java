package io.etcdoperator.operator.etcd;

import io.etcd.jetcd.api.AlarmMember;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.CompactionRequest;
import io.etcd.jetcd.api.DefragmentRequest;
import io.etcd.jetcd.api.HashKVRequest;
import io.etcd.jetcd.api.HashKVResponse;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.StatusResponse;
import io.grpc.Deadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The maintenance calls of {@link JetcdEtcdService}: defragment one member, compact the cluster's
 * history, disarm an alarm. Each first checks, with a Status call, that the member belongs to the
 * cluster the caller means (as membership changes do), and each carries its own deadline: a
 * defragmentation holds the member's backend for the whole copy of its database (etcd blocks every
 * read and write on that member meanwhile), so it gets far longer than a probe.
 */
final class EtcdMaintenance {
  private final EtcdCalls calls;
  private final Duration statusDeadline;

  EtcdMaintenance(EtcdCalls calls, Duration statusDeadline) {
    this.calls = calls;
    this.statusDeadline = statusDeadline;
  }

  DefragResult defragment(String clusterKey, String url, long expectedClusterId, Duration limit) {
    StatusResponse before = requireCluster(clusterKey, url, expectedClusterId);
    long start = System.nanoTime();
    Deadline deadline = after(limit);
    EtcdCalls.await(
        calls.call(
            clusterKey,
            url,
            MaintenanceGrpc.getDefragmentMethod(),
            DefragmentRequest.getDefaultInstance(),
            deadline),
        url,
        deadline);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    long sizeAfter = 0;
    long inUseAfter = 0;
    try {
      EtcdStatus after = status(clusterKey, url);
      sizeAfter = after.dbSize();
      inUseAfter = after.dbSizeInUse();
    } catch (EtcdException e) {
      // Defragmented all the same; the next probe tells the size.
    }
    return new DefragResult(url, before.getDbSize(), sizeAfter, inUseAfter, took);
  }

  /**
   * Compacts the history up to {@code revision} and waits until the compaction reached the backend
   * ({@code physical}), so that a defragmentation after it gives the space back. Returns false when
   * the history was compacted at or past {@code revision} already.
   */
  boolean compact(
      String clusterKey, String url, long expectedClusterId, long revision, Duration limit) {
    requireCluster(clusterKey, url, expectedClusterId);
    Deadline deadline = after(limit);
    try {
      EtcdCalls.await(
          calls.call(
              clusterKey,
              url,
              KVGrpc.getCompactMethod(),
              CompactionRequest.newBuilder().setRevision(revision).setPhysical(true).build(),
              deadline),
          url,
          deadline);
      return true;
    } catch (EtcdException e) {
      if (e.failure() == EtcdFailure.COMPACTED) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Deactivates every raised alarm of {@code type} (as {@code etcdctl alarm disarm} does: the list,
   * then each member's alarm); returns how many were raised.
   */
  int disarm(String clusterKey, String url, long expectedClusterId, String type) {
    requireCluster(clusterKey, url, expectedClusterId);
    int alarm = EtcdMessages.alarmNumber(type);
    Deadline deadline = after(statusDeadline);
    AlarmResponse raised = EtcdCalls.await(calls.alarms(clusterKey, url, deadline), url, deadline);
    int disarmed = 0;
    for (AlarmMember m : raised.getAlarmsList()) {
      if (m.getAlarmValue() != alarm) {
        continue;
      }
      AlarmRequest request =
          AlarmRequest.newBuilder()
              .setAction(AlarmRequest.AlarmAction.DEACTIVATE)
              .setMemberID(m.getMemberID())
              .setAlarmValue(alarm)
              .build();
      Deadline each = after(statusDeadline);
      EtcdCalls.await(
          calls.call(clusterKey, url, MaintenanceGrpc.getAlarmMethod(), request, each), url, each);
      disarmed++;
    }
    return disarmed;
  }

  private EtcdStatus status(String clusterKey, String url) {
    Deadline deadline = after(statusDeadline);
    return EtcdMessages.status(
        url, EtcdCalls.await(calls.status(clusterKey, url, deadline), url, deadline));
  }

  HashKv hashKv(String clusterKey, String url, long revision, Duration limit) {
    Deadline deadline = after(limit);
    HashKVResponse r =
        EtcdCalls.await(
            calls.call(
                clusterKey,
                url,
                MaintenanceGrpc.getHashKVMethod(),
                HashKVRequest.newBuilder().setRevision(revision).build(),
                deadline),
            url,
            deadline);
    return new HashKv(
        url,
        r.getHeader().getMemberId(),
        revision,
        r.getCompactRevision(),
        Integer.toUnsignedLong(r.getHash()),
        r.getHeader().getRevision());
  }

  private StatusResponse requireCluster(String clusterKey, String url, long expectedClusterId) {
    return calls.requireCluster(clusterKey, url, expectedClusterId, statusDeadline);
  }

  private static Deadline after(Duration d) {
    return Deadline.after(d.toNanos(), TimeUnit.NANOSECONDS);
  }
}
