package io.etcdoperator.operator.act;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.etcd.ClusterProbe;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdFailure;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.Health;
import io.etcdoperator.operator.etcd.MemberAdded;
import io.etcdoperator.operator.etcd.PromoteResult;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.plan.Step;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** What comes of a membership step when etcd refuses it. */
class StepExecutorTest {
  static final String LEADER = "http://test-0.test-headless.default.svc:2379";

  /** etcd refuses every reconfiguration with the given failure. */
  static class Refusing implements EtcdService {
    final EtcdFailure failure;
    final String detail;

    Refusing(EtcdFailure failure, String detail) {
      this.failure = failure;
      this.detail = detail;
    }

    private EtcdException refused(String url) {
      return new EtcdException(failure, url, detail, null);
    }

    @Override
    public MemberAdded addLearner(String key, String url, long clusterId, String peerUrl) {
      throw refused(url);
    }

    @Override
    public io.etcdoperator.operator.etcd.EtcdMemberList removeMember(
        String key, String url, long clusterId, long memberId) {
      throw refused(url);
    }

    @Override
    public io.etcdoperator.operator.etcd.EtcdMemberList updatePeerUrls(
        String key, String url, long clusterId, long memberId, java.util.List<String> peerUrls) {
      throw refused(url);
    }

    @Override
    public PromoteResult promoteLearner(String key, String url, long clusterId, long learnerId) {
      throw refused(url);
    }

    @Override
    public void moveLeader(String key, String url, long clusterId, long targetId) {
      throw refused(url);
    }

    @Override
    public io.etcdoperator.operator.etcd.DefragResult defragment(
        String key, String url, long clusterId, java.time.Duration deadline) {
      throw refused(url);
    }

    @Override
    public boolean compact(
        String key, String url, long clusterId, long revision, java.time.Duration deadline) {
      throw refused(url);
    }

    @Override
    public int disarm(String key, String url, long clusterId, String type) {
      throw refused(url);
    }

    @Override
    public io.etcdoperator.operator.etcd.HashKv hashKv(
        String key, String url, long revision, java.time.Duration deadline) {
      throw refused(url);
    }

    @Override
    public EtcdStatus status(String key, String url) {
      throw new UnsupportedOperationException();
    }

    @Override
    public io.etcdoperator.operator.etcd.EtcdMemberList memberList(String key, String url) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<io.etcdoperator.operator.etcd.Alarm> alarms(String key, String url) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Health health(String key, String url) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ClusterProbe probeAll(String key, List<String> urls) {
      throw new UnsupportedOperationException();
    }

    @Override
    public io.etcdoperator.operator.etcd.SnapshotResult snapshot(
        String key,
        String url,
        java.io.OutputStream out,
        java.time.Duration idle,
        java.time.Duration max) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AutoCloseable watchChanges(
        String key,
        String url,
        long from,
        java.util.function.BiConsumer<List<io.etcdoperator.operator.etcd.ChangeEvent>, Long> on,
        java.util.function.Consumer<String> end) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long applyChanges(
        String key, String url, List<io.etcdoperator.operator.etcd.ChangeEvent> changes) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void useTls(
        String key, java.util.Optional<io.etcdoperator.operator.tls.ClientTls> tls) {}

    @Override
    public void pinAddress(String key, String host, java.util.Optional<String> ip) {}

    @Override
    public void resolveAgain(String key, String clientUrl) {}

    @Override
    public boolean authEnabled(String key, String url) {
      return false;
    }

    @Override
    public void enableAuth(String key, String url, String user) {}

    @Override
    public void disableAuth(String key, String url) {}

    @Override
    public void closeCluster(String key) {}

    @Override
    public void close() {}
  }

  /** A view in which test-0 answers as the leader. */
  static ClusterView leaderAnswers() {
    TreeMap<Integer, MemberProbe> probes = new TreeMap<>();
    probes.put(
        0,
        new MemberProbe(
            0, LEADER, true, null, 0xc1, 0xa, 0xa, 2, 10, false, "3.4.23", 0, List.of()));
    return new ClusterView(
        Instant.EPOCH,
        Optional.empty(),
        new TreeMap<>(),
        new TreeMap<>(),
        Optional.empty(),
        probes,
        Optional.empty(),
        Optional.empty());
  }

  static Outcome execute(EtcdService etcd, Step step) {
    return new StepExecutor(null, etcd, CallHook.NONE, java.time.Clock.systemUTC())
        .execute(new TestScope(), step, leaderAnswers(), Optional.empty());
  }

  /** The cluster default/test, recording what the executor tells it. */
  static class TestScope implements StepExecutor.Scope {
    final java.util.Map<String, String> annotations = new java.util.HashMap<>();
    final List<String> deleted = new java.util.ArrayList<>();
    final List<String> defragmented = new java.util.ArrayList<>();

    @Override
    public String namespace() {
      return "default";
    }

    @Override
    public String cluster() {
      return "test";
    }

    @Override
    public void annotate(String key, String value) {
      annotations.put(key, value);
    }

    @Override
    public void deleted(
        Class<? extends io.fabric8.kubernetes.api.model.HasMetadata> type,
        String name,
        Deletions.How how) {
      deleted.add(type.getSimpleName() + " " + name + " " + how);
    }

    @Override
    public void defragmented(
        String member, Optional<io.etcdoperator.operator.etcd.DefragResult> result) {
      defragmented.add(member + " " + result.isPresent());
    }
  }

  @Test
  void anAddRefusedAsUnhealthyClusterIsNotYetNotAFailure() {
    Outcome outcome =
        execute(
            new Refusing(EtcdFailure.UNHEALTHY_CLUSTER, "etcdserver: unhealthy cluster"),
            new Step.AddLearner(3, "test-3", "http://test-3.test-headless.default.svc:2380"));
    assertThat(outcome).isInstanceOf(Outcome.NotYet.class);
    assertThat(((Outcome.NotYet) outcome).message())
        .contains("add test-3 as a learner")
        .contains("5 s");
  }

  @Test
  void aRemovalRefusedAsUnhealthyClusterIsNotYetNotAFailure() {
    assertThat(
            execute(
                new Refusing(EtcdFailure.UNHEALTHY_CLUSTER, "etcdserver: unhealthy cluster"),
                new Step.RemoveMember(2, "test-2", 0xb, "scaling down to 1")))
        .isInstanceOf(Outcome.NotYet.class);
  }

  @Test
  void otherRefusalsStayFailures() {
    assertThat(
            execute(
                new Refusing(EtcdFailure.UNREACHABLE, "connection refused"),
                new Step.AddLearner(3, "test-3", "http://test-3.test-headless.default.svc:2380")))
        .isInstanceOf(Outcome.Failed.class);
    assertThat(
            execute(
                new Refusing(EtcdFailure.UNHEALTHY_CLUSTER, "etcdserver: unhealthy cluster"),
                new Step.MoveLeader("test-0", 0xa, 0, "test-1", 0xb, 1)))
        .isInstanceOf(Outcome.Failed.class);
  }

  @Test
  void aDefragmentationEtcdRefusesIsRecordedAsFailedAndStopsTheRound() {
    TestScope scope = new TestScope();
    Outcome outcome =
        new StepExecutor(
                null,
                new Refusing(EtcdFailure.DEADLINE_EXCEEDED, "etcdserver: too many requests"),
                CallHook.NONE,
                java.time.Clock.fixed(
                    Instant.parse("2026-12-01T12:00:00Z"), java.time.ZoneOffset.UTC))
            .execute(
                scope,
                new Step.Defragment(0, "test-0", 0xa, "fragmented"),
                leaderAnswers(),
                Optional.empty());
    assertThat(outcome).isInstanceOf(Outcome.Failed.class);
    assertThat(((Outcome.Failed) outcome).reason()).isEqualTo("DefragmentationFailed");
    assertThat(((Outcome.Failed) outcome).message())
        .contains("could not defragment test-0")
        .contains("no other member is defragmented in this round");
    assertThat(scope.annotations.get(io.etcdoperator.operator.model.Names.DEFRAGMENTED_ANNOTATION))
        .contains("\"test-0\"")
        .contains("too many requests");
    assertThat(scope.defragmented).containsExactly("test-0 false");
  }

  @Test
  void aMaintenanceRecordTheApiRefusesFailsTheStepAsRefused() {
    Refusing compacts =
        new Refusing(EtcdFailure.UNREACHABLE, "") {
          @Override
          public boolean compact(
              String key, String url, long clusterId, long revision, java.time.Duration deadline) {
            return true;
          }
        };
    Outcome outcome =
        new StepExecutor(null, compacts, CallHook.NONE, java.time.Clock.systemUTC())
            .execute(
                new TestScope() {
                  @Override
                  public void annotate(String key, String value) {
                    throw new io.fabric8.kubernetes.client.KubernetesClientException(
                        "configmaps \"test-cluster-state\" is forbidden", 403, null);
                  }
                },
                new Step.Compact(4000, "NOSPACE"),
                leaderAnswers(),
                Optional.empty());
    assertThat(outcome).isInstanceOf(Outcome.Failed.class);
    assertThat(((Outcome.Failed) outcome).reason()).isEqualTo("ApiRefused");
    assertThat(((Outcome.Failed) outcome).message()).contains("patch ConfigMap test-cluster-state");
  }

  /** Every pod and claim deleted is told, with how, for the next reconcile's view. */
  @Test
  void tellsOfEveryPodAndClaimItDeleted() {
    try (io.etcdoperator.testing.MockApi api = new io.etcdoperator.testing.MockApi()) {
      var client = api.client();
      for (String name : List.of("test-1", "test-2", "test-rebuild")) {
        client
            .pods()
            .inNamespace("default")
            .resource(
                new io.fabric8.kubernetes.api.model.PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .endMetadata()
                    .build())
            .create();
      }
      client
          .persistentVolumeClaims()
          .inNamespace("default")
          .resource(
              new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder()
                  .withNewMetadata()
                  .withName("data-test-2")
                  .endMetadata()
                  .build())
          .create();
      TestScope scope = new TestScope();
      StepExecutor executor =
          new StepExecutor(
              client,
              new Refusing(EtcdFailure.UNREACHABLE, ""),
              CallHook.NONE,
              java.time.Clock.systemUTC());
      for (Step step :
          List.of(
              new Step.DeletePods(List.of("test-1"), "rolling update"),
              new Step.ForceDeletePod("test-2", "its node is lost"),
              new Step.DeleteClaim(2, "data-test-2", "its volume is lost"),
              new Step.DeleteRebuildPod("the rebuild is done"))) {
        assertThat(executor.execute(scope, step, leaderAnswers(), Optional.empty()))
            .isInstanceOf(Outcome.Done.class);
      }
      assertThat(scope.deleted)
          .containsExactly(
              "Pod test-1 GRACEFUL",
              "Pod test-2 FORCED",
              "PersistentVolumeClaim data-test-2 GRACEFUL",
              "Pod test-rebuild GRACEFUL");
      assertThat(client.pods().inNamespace("default").list().getItems()).isEmpty();
    }
  }
}
