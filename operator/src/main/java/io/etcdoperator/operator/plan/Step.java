package io.etcdoperator.operator.plan;

import java.util.List;

/**
 * The one change the planner asks for in a reconcile, besides keeping the Kubernetes objects as
 * desired. Each step is idempotent: repeating it after a crash, or planning again from the world it
 * produced, leads to the same cluster.
 */
public sealed interface Step {
  /** A sentence for logs and Events. */
  String describe();

  /** Nothing to change now. */
  record None() implements Step {
    @Override
    public String describe() {
      return "nothing to do";
    }
  }

  /** Nothing to change now, because something must happen first; says what. */
  record Wait(String reason) implements Step {
    @Override
    public String describe() {
      return "waiting: " + reason;
    }
  }

  /** Add the member of {@code ordinal} as a learner (its pod then starts and joins). */
  record AddLearner(int ordinal, String name, String peerUrl) implements Step {
    @Override
    public String describe() {
      return "add " + name + " as a learner";
    }
  }

  /** Promote a learner that has caught up; etcd refusing because it has not is "not yet". */
  record PromoteLearner(int ordinal, String name, long memberId) implements Step {
    @Override
    public String describe() {
      return "promote learner " + name;
    }
  }

  /** Remove a member from the cluster. */
  record RemoveMember(int ordinal, String name, long memberId, String reason) implements Step {
    @Override
    public String describe() {
      return "remove member " + name + " (" + reason + ")";
    }
  }

  /** Hand leadership from the current leader to another voter, before restarting or removing it. */
  record MoveLeader(String from, long fromId, int fromOrdinal, String to, long toId, int toOrdinal)
      implements Step {
    @Override
    public String describe() {
      return "move leadership from " + from + " to " + to;
    }
  }

  /** Delete pods so that the StatefulSet recreates them from the current template. */
  record DeletePods(List<String> pods, String reason) implements Step {
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

  /** Delete a claim whose data belongs to a member that is no longer in the cluster. */
  record DeleteClaim(int ordinal, String claim, String reason) implements Step {
    @Override
    public String describe() {
      return "delete claim " + claim + " (" + reason + ")";
    }
  }
}
