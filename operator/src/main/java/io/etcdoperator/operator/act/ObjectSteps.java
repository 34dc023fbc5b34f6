package io.etcdoperator.operator.act;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.operator.model.Maintenance;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.plan.Conditions;
import io.etcdoperator.operator.plan.ScheduleViews;
import io.etcdoperator.operator.plan.Step;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * The steps that write Kubernetes objects: pod and claim deletions (each told to the cluster's
 * {@link StepExecutor.Scope}, so that the next reconcile sees it deleted before the cache does),
 * the rebuild pod, a claim's new size, and the StatefulSet deleted with its pods orphaned.
 */
final class ObjectSteps {
  private final StepCall call;
  private final KubernetesClient client;

  ObjectSteps(StepCall call, KubernetesClient client) {
    this.call = call;
    this.client = client;
  }

  Outcome deletePods(Step.DeletePods s) {
    for (String pod : s.pods()) {
      call.write(
          "delete",
          "Pod",
          pod,
          () -> client.pods().inNamespace(call.namespace()).withName(pod).delete());
      call.scope().deleted(Pod.class, pod, Deletions.How.GRACEFUL);
    }
    return new Outcome.Done("PodsDeleted", s.describe());
  }

  Outcome forceDeletePod(Step.ForceDeletePod s) {
    call.write(
        "delete",
        "Pod",
        s.pod(),
        () ->
            client
                .pods()
                .inNamespace(call.namespace())
                .withName(s.pod())
                .withGracePeriod(0)
                .delete());
    call.scope().deleted(Pod.class, s.pod(), Deletions.How.FORCED);
    return new Outcome.Done("PodForceDeleted", s.describe());
  }

  Outcome createRebuildPod(Step.CreateRebuildPod s) {
    Pod pod = call.model().orElseThrow().rebuildPod(s.survivorOrdinal());
    call.write("create", "Pod", pod.getMetadata().getName(), () -> client.resource(pod).create());
    return new Outcome.Done("RebuildStarted", s.describe());
  }

  Outcome createBackup(Step.CreateBackup s) {
    EtcdBackup backup = ScheduleViews.beforeChange(call.namespace(), call.cluster(), s);
    try {
      call.write("create", "EtcdBackup", s.name(), () -> client.resource(backup).create());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      return new Outcome.Nothing();
    }
    return new Outcome.Done("BackupBeforeChange", s.describe());
  }

  Outcome deleteRebuildPod(Step.DeleteRebuildPod s) {
    String pod = Names.rebuildPod(call.cluster());
    call.write(
        "delete",
        "Pod",
        pod,
        () -> client.pods().inNamespace(call.namespace()).withName(pod).delete());
    call.scope().deleted(Pod.class, pod, Deletions.How.GRACEFUL);
    return new Outcome.Done("RebuildPodDeleted", s.describe());
  }

  Outcome deleteClaim(Step.DeleteClaim s) {
    call.write(
        "delete",
        "PersistentVolumeClaim",
        s.claim(),
        () ->
            client
                .persistentVolumeClaims()
                .inNamespace(call.namespace())
                .withName(s.claim())
                .delete());
    call.scope().deleted(PersistentVolumeClaim.class, s.claim(), Deletions.How.GRACEFUL);
    return new Outcome.Done("ClaimDeleted", s.describe());
  }

  Outcome resizeClaim(Step.ResizeClaim s) {
    String patch = "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"" + s.size() + "\"}}}}";
    try {
      call.write(
          "patch",
          "PersistentVolumeClaim",
          s.claim(),
          () ->
              client
                  .persistentVolumeClaims()
                  .inNamespace(call.namespace())
                  .withName(s.claim())
                  .patch(PatchContext.of(PatchType.JSON_MERGE), patch));
    } catch (StepCall.Refused r) {
      return new Outcome.Failed(
          Conditions.VOLUME_EXPANSION_REFUSED,
          "could not grow claim "
              + s.claim()
              + " to "
              + s.size()
              + ": "
              + r.refusal().describe()
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

  Outcome recreateStatefulSet(Step.RecreateStatefulSet s) {
    String name = Names.statefulSet(call.cluster());
    call.write(
        "delete",
        "StatefulSet",
        name,
        () ->
            client
                .apps()
                .statefulSets()
                .inNamespace(call.namespace())
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
}
