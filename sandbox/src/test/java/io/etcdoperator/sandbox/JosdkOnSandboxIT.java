package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.sandbox.cli.SandboxCommand;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A JOSDK operator, run through the {@link OperatorLauncher} seam exactly as the real one will be,
 * sees EtcdClusters, writes their status subresource and owns objects that the garbage collector
 * removes; {@code sandbox --until-ready} exits 0 on its Ready condition.
 */
class JosdkOnSandboxIT {
  @TempDir Path dir;

  /** Marks every EtcdCluster Ready and gives it an owned ConfigMap. */
  static final class TinyReconciler implements Reconciler<EtcdCluster> {
    final AtomicInteger reconciles = new AtomicInteger();

    @Override
    public UpdateControl<EtcdCluster> reconcile(EtcdCluster cluster, Context<EtcdCluster> context) {
      reconciles.incrementAndGet();
      KubernetesClient k = context.getClient();
      String name = cluster.getMetadata().getName() + "-cluster-state";
      if (k.configMaps().inNamespace(cluster.getMetadata().getNamespace()).withName(name).get()
          == null) {
        k.configMaps()
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(cluster.getMetadata().getNamespace())
                    .withOwnerReferences(
                        new OwnerReferenceBuilder()
                            .withApiVersion(cluster.getApiVersion())
                            .withKind(cluster.getKind())
                            .withName(cluster.getMetadata().getName())
                            .withUid(cluster.getMetadata().getUid())
                            .withController(true)
                            .build())
                    .endMetadata()
                    .withData(Map.of("ETCD_INITIAL_CLUSTER_STATE", "new"))
                    .build())
            .create();
      }
      EtcdClusterStatus status = new EtcdClusterStatus();
      status.setObservedGeneration(cluster.getMetadata().getGeneration());
      status.setConditions(
          List.of(
              new ConditionBuilder()
                  .withType("Ready")
                  .withStatus("True")
                  .withReason("AllMembersReady")
                  .withMessage("stand-in")
                  .withLastTransitionTime("2025-01-01T00:00:00Z")
                  .build()));
      if (status.equals(cluster.getStatus())) {
        return UpdateControl.noUpdate();
      }
      cluster.setStatus(status);
      // As the real operator writes status: an update of the status subresource (deploy/'s RBAC
      // grants etcdclusters/status update, not patch; this stand-in acts as that ServiceAccount).
      k.resource(cluster).updateStatus();
      return UpdateControl.noUpdate();
    }
  }

  static OperatorLauncher launcher(TinyReconciler reconciler) {
    return client -> {
      Operator operator =
          new Operator(
              o ->
                  o.withKubernetesClient(client)
                      .withUseSSAToPatchPrimaryResource(false)
                      .withSSABasedCreateUpdateMatchForDependentResources(false)
                      .withCloseClientOnStop(false));
      operator.register(reconciler);
      operator.start();
      return operator::stop;
    };
  }

  @Test
  void untilReadyExitsZeroOnTheOperatorsReadyConditionAndOwnedObjectsAreCollected()
      throws Exception {
    TinyReconciler reconciler = new TinyReconciler();
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(sink, true, StandardCharsets.UTF_8);
    int code =
        new CommandLine(new SandboxCommand(launcher(reconciler), ps, ps))
            .execute("--dir", dir.resolve("cmd").toString(), "--until-ready", "--timeout", "90s");
    String out = sink.toString(StandardCharsets.UTF_8);
    assertThat(code).as(out).isZero();
    assertThat(out)
        .contains(
            "applied EtcdCluster default/test",
            "etcdcluster default/test: Ready=True (AllMembersReady)",
            "etcdcluster default/test is Ready.");
    assertThat(reconciler.reconciles.get()).isPositive();
  }

  @Test
  void statusSubresourceWatchesAndGarbageCollectionWorkForJosdk() throws Exception {
    TinyReconciler reconciler = new TinyReconciler();
    try (Sandbox sandbox =
        Sandbox.start(SandboxFixture.fastConfig(dir.resolve("api")), launcher(reconciler))) {
      KubernetesClient k = sandbox.client();
      EtcdCluster c = new EtcdCluster();
      c.getMetadata().setName("one");
      c.getMetadata().setNamespace("default");
      c.setSpec(new io.etcdoperator.api.v1alpha1.EtcdClusterSpec());
      c.getSpec().setReplicas(3);
      k.resource(c).create();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(
              () -> {
                EtcdCluster now =
                    k.resources(EtcdCluster.class).inNamespace("default").withName("one").get();
                assertThat(now.getStatus()).isNotNull();
                assertThat(now.getStatus().getConditions())
                    .extracting(cond -> cond.getType() + "=" + cond.getStatus())
                    .contains("Ready=True");
                assertThat(
                        k.configMaps().inNamespace("default").withName("one-cluster-state").get())
                    .isNotNull();
              });
      // a spec change bumps the generation and reaches the reconciler through the watch
      k.resources(EtcdCluster.class)
          .inNamespace("default")
          .withName("one")
          .edit(
              x -> {
                x.getSpec().setReplicas(5);
                return x;
              });
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(
              () -> {
                EtcdCluster now =
                    k.resources(EtcdCluster.class).inNamespace("default").withName("one").get();
                assertThat(now.getStatus().getObservedGeneration())
                    .isEqualTo(now.getMetadata().getGeneration())
                    .isEqualTo(2L);
                assertThat(now.getSpec().getReplicas()).isEqualTo(5);
              });
      // stop and start the operator: it resumes from the world
      sandbox.faults().stopOperator();
      sandbox.faults().startOperator();
      k.resources(EtcdCluster.class).inNamespace("default").withName("one").delete();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(
              () ->
                  assertThat(
                          k.configMaps().inNamespace("default").withName("one-cluster-state").get())
                      .isNull());
    }
  }
}
