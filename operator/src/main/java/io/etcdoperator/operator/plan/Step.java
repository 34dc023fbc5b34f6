package io.etcdoperator.operator.plan;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import java.util.List;

/**
 * The one change the planner asks for in a reconcile, besides keeping the Kubernetes objects as
 * desired. Each step is idempotent: repeating it after a crash, or planning again from the world it
 * produced, leads to the same cluster.
 *
 * <p>{@link #accept} is the exhaustive switch over the steps (Java 17 has no pattern-matching
 * switch): every step calls its own method of {@link Cases}, so a new step that an executor does
 * not handle does not compile.
 */
public sealed interface Step {
  /** A sentence for logs and Events. */
  String describe();

  /** Calls the method of {@code cases} that handles this kind of step. */
  <R> R accept(Cases<R> cases);

  /** One method per kind of step. */
  interface Cases<R> {
    R none(None step);

    R await(Wait step);

    R addLearner(AddLearner step);

    R promoteLearner(PromoteLearner step);

    R removeMember(RemoveMember step);

    R updatePeerUrl(UpdatePeerUrl step);

    R moveLeader(MoveLeader step);

    R deletePods(DeletePods step);

    R forceDeletePod(ForceDeletePod step);

    R createRebuildPod(CreateRebuildPod step);

    R deleteRebuildPod(DeleteRebuildPod step);

    R deleteClaim(DeleteClaim step);

    R enableAuth(EnableAuth step);

    R disableAuth(DisableAuth step);

    R defragment(Defragment step);

    R compact(Compact step);

    R disarm(Disarm step);

    R resizeClaim(ResizeClaim step);

    R recreateStatefulSet(RecreateStatefulSet step);

    R createBackup(CreateBackup step);
  }

  /** Nothing to change now. */
  record None() implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.none(this);
    }

    @Override
    public String describe() {
      return "nothing to do";
    }
  }

  /** Nothing to change now, because something must happen first; says what. */
  record Wait(String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.await(this);
    }

    @Override
    public String describe() {
      return "waiting: " + reason;
    }
  }

  /** Add the member of {@code ordinal} as a learner (its pod then starts and joins). */
  record AddLearner(int ordinal, String name, String peerUrl) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.addLearner(this);
    }

    @Override
    public String describe() {
      return "add " + name + " as a learner";
    }
  }

  /** Promote a learner that has caught up; etcd refusing because it has not is "not yet". */
  record PromoteLearner(int ordinal, String name, long memberId) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.promoteLearner(this);
    }

    @Override
    public String describe() {
      return "promote learner " + name;
    }
  }

  /** Remove a member from the cluster. */
  record RemoveMember(int ordinal, String name, long memberId, String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.removeMember(this);
    }

    @Override
    public String describe() {
      return "remove member " + name + " (" + reason + ")";
    }
  }

  /**
   * Change the peer URL etcd's member list records for a member ({@code member update}), which
   * every member then dials it at; the member must already serve that URL.
   */
  record UpdatePeerUrl(int ordinal, String name, long memberId, String from, String to)
      implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.updatePeerUrl(this);
    }

    @Override
    public String describe() {
      return "update member " + name + "'s peer URL from " + from + " to " + to;
    }
  }

  /** Hand leadership from the current leader to another voter, before restarting or removing it. */
  record MoveLeader(String from, long fromId, int fromOrdinal, String to, long toId, int toOrdinal)
      implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.moveLeader(this);
    }

    @Override
    public String describe() {
      return "move leadership from " + from + " to " + to;
    }
  }

  /** Delete pods so that the StatefulSet recreates them from the current template. */
  record DeletePods(List<String> pods, String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.deletePods(this);
    }

    public DeletePods {
      pods = List.copyOf(pods);
    }

    @Override
    public String describe() {
      return "delete pod"
          + (pods.size() > 1 ? "s " : " ")
          + String.join(", ", pods)
          + " ("
          + reason
          + ")";
    }
  }

  /** Start the pod that rebuilds the cluster from a survivor's data with --force-new-cluster. */
  record CreateRebuildPod(int survivorOrdinal, String survivor) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.createRebuildPod(this);
    }

    @Override
    public String describe() {
      return "start rebuilding the cluster from " + survivor + " (--force-new-cluster on its data)";
    }
  }

  /** Delete the rebuild pod. */
  record DeleteRebuildPod(String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.deleteRebuildPod(this);
    }

    @Override
    public String describe() {
      return "delete the rebuild pod (" + reason + ")";
    }
  }

  /** Delete a claim whose data belongs to a member that is no longer in the cluster. */
  record DeleteClaim(int ordinal, String claim, String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.deleteClaim(this);
    }

    @Override
    public String describe() {
      return "delete claim " + claim + " (" + reason + ")";
    }
  }

  /**
   * Turn etcd's authentication on: root role and user, {@code user} (the CN of the operator's
   * client certificate) made root, then AuthEnable.
   */
  record EnableAuth(String user) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.enableAuth(this);
    }

    @Override
    public String describe() {
      return "enable authentication (the operator acts as " + user + ", by its certificate)";
    }
  }

  /** Turn etcd's authentication off (spec.security.enableAuth is no longer true). */
  record DisableAuth() implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.disableAuth(this);
    }

    @Override
    public String describe() {
      return "disable authentication";
    }
  }

  /**
   * Defragment one member (etcd's Maintenance/Defragment, local to it: it serves nothing until it
   * is done), measured and recorded on the cluster-state ConfigMap.
   */
  record Defragment(int ordinal, String name, long memberId, String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.defragment(this);
    }

    @Override
    public String describe() {
      return "defragment " + name + " (" + reason + ")";
    }
  }

  /**
   * Compact the cluster's history up to {@code revision} (through raft), recorded on the
   * cluster-state ConfigMap.
   */
  record Compact(long revision, String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.compact(this);
    }

    @Override
    public String describe() {
      return "compact the history up to revision " + revision + " (" + reason + ")";
    }
  }

  /** Disarm every raised alarm of this type. */
  record Disarm(String alarm, String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.disarm(this);
    }

    @Override
    public String describe() {
      return "disarm the " + alarm + " alarm (" + reason + ")";
    }
  }

  /** Grow a member's claim to {@code size} ({@code spec.resources.requests.storage}). */
  record ResizeClaim(int ordinal, String claim, String size, String from) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.resizeClaim(this);
    }

    @Override
    public String describe() {
      return "grow claim " + claim + " from " + from + " to " + size;
    }
  }

  /**
   * Delete the StatefulSet with its pods orphaned (they keep running), so that it is created again
   * with the claim template the spec asks for: a StatefulSet's claim template cannot be updated.
   */
  record RecreateStatefulSet(String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.recreateStatefulSet(this);
    }

    @Override
    public String describe() {
      return "delete the StatefulSet, its pods orphaned and running, to create it again ("
          + reason
          + ")";
    }
  }

  /**
   * Delete a pod with grace period 0, without waiting for its kubelet: only for a pod on a lost
   * node whose member is no longer in etcd (see {@link NodeRules}).
   */
  record ForceDeletePod(String pod, String reason) implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.forceDeletePod(this);
    }

    @Override
    public String describe() {
      return "force-delete pod " + pod + " (" + reason + ")";
    }
  }

  /**
   * Create the EtcdBackup {@code name} of this cluster to {@code destination} (the schedule's), as
   * the backup before {@code change} (labelled {@code kind}: upgrade or hibernation); the backup
   * controller takes it. An EtcdBackup of that name that exists already is left as it is.
   */
  record CreateBackup(
      String name, String schedule, BackupDestination destination, String change, String kind)
      implements Step {
    @Override
    public <R> R accept(Cases<R> cases) {
      return cases.createBackup(this);
    }

    @Override
    public String describe() {
      return "create EtcdBackup "
          + name
          + " (to the destination of EtcdBackupSchedule "
          + schedule
          + ") before "
          + change;
    }
  }
}
