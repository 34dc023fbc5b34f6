package io.etcdoperator.sandbox.controller;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Deployment controller, one pass over every Deployment at a time: a Deployment owns
 * ReplicaSets, one per pod template it has had, and moves replicas from the old ones to the new one
 * ({@link Rollout}); the {@link ReplicaSetController} makes the pods.
 *
 * <p>For each Deployment not being deleted:
 *
 * <ol>
 *   <li>Its ReplicaSets are those it controls; one no controller owns whose labels its selector
 *       matches is adopted.
 *   <li>The template's hash ({@code pod-template-hash}) names the new ReplicaSet, {@code
 *       <deployment>-<hash>}: the template and the selector with that label added, the Deployment
 *       as controlling owner, annotation {@code deployment.kubernetes.io/revision} one above the
 *       highest of the others. It is created (with 0 replicas) when none has that hash.
 *   <li>Unless {@code spec.paused}: each set's replicas become what {@link Rollout} says for the
 *       strategy (RollingUpdate with maxSurge and maxUnavailable, default 25 % each; or Recreate).
 *   <li>Old sets with no replicas beyond {@code revisionHistoryLimit} (default 10) are deleted,
 *       oldest first.
 *   <li>Status, from the sets' status: replicas, updatedReplicas, readyReplicas, availableReplicas,
 *       unavailableReplicas, observedGeneration, and the conditions {@code Available} (at least
 *       {@code replicas - maxUnavailable} available) and {@code Progressing} ({@code
 *       NewReplicaSetAvailable} once the new set alone has every replica available); written only
 *       when it changed.
 * </ol>
 *
 * <p>Not done: progressDeadlineSeconds (never ProgressDeadlineExceeded), minReadySeconds,
 * proportional scaling of several old sets during a rollout, rollback annotations.
 */
public final class DeploymentController extends Controller {
  static final String HASH_LABEL = "pod-template-hash";
  static final String REVISION_ANNOTATION = "deployment.kubernetes.io/revision";

  public DeploymentController(KubernetesClient client, Duration resync) {
    super(client, "deployment-controller", resync);
  }

  @Override
  public void start() {
    this.<Deployment>watch(w -> client.apps().deployments().inAnyNamespace().watch(w));
    this.<ReplicaSet>watch(w -> client.apps().replicaSets().inAnyNamespace().watch(w));
    super.start();
  }

  @Override
  protected void reconcile() {
    List<Deployment> deployments = client.apps().deployments().inAnyNamespace().list().getItems();
    if (deployments.isEmpty()) {
      return;
    }
    List<ReplicaSet> sets = client.apps().replicaSets().inAnyNamespace().list().getItems();
    syncEach(deployments, d -> sync(d, sets));
  }

  private void sync(Deployment d, List<ReplicaSet> allSets) {
    String ns = d.getMetadata().getNamespace();
    String hash = StatefulSetController.templateHash(d.getSpec().getTemplate());
    List<ReplicaSet> owned = new ArrayList<>();
    for (ReplicaSet s : allSets) {
      if (!ns.equals(s.getMetadata().getNamespace())) {
        continue;
      }
      if (ReplicaSetController.controlledBy(s, d)) {
        owned.add(s);
      } else if (ReplicaSetController.orphan(s) && selects(d, s)) {
        owned.add(
            adopt(
                client.apps().replicaSets().inNamespace(ns).withName(s.getMetadata().getName()),
                d));
      }
    }
    owned.sort(
        Comparator.comparing(
            (ReplicaSet s) ->
                s.getMetadata().getCreationTimestamp() == null
                    ? ""
                    : s.getMetadata().getCreationTimestamp()));
    ReplicaSet newSet =
        owned.stream().filter(s -> hash.equals(label(s, HASH_LABEL))).findFirst().orElse(null);
    boolean paused = Boolean.TRUE.equals(d.getSpec().getPaused());
    if (newSet == null && !paused) {
      newSet = createNewSet(d, hash, owned);
      owned.add(newSet);
    }
    List<ReplicaSet> olds = new ArrayList<>(owned);
    olds.remove(newSet);
    int replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
    int[] limits = surgeAndUnavailable(d, replicas);
    int maxUnavailable = limits[1];
    if (!paused && newSet != null) {
      Rollout.Set n = view(newSet);
      List<Rollout.Set> o = olds.stream().map(DeploymentController::view).toList();
      boolean recreate =
          d.getSpec().getStrategy() != null
              && "Recreate".equals(d.getSpec().getStrategy().getType());
      Map<String, Integer> plan =
          recreate
              ? Rollout.recreate(replicas, n, o)
              : Rollout.rollingUpdate(replicas, limits[0], maxUnavailable, n, o);
      for (ReplicaSet s : owned) {
        Integer want = plan.get(s.getMetadata().getName());
        if (want != null && want != replicasOf(s)) {
          client
              .apps()
              .replicaSets()
              .inNamespace(ns)
              .withName(s.getMetadata().getName())
              .edit(
                  x -> {
                    x.getSpec().setReplicas(want);
                    return x;
                  });
        }
      }
      cleanUp(d, olds);
    }
    writeStatus(d, newSet, owned, replicas, maxUnavailable);
  }

  private ReplicaSet createNewSet(Deployment d, String hash, List<ReplicaSet> owned) {
    PodTemplateSpec template = Serialization.clone(d.getSpec().getTemplate());
    Map<String, String> labels = new LinkedHashMap<>();
    if (template.getMetadata().getLabels() != null) {
      labels.putAll(template.getMetadata().getLabels());
    }
    labels.put(HASH_LABEL, hash);
    template.getMetadata().setLabels(labels);
    LabelSelector selector = Serialization.clone(d.getSpec().getSelector());
    Map<String, String> match = new LinkedHashMap<>();
    if (selector.getMatchLabels() != null) {
      match.putAll(selector.getMatchLabels());
    }
    match.put(HASH_LABEL, hash);
    selector.setMatchLabels(match);
    long revision = 0;
    for (ReplicaSet s : owned) {
      String r = annotation(s, REVISION_ANNOTATION);
      if (r != null && r.matches("\\d+")) {
        revision = Math.max(revision, Long.parseLong(r));
      }
    }
    ReplicaSet set =
        new ReplicaSetBuilder()
            .withNewMetadata()
            .withName(d.getMetadata().getName() + "-" + hash)
            .withNamespace(d.getMetadata().getNamespace())
            .withLabels(labels)
            .addToAnnotations(REVISION_ANNOTATION, String.valueOf(revision + 1))
            .withOwnerReferences(StatefulSetController.owner(d, true))
            .endMetadata()
            .withNewSpec()
            .withReplicas(0)
            .withSelector(selector)
            .withTemplate(template)
            .endSpec()
            .build();
    log.info("deployment {} creates replicaset {}", d.getMetadata().getName(), hash);
    return client.apps().replicaSets().resource(set).create();
  }

  /** Old sets scaled to nothing, beyond the history the Deployment keeps, oldest first. */
  private void cleanUp(Deployment d, List<ReplicaSet> olds) {
    int limit =
        d.getSpec().getRevisionHistoryLimit() == null ? 10 : d.getSpec().getRevisionHistoryLimit();
    List<ReplicaSet> idle =
        olds.stream()
            .filter(
                s ->
                    replicasOf(s) == 0
                        && (s.getStatus() == null
                            || s.getStatus().getReplicas() == null
                            || s.getStatus().getReplicas() == 0))
            .toList();
    for (ReplicaSet s : idle.subList(0, Math.max(0, idle.size() - limit))) {
      client
          .apps()
          .replicaSets()
          .inNamespace(s.getMetadata().getNamespace())
          .withName(s.getMetadata().getName())
          .delete();
    }
  }

  private void writeStatus(
      Deployment d, ReplicaSet newSet, List<ReplicaSet> owned, int replicas, int maxUnavailable) {
    int total = 0;
    int ready = 0;
    int available = 0;
    for (ReplicaSet s : owned) {
      total += statusOf(s, true);
      ready +=
          s.getStatus() == null || s.getStatus().getReadyReplicas() == null
              ? 0
              : s.getStatus().getReadyReplicas();
      available += statusOf(s, false);
    }
    int updated = newSet == null ? 0 : statusOf(newSet, true);
    boolean complete =
        updated == replicas
            && total == replicas
            && newSet != null
            && statusOf(newSet, false) == replicas;
    Map<String, Condition> previous = new HashMap<>();
    List<DeploymentCondition> conditions = new ArrayList<>();
    if (d.getStatus() != null && d.getStatus().getConditions() != null) {
      d.getStatus().getConditions().forEach(c -> previous.put(c.getType(), toCondition(c)));
    }
    conditions.add(
        condition(
            previous,
            "Available",
            available >= replicas - maxUnavailable,
            available >= replicas - maxUnavailable
                ? "MinimumReplicasAvailable"
                : "MinimumReplicasUnavailable",
            available >= replicas - maxUnavailable
                ? "Deployment has minimum availability."
                : "Deployment does not have minimum availability."));
    conditions.add(
        condition(
            previous,
            "Progressing",
            true,
            complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
            newSet == null
                ? "Deployment is paused."
                : "ReplicaSet \""
                    + newSet.getMetadata().getName()
                    + (complete ? "\" has successfully progressed." : "\" is progressing.")));
    DeploymentStatus status =
        new DeploymentStatusBuilder()
            .withObservedGeneration(d.getMetadata().getGeneration())
            .withReplicas(total)
            .withUpdatedReplicas(updated)
            .withReadyReplicas(ready)
            .withAvailableReplicas(available)
            .withUnavailableReplicas(Math.max(0, replicas - available))
            .withConditions(conditions)
            .build();
    if (status.equals(d.getStatus())) {
      return;
    }
    Deployment copy = Serialization.clone(d);
    copy.setStatus(status);
    client.apps().deployments().resource(copy).updateStatus();
  }

  private record Condition(String status, String reason, String message, String since) {}

  private static Condition toCondition(DeploymentCondition c) {
    return new Condition(c.getStatus(), c.getReason(), c.getMessage(), c.getLastTransitionTime());
  }

  /** A condition whose times stay those of the previous one while nothing in it changed. */
  private static DeploymentCondition condition(
      Map<String, Condition> previous, String type, boolean ok, String reason, String message) {
    String status = ok ? "True" : "False";
    Condition was = previous.get(type);
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    boolean same =
        was != null
            && status.equals(was.status())
            && reason.equals(was.reason())
            && message.equals(was.message());
    String since = same ? was.since() : now;
    return new DeploymentConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastTransitionTime(since)
        .withLastUpdateTime(since)
        .build();
  }

  private static Rollout.Set view(ReplicaSet s) {
    return new Rollout.Set(
        s.getMetadata().getName(), replicasOf(s), statusOf(s, true), statusOf(s, false));
  }

  private static int replicasOf(ReplicaSet s) {
    return s.getSpec().getReplicas() == null ? 1 : s.getSpec().getReplicas();
  }

  /** status.replicas ({@code all}) or status.availableReplicas; 0 when not reported. */
  private static int statusOf(ReplicaSet s, boolean all) {
    if (s.getStatus() == null) {
      return 0;
    }
    Integer n = all ? s.getStatus().getReplicas() : s.getStatus().getAvailableReplicas();
    return n == null ? 0 : n;
  }

  /**
   * maxSurge and maxUnavailable as numbers of pods (both 0 would block a rollout: unavailable
   * becomes 1, as Kubernetes resolves it).
   */
  private static int[] surgeAndUnavailable(Deployment d, int replicas) {
    var ru =
        d.getSpec().getStrategy() == null ? null : d.getSpec().getStrategy().getRollingUpdate();
    int surge = Rollout.resolve(value(ru == null ? null : ru.getMaxSurge()), replicas, true, "25%");
    int unavailable =
        Rollout.resolve(value(ru == null ? null : ru.getMaxUnavailable()), replicas, false, "25%");
    return new int[] {surge, surge == 0 && unavailable == 0 ? 1 : unavailable};
  }

  private static Object value(IntOrString v) {
    return v == null ? null : v.getIntVal() != null ? v.getIntVal() : v.getStrVal();
  }

  private static boolean selects(Deployment d, ReplicaSet s) {
    Map<String, String> labels =
        s.getMetadata().getLabels() == null ? Map.of() : s.getMetadata().getLabels();
    return d.getSpec().getSelector() != null
        && Selectors.matches(d.getSpec().getSelector(), labels);
  }

  private static String label(ReplicaSet s, String key) {
    return s.getMetadata().getLabels() == null ? null : s.getMetadata().getLabels().get(key);
  }

  private static String annotation(ReplicaSet s, String key) {
    return s.getMetadata().getAnnotations() == null
        ? null
        : s.getMetadata().getAnnotations().get(key);
  }
}
