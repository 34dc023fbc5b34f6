package io.etcdoperator.operator.act;

import io.etcdoperator.operator.etcd.DefragResult;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdFailure;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.PromoteResult;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.plan.Step;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the planner's one step: a membership call to etcd ({@link #addLearner} and the other
 * cases here), a maintenance call ({@link MaintenanceSteps}), or a pod, claim or StatefulSet write
 * ({@link ObjectSteps}). Membership calls go to the leader (etcd 3.4 answers a promotion reliably
 * only there, and moving leadership is accepted only from it) and name the cluster ID the planner
 * saw, so a call can never land in another cluster. Every kind of step has its own case ({@link
 * Step.Cases}): a step nobody handles does not compile.
 *
 * <p>Expected failures become an {@link Outcome}: etcd refusing a call, and the API server refusing
 * a write ({@link ApiRefusal}); the next reconcile is the retry. Two refusals are "not yet", not
 * failures: a learner etcd will not promote while it lags, and a member add or remove etcd refuses
 * as "unhealthy cluster" (with its default strict reconfig check, until its leader has been
 * connected to every voter for 5 s: after every member added, promoted or restarted, so on every
 * step of a scale-up). Anything else propagates, for the framework's retry with back-off.
 *
 * <p>One executor serves every cluster; what a step must tell its cluster goes to the {@link Scope}
 * it is taken in.
 */
public final class StepExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(StepExecutor.class);

  private final KubernetesClient client;
  private final EtcdService etcd;
  private final CallHook hook;
  private final Clock clock;

  /** The cluster a step is taken on, and what the executor tells it. */
  public interface Scope {
    String namespace();

    String cluster();

    /**
     * Writes one annotation of the cluster-state ConfigMap (a maintenance record) so that the next
     * reconcile reads it; a refused write propagates as the client's exception.
     */
    void annotate(String key, String value);

    /**
     * Told of every pod and claim deleted, once the API server accepted it, so that the next
     * reconcile sees it deleted ({@link Deletions}).
     */
    void deleted(Class<? extends HasMetadata> type, String name, Deletions.How how);

    /** Told of every defragmentation, for the metrics; {@code result} is empty when it failed. */
    void defragmented(String member, Optional<DefragResult> result);
  }

  public StepExecutor(KubernetesClient client, EtcdService etcd, CallHook hook, Clock clock) {
    this.client = client;
    this.etcd = etcd;
    this.hook = hook;
    this.clock = clock;
  }

  /** Takes {@code step} on the cluster of {@code scope}, as {@code view} saw it. */
  public Outcome execute(
      Scope scope, Step step, ClusterView view, Optional<EtcdClusterModel> model) {
    StepCall call = new StepCall(scope, view, model, client, hook);
    try {
      return step.accept(new Cases(call));
    } catch (EtcdException e) {
      LOG.warn("Could not {}: {}", step.describe(), e.getMessage());
      return new Outcome.Failed(
          "EtcdRefused", "could not " + step.describe() + ": " + e.failure() + " " + e.detail());
    } catch (StepCall.Refused r) {
      return new Outcome.Failed(
          "ApiRefused", "could not " + step.describe() + ": " + r.refusal().describe());
    }
  }

  /** Membership calls here; maintenance and objects in their own classes. */
  private final class Cases implements Step.Cases<Outcome> {
    private final StepCall call;
    private final String key;
    private final MaintenanceSteps maintenance;
    private final ObjectSteps objects;

    Cases(StepCall call) {
      this.call = call;
      this.key = call.key();
      this.maintenance = new MaintenanceSteps(call, etcd, hook, clock);
      this.objects = new ObjectSteps(call, client);
    }

    @Override
    public Outcome none(Step.None s) {
      return new Outcome.Nothing();
    }

    @Override
    public Outcome await(Step.Wait s) {
      return new Outcome.Nothing();
    }

    @Override
    public Outcome addLearner(Step.AddLearner s) {
      StepCall.Leader t = call.leader();
      try {
        var added = etcd.addLearner(key, t.endpoint(), t.clusterId(), s.peerUrl());
        hook.after("etcd addLearner " + s.name());
        return new Outcome.Done(
            "MemberAdded",
            "added "
                + s.name()
                + " as learner "
                + added.member().hexId()
                + " ("
                + s.peerUrl()
                + ")");
      } catch (EtcdException e) {
        return notYetIfUnhealthy(s, e);
      }
    }

    @Override
    public Outcome promoteLearner(Step.PromoteLearner s) {
      StepCall.Leader t = call.leader();
      PromoteResult result = etcd.promoteLearner(key, t.endpoint(), t.clusterId(), s.memberId());
      hook.after("etcd promoteLearner " + s.name());
      return result instanceof PromoteResult.NotReadyYet nr
          ? new Outcome.NotYet("learner " + s.name() + " is not in sync yet: " + nr.detail())
          : new Outcome.Done("MemberPromoted", "promoted " + s.name() + " to a voting member");
    }

    @Override
    public Outcome removeMember(Step.RemoveMember s) {
      StepCall.Leader t = call.leader();
      try {
        etcd.removeMember(key, t.endpoint(), t.clusterId(), s.memberId());
        hook.after("etcd removeMember " + s.name());
      } catch (EtcdException e) {
        if (e.failure() != EtcdFailure.MEMBER_NOT_FOUND) {
          return notYetIfUnhealthy(s, e);
        }
      }
      return new Outcome.Done("MemberRemoved", "removed " + s.name() + ": " + s.reason());
    }

    @Override
    public Outcome updatePeerUrl(Step.UpdatePeerUrl s) {
      StepCall.Leader t = call.leader();
      try {
        etcd.updatePeerUrls(key, t.endpoint(), t.clusterId(), s.memberId(), List.of(s.to()));
        hook.after("etcd updatePeerUrl " + s.name());
      } catch (EtcdException e) {
        return notYetIfUnhealthy(s, e);
      }
      return new Outcome.Done(
          "MemberPeerUrlUpdated",
          "updated " + s.name() + "'s peer URL from " + s.from() + " to " + s.to());
    }

    @Override
    public Outcome enableAuth(Step.EnableAuth s) {
      StepCall.Leader t = call.leader();
      etcd.enableAuth(key, t.endpoint(), s.user());
      hook.after("etcd enableAuth");
      return new Outcome.Done(
          "AuthEnabled",
          "enabled authentication; users root and "
              + s.user()
              + " are root, without password"
              + " (they authenticate by certificate)");
    }

    @Override
    public Outcome disableAuth(Step.DisableAuth s) {
      StepCall.Leader t = call.leader();
      etcd.disableAuth(key, t.endpoint());
      hook.after("etcd disableAuth");
      return new Outcome.Done("AuthDisabled", "disabled authentication; its users and roles stay");
    }

    @Override
    public Outcome moveLeader(Step.MoveLeader s) {
      StepCall.Leader t = call.leader();
      etcd.moveLeader(key, t.endpoint(), t.clusterId(), s.toId());
      hook.after("etcd moveLeader " + s.from() + " -> " + s.to());
      return new Outcome.Done("LeaderMoved", "moved leadership from " + s.from() + " to " + s.to());
    }

    @Override
    public Outcome deletePods(Step.DeletePods s) {
      return objects.deletePods(s);
    }

    @Override
    public Outcome forceDeletePod(Step.ForceDeletePod s) {
      return objects.forceDeletePod(s);
    }

    @Override
    public Outcome createRebuildPod(Step.CreateRebuildPod s) {
      return objects.createRebuildPod(s);
    }

    @Override
    public Outcome deleteRebuildPod(Step.DeleteRebuildPod s) {
      return objects.deleteRebuildPod(s);
    }

    @Override
    public Outcome deleteClaim(Step.DeleteClaim s) {
      return objects.deleteClaim(s);
    }

    @Override
    public Outcome resizeClaim(Step.ResizeClaim s) {
      return objects.resizeClaim(s);
    }

    @Override
    public Outcome recreateStatefulSet(Step.RecreateStatefulSet s) {
      return objects.recreateStatefulSet(s);
    }

    @Override
    public Outcome createBackup(Step.CreateBackup s) {
      return objects.createBackup(s);
    }

    @Override
    public Outcome defragment(Step.Defragment s) {
      return maintenance.defragment(s);
    }

    @Override
    public Outcome compact(Step.Compact s) {
      return maintenance.compact(s);
    }

    @Override
    public Outcome disarm(Step.Disarm s) {
      return maintenance.disarm(s);
    }

    private Outcome notYetIfUnhealthy(Step step, EtcdException e) {
      if (e.failure() == EtcdFailure.UNHEALTHY_CLUSTER) {
        return new Outcome.NotYet(
            "etcd refuses to "
                + step.describe()
                + " until its leader has been connected to every voter for 5 s: "
                + e.detail());
      }
      throw e;
    }
  }
}
