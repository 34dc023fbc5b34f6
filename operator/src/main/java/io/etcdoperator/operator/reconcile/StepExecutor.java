package io.etcdoperator.operator.reconcile;

import io.etcdoperator.operator.CallHook;
import io.etcdoperator.operator.etcd.DefragResult;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdFailure;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.PromoteResult;
import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.model.Maintenance;
import io.etcdoperator.operator.model.MaintenanceRecord;
import io.etcdoperator.operator.model.MaintenanceRecord.Defragmentation;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.plan.Conditions;
import io.etcdoperator.operator.plan.Step;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the planner's one step: a membership call to etcd, or a pod or claim deletion.
 * Membership calls go to the leader (etcd 3.4 answers a promotion reliably only there, and moving
 * leadership is accepted only from it) and name the cluster ID the planner saw, so a call can never
 * land in another cluster. Every kind of step has its own case ({@link Step.Cases}): a step nobody
 * handles does not compile.
 *
 * <p>Expected failures become an outcome: etcd refusing a call, and the API server refusing a write
 * ({@link ApiRefusal}); the next reconcile is the retry. Two refusals are "not yet", not failures:
 * a learner etcd will not promote while it lags, and a member add or remove etcd refuses as
 * "unhealthy cluster" (with its default strict reconfig check, until its leader has been connected
 * to every voter for 5 s: after every member added, promoted or restarted, so on every step of a
 * scale-up). Anything else propagates, for the framework's retry with back-off.
 */
final class StepExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(StepExecutor.class);

  /** How long a defragmentation may take: etcd copies the member's whole database meanwhile. */
  static final Duration DEFRAGMENT_DEADLINE = Duration.ofMinutes(5);

  /** How long a compaction may take to reach the backend. */
  static final Duration COMPACT_DEADLINE = Duration.ofMinutes(1);

  private final KubernetesClient client;
  private final EtcdService etcd;
  private final CallHook hook;
  private final Clock clock;
  private final Records records;
  private final Maintained maintained;
  private final Deleted deleted;

  /**
   * Writes what the operator must remember of its maintenance: an annotation of the cluster-state
   * ConfigMap.
   */
  interface Records {
    Records NONE = (namespace, cluster, key, value) -> {};

    void annotate(String namespace, String cluster, String key, String value);
  }

  /** Told of every defragmentation, for the metrics. */
  interface Maintained {
    Maintained NONE = (namespace, cluster, member, result) -> {};

    /** {@code result} is empty when it failed. */
    void defragmented(
        String namespace, String cluster, String member, Optional<DefragResult> result);
  }

  /**
   * Told of every pod and claim deleted, once the API server accepted it, so that the next
   * reconcile sees it deleted (see {@link Deletions}).
   */
  interface Deleted {
    Deleted NONE = (type, name, how) -> {};

    void deleted(Class<? extends HasMetadata> type, String name, Deletions.How how);
  }

  /** What came of a step. */
  sealed interface Outcome {
    /** Done: an Event says what. */
    record Done(String reason, String message) implements Outcome {}

    /** Not done yet, and that is normal (a learner still catching up). */
    record NotYet(String message) implements Outcome {}

    /**
     * An expected failure: a condition and a Warning Event say what; the next reconcile tries
     * again.
     */
    record Failed(String reason, String message) implements Outcome {}

    /** There was nothing to do. */
    record Nothing() implements Outcome {}
  }

  StepExecutor(KubernetesClient client, EtcdService etcd, CallHook hook) {
    this(client, etcd, hook, Clock.systemUTC(), Records.NONE, Maintained.NONE);
  }

  StepExecutor(
      KubernetesClient client,
      EtcdService etcd,
      CallHook hook,
      Clock clock,
      Records records,
      Maintained maintained) {
    this(client, etcd, hook, clock, records, maintained, Deleted.NONE);
  }

  StepExecutor(
      KubernetesClient client,
      EtcdService etcd,
      CallHook hook,
      Clock clock,
      Records records,
      Maintained maintained,
      Deleted deleted) {
    this.deleted = deleted;
    this.client = client;
    this.etcd = etcd;
    this.hook = hook;
    this.clock = clock;
    this.records = records;
    this.maintained = maintained;
  }

  Outcome execute(
      String namespace,
      String cluster,
      Step step,
      ClusterView view,
      Optional<EtcdClusterModel> model) {
    try {
      return step.accept(new Cases(namespace, cluster, view, model));
    } catch (EtcdException e) {
      LOG.warn("Could not {}: {}", step.describe(), e.getMessage());
      return new Outcome.Failed(
          "EtcdRefused", "could not " + step.describe() + ": " + e.failure() + " " + e.detail());
    } catch (Refused r) {
      return new Outcome.Failed(
          "ApiRefused", "could not " + step.describe() + ": " + r.refusal.describe());
    }
  }

  /** An API refusal, carried out of a case to {@link #execute}. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient ApiRefusal refusal;

    Refused(ApiRefusal refusal, KubernetesClientException cause) {
      super(refusal.describe(), cause);
      this.refusal = refusal;
    }
  }

  private final class Cases implements Step.Cases<Outcome> {
    private final String namespace;
    private final String cluster;
    private final String key;
    private final ClusterView view;
    private final Optional<EtcdClusterModel> model;

    Cases(String namespace, String cluster, ClusterView view, Optional<EtcdClusterModel> model) {
      this.namespace = namespace;
      this.cluster = cluster;
      this.key = namespace + "/" + cluster;
      this.view = view;
      this.model = model;
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
      Leader t = leader(view);
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
      Leader t = leader(view);
      PromoteResult result = etcd.promoteLearner(key, t.endpoint(), t.clusterId(), s.memberId());
      hook.after("etcd promoteLearner " + s.name());
      return result instanceof PromoteResult.NotReadyYet nr
          ? new Outcome.NotYet("learner " + s.name() + " is not in sync yet: " + nr.detail())
          : new Outcome.Done("MemberPromoted", "promoted " + s.name() + " to a voting member");
    }

    @Override
    public Outcome removeMember(Step.RemoveMember s) {
      Leader t = leader(view);
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
      Leader t = leader(view);
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
      Leader t = leader(view);
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
      Leader t = leader(view);
      etcd.disableAuth(key, t.endpoint());
      hook.after("etcd disableAuth");
      return new Outcome.Done("AuthDisabled", "disabled authentication; its users and roles stay");
    }

    @Override
    public Outcome moveLeader(Step.MoveLeader s) {
      Leader t = leader(view);
      etcd.moveLeader(key, t.endpoint(), t.clusterId(), s.toId());
      hook.after("etcd moveLeader " + s.from() + " -> " + s.to());
      return new Outcome.Done("LeaderMoved", "moved leadership from " + s.from() + " to " + s.to());
    }

    @Override
    public Outcome deletePods(Step.DeletePods s) {
      for (String pod : s.pods()) {
        write(
            "delete",
            "Pod",
            pod,
            () -> client.pods().inNamespace(namespace).withName(pod).delete());
        deleted.deleted(Pod.class, pod, Deletions.How.GRACEFUL);
      }
      return new Outcome.Done("PodsDeleted", s.describe());
    }

    @Override
    public Outcome forceDeletePod(Step.ForceDeletePod s) {
      write(
          "delete",
          "Pod",
          s.pod(),
          () -> client.pods().inNamespace(namespace).withName(s.pod()).withGracePeriod(0).delete());
      deleted.deleted(Pod.class, s.pod(), Deletions.How.FORCED);
      return new Outcome.Done("PodForceDeleted", s.describe());
    }

    @Override
    public Outcome createRebuildPod(Step.CreateRebuildPod s) {
      Pod pod = model.orElseThrow().rebuildPod(s.survivorOrdinal());
      write("create", "Pod", pod.getMetadata().getName(), () -> client.resource(pod).create());
      return new Outcome.Done("RebuildStarted", s.describe());
    }

    @Override
    public Outcome deleteRebuildPod(Step.DeleteRebuildPod s) {
      String pod = Names.rebuildPod(cluster);
      write(
          "delete", "Pod", pod, () -> client.pods().inNamespace(namespace).withName(pod).delete());
      deleted.deleted(Pod.class, pod, Deletions.How.GRACEFUL);
      return new Outcome.Done("RebuildPodDeleted", s.describe());
    }

    @Override
    public Outcome deleteClaim(Step.DeleteClaim s) {
      write(
          "delete",
          "PersistentVolumeClaim",
          s.claim(),
          () ->
              client.persistentVolumeClaims().inNamespace(namespace).withName(s.claim()).delete());
      deleted.deleted(PersistentVolumeClaim.class, s.claim(), Deletions.How.GRACEFUL);
      return new Outcome.Done("ClaimDeleted", s.describe());
    }

    @Override
    public Outcome defragment(Step.Defragment s) {
      Leader t = leader(view);
      String url = view.probe(s.ordinal()).map(MemberProbe::endpoint).orElse(t.endpoint());
      long before = view.probe(s.ordinal()).map(MemberProbe::dbSize).orElse(0L);
      try {
        DefragResult r = etcd.defragment(key, url, t.clusterId(), DEFRAGMENT_DEADLINE);
        hook.after("etcd defragment " + s.name());
        record(
            s.name(),
            new Defragmentation(
                clock.instant(), r.took(), r.sizeBefore(), r.sizeAfter(), Optional.empty()));
        maintained.defragmented(namespace, cluster, s.name(), Optional.of(r));
        return new Outcome.Done(
            "Defragmented",
            "defragmented "
                + s.name()
                + ": "
                + Maintenance.human(r.sizeBefore())
                + " -> "
                + Maintenance.human(r.sizeAfter())
                + " ("
                + Maintenance.human(r.freed())
                + " given back) in "
                + String.format(Locale.ROOT, "%.3f s", r.took().toMillis() / 1000.0)
                + "; "
                + s.reason());
      } catch (EtcdException e) {
        record(
            s.name(),
            new Defragmentation(
                clock.instant(),
                Duration.ZERO,
                before,
                0,
                Optional.of(e.failure() + ": " + e.detail())));
        maintained.defragmented(namespace, cluster, s.name(), Optional.empty());
        return new Outcome.Failed(
            "DefragmentationFailed",
            "could not defragment "
                + s.name()
                + ": "
                + e.failure()
                + " "
                + e.detail()
                + "; no other member is defragmented in this round");
      }
    }

    @Override
    public Outcome compact(Step.Compact s) {
      Leader t = leader(view);
      boolean now = etcd.compact(key, t.endpoint(), t.clusterId(), s.revision(), COMPACT_DEADLINE);
      hook.after("etcd compact " + s.revision());
      write(
          "patch",
          "ConfigMap",
          Names.clusterStateConfigMap(cluster),
          () ->
              records.annotate(
                  namespace,
                  cluster,
                  Names.COMPACTED_ANNOTATION,
                  new MaintenanceRecord.Compaction(s.revision(), clock.instant()).value()));
      return new Outcome.Done(
          "Compacted",
          "compacted the history up to revision "
              + s.revision()
              + (now ? "" : " (it was compacted that far already)")
              + "; "
              + s.reason());
    }

    @Override
    public Outcome disarm(Step.Disarm s) {
      Leader t = leader(view);
      int n = etcd.disarm(key, t.endpoint(), t.clusterId(), s.alarm());
      hook.after("etcd disarm " + s.alarm());
      return new Outcome.Done(
          "AlarmDisarmed",
          "disarmed "
              + s.alarm()
              + (n == 1 ? " (1 alarm)" : " (" + n + " alarms)")
              + ": writes are accepted again; "
              + s.reason());
    }

    @Override
    public Outcome resizeClaim(Step.ResizeClaim s) {
      String patch = "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"" + s.size() + "\"}}}}";
      try {
        write(
            "patch",
            "PersistentVolumeClaim",
            s.claim(),
            () ->
                client
                    .persistentVolumeClaims()
                    .inNamespace(namespace)
                    .withName(s.claim())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), patch));
      } catch (Refused r) {
        return new Outcome.Failed(
            Conditions.VOLUME_EXPANSION_REFUSED,
            "could not grow claim "
                + s.claim()
                + " to "
                + s.size()
                + ": "
                + r.refusal.describe()
                + "; "
                + Maintenance.STORAGE_FIELD
                + ": set it back to "
                + s.from()
                + ", or give the claims a StorageClass that allows volume expansion");
      }
      return new Outcome.Done(
          "ClaimResized",
          "asked claim " + s.claim() + " to grow from " + s.from() + " to " + s.size());
    }

    @Override
    public Outcome recreateStatefulSet(Step.RecreateStatefulSet s) {
      String name = Names.statefulSet(cluster);
      write(
          "delete",
          "StatefulSet",
          name,
          () ->
              client
                  .apps()
                  .statefulSets()
                  .inNamespace(namespace)
                  .withName(name)
                  .withPropagationPolicy(DeletionPropagation.ORPHAN)
                  .delete());
      return new Outcome.Done(
          "StatefulSetRecreated",
          "deleted StatefulSet "
              + name
              + " with its pods orphaned (they keep running); it is created again at once with"
              + " the new claim template: "
              + s.reason());
    }

    private void record(String member, Defragmentation r) {
      ClusterState state =
          view.clusterState().orElse(new ClusterState(ClusterState.Kind.EXISTING, List.of(), ""));
      write(
          "patch",
          "ConfigMap",
          Names.clusterStateConfigMap(cluster),
          () ->
              records.annotate(
                  namespace,
                  cluster,
                  Names.DEFRAGMENTED_ANNOTATION,
                  MaintenanceRecord.withDefragmentation(state, member, r)));
    }

    /** One API write; a refusal leaves through {@link Refused}, anything else propagates. */
    private void write(String verb, String kind, String name, Runnable call) {
      try {
        call.run();
      } catch (KubernetesClientException e) {
        throw ApiRefusal.of(verb, kind, name, e).map(r -> new Refused(r, e)).orElseThrow(() -> e);
      }
      hook.after("k8s " + verb + " " + kind + " " + name);
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

  private record Leader(String endpoint, long clusterId) {}

  private static Leader leader(ClusterView view) {
    Optional<MemberProbe> leader =
        view.probes().values().stream()
            .filter(p -> p.reachable() && p.memberId() != 0 && p.memberId() == p.leaderId())
            .findFirst();
    MemberProbe p =
        leader.orElseThrow(
            () ->
                new EtcdException(
                    EtcdFailure.NOT_LEADER, "", "no member answered as the leader", null));
    return new Leader(p.endpoint(), p.clusterId());
  }
}
