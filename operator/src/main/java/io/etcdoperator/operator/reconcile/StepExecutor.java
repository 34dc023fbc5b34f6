package io.etcdoperator.operator.reconcile;

import io.etcdoperator.operator.CallHook;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdFailure;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.PromoteResult;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.plan.Step;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the planner's one step: a membership call to etcd, or a pod or claim deletion.
 * Membership calls go to the leader (etcd 3.4 answers a promotion reliably only there, and moving
 * leadership is accepted only from it) and name the cluster ID the planner saw, so a call can never
 * land in another cluster. Expected failures become an outcome; the next reconcile is the retry.
 *
 * <p>Two refusals are "not yet", not failures: a learner etcd will not promote while it lags, and a
 * member add or remove etcd refuses as "unhealthy cluster" (with its default strict reconfig check,
 * until its leader has been connected to every voter for 5 s: after every member added, promoted or
 * restarted, so on every step of a scale-up).
 */
final class StepExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(StepExecutor.class);

  private final KubernetesClient client;
  private final EtcdService etcd;
  private final CallHook hook;

  /** What came of a step. */
  sealed interface Outcome {
    /** Done: an Event says what. */
    record Done(String reason, String message) implements Outcome {}

    /** Not done yet, and that is normal (a learner still catching up). */
    record NotYet(String message) implements Outcome {}

    /** An expected failure: a Warning Event says what; the next reconcile tries again. */
    record Failed(String message) implements Outcome {}

    /** There was nothing to do. */
    record Nothing() implements Outcome {}
  }

  StepExecutor(KubernetesClient client, EtcdService etcd, CallHook hook) {
    this.client = client;
    this.etcd = etcd;
    this.hook = hook;
  }

  Outcome execute(
      String namespace,
      String cluster,
      Step step,
      ClusterView view,
      Optional<EtcdClusterModel> model) {
    String key = namespace + "/" + cluster;
    try {
      if (step instanceof Step.CreateRebuildPod s) {
        Pod pod = model.orElseThrow().rebuildPod(s.survivorOrdinal());
        client.resource(pod).create();
        hook.after("k8s create Pod " + pod.getMetadata().getName());
        return new Outcome.Done("RebuildStarted", step.describe());
      }
      if (step instanceof Step.DeleteRebuildPod s) {
        client.pods().inNamespace(namespace).withName(Names.rebuildPod(cluster)).delete();
        hook.after("k8s delete Pod " + Names.rebuildPod(cluster));
        return new Outcome.Done("RebuildPodDeleted", step.describe());
      }
      return act(namespace, key, step, view);
    } catch (EtcdException e) {
      LOG.warn("Could not {}: {}", step.describe(), e.getMessage());
      return new Outcome.Failed(
          "could not " + step.describe() + ": " + e.failure() + " " + e.detail());
    }
  }

  private Outcome act(String namespace, String key, Step step, ClusterView view) {
    try {
      return reconfigure(namespace, key, step, view);
    } catch (EtcdException e) {
      if (e.failure() == EtcdFailure.UNHEALTHY_CLUSTER
          && (step instanceof Step.AddLearner || step instanceof Step.RemoveMember)) {
        return new Outcome.NotYet(
            "etcd refuses to "
                + step.describe()
                + " until its leader has been connected to every"
                + " voter for 5 s: "
                + e.detail());
      }
      throw e;
    }
  }

  private Outcome reconfigure(String namespace, String key, Step step, ClusterView view) {
    if (step instanceof Step.AddLearner s) {
      Target t = leader(view);
      var added = etcd.addLearner(key, t.endpoint(), t.clusterId(), s.peerUrl());
      hook.after("etcd addLearner " + s.name());
      return new Outcome.Done(
          "MemberAdded",
          "added " + s.name() + " as learner " + added.member().hexId() + " (" + s.peerUrl() + ")");
    }
    if (step instanceof Step.PromoteLearner s) {
      Target t = leader(view);
      PromoteResult result = etcd.promoteLearner(key, t.endpoint(), t.clusterId(), s.memberId());
      hook.after("etcd promoteLearner " + s.name());
      return result instanceof PromoteResult.NotReadyYet nr
          ? new Outcome.NotYet("learner " + s.name() + " is not in sync yet: " + nr.detail())
          : new Outcome.Done("MemberPromoted", "promoted " + s.name() + " to a voting member");
    }
    if (step instanceof Step.RemoveMember s) {
      Target t = leader(view);
      try {
        etcd.removeMember(key, t.endpoint(), t.clusterId(), s.memberId());
        hook.after("etcd removeMember " + s.name());
      } catch (EtcdException e) {
        if (e.failure() != EtcdFailure.MEMBER_NOT_FOUND) {
          throw e;
        }
      }
      return new Outcome.Done("MemberRemoved", "removed " + s.name() + ": " + s.reason());
    }
    if (step instanceof Step.MoveLeader s) {
      Target t = leader(view);
      etcd.moveLeader(key, t.endpoint(), t.clusterId(), s.toId());
      hook.after("etcd moveLeader " + s.from() + " -> " + s.to());
      return new Outcome.Done("LeaderMoved", "moved leadership from " + s.from() + " to " + s.to());
    }
    if (step instanceof Step.DeletePods s) {
      for (String pod : s.pods()) {
        client.pods().inNamespace(namespace).withName(pod).delete();
        hook.after("k8s delete Pod " + pod);
      }
      return new Outcome.Done("PodsDeleted", step.describe());
    }
    if (step instanceof Step.DeleteClaim s) {
      client.persistentVolumeClaims().inNamespace(namespace).withName(s.claim()).delete();
      hook.after("k8s delete PersistentVolumeClaim " + s.claim());
      return new Outcome.Done("ClaimDeleted", step.describe());
    }
    return new Outcome.Nothing();
  }

  private record Target(String endpoint, long clusterId) {}

  private static Target leader(ClusterView view) {
    Optional<MemberProbe> leader =
        view.probes().values().stream()
            .filter(p -> p.reachable() && p.memberId() != 0 && p.memberId() == p.leaderId())
            .findFirst();
    MemberProbe p =
        leader.orElseThrow(
            () ->
                new EtcdException(
                    EtcdFailure.NOT_LEADER, "", "no member answered as the leader", null));
    return new Target(p.endpoint(), p.clusterId());
  }
}
