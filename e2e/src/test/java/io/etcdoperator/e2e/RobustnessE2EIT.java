package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcdoperator.e2e.RobustnessPlan.Action;
import io.etcdoperator.e2e.RobustnessPlan.Fault;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.testing.robustness.Checker;
import io.etcdoperator.testing.robustness.HistoryFile;
import io.etcdoperator.testing.robustness.Linearizer;
import io.etcdoperator.testing.robustness.Workload;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The short set of robustness runs (README's test command): a few operator actions, each with a
 * fault or two (of the members, the network, the operator, the API server), under the recording
 * workload, every guarantee checked ({@link Robustness}) (the rebuild, for exactly its documented
 * loss, runs in the soak: DurabilityE2EIT proves the rebuild here); and the proof that the checker
 * catches a real violation in the sandbox: clients sent to two separate etcd clusters behind one
 * Service, as seed 000's scenario 3 produces. The long set and the soak run {@link
 * RobustnessSoakE2EIT}.
 */
class RobustnessE2EIT {
  @TempDir Path dir;

  /**
   * README's command: two actions, with the faults of all four between them (a member killed, the
   * operator crashed, a pod deleted, API errors, the API server's watches gone); {@code -Plong}
   * ({@code long.all.cases}) adds a scale-up with the operator crashed and a scale-down with a
   * frozen member (scaling's own end-to-end test is MembershipE2EIT).
   */
  static Stream<Arguments> shortSet() {
    Stream<Arguments> always =
        Stream.of(
            Arguments.of(RobustnessPlan.of(2801, Action.ROLL, Fault.OPERATOR_CRASH, Fault.KILL)),
            Arguments.of(
                RobustnessPlan.of(
                    2803,
                    Action.UPGRADE,
                    Fault.DELETE_POD,
                    Fault.API_ERRORS,
                    Fault.API_WATCH_GONE)));
    if (!Boolean.getBoolean("long.all.cases")) {
      return always;
    }
    return Stream.concat(
        always,
        Stream.of(
            Arguments.of(RobustnessPlan.of(2802, Action.SCALE_UP, Fault.OPERATOR_CRASH)),
            Arguments.of(
                RobustnessPlan.of(2804, Action.SCALE_DOWN, Fault.FREEZE, Fault.API_WATCH_GONE))));
  }

  @ParameterizedTest
  @MethodSource("shortSet")
  void everyGuaranteeHoldsThroughAnActionAndAFault(RobustnessPlan plan) throws Exception {
    // kept when it fails: its history and the pods' logs
    Path run = Path.of("target", "robustness", "short-" + plan.seed()).toAbsolutePath();
    FaultSuiteE2EIT.delete(run);
    Robustness.Outcome outcome = Robustness.run(plan, run);
    System.out.println(outcome.line());
    System.out.println(outcome.report().describe(5));
    if (outcome.ok()) {
      FaultSuiteE2EIT.delete(run);
    }
    assertThat(outcome.ok()).as(outcome.line() + "\n" + outcome.report().describe(10)).isTrue();
    assertThat(outcome.operations()).isGreaterThan(200);
  }

  /**
   * The links between members are real: the leader cut off from the others loses its followers
   * (they elect another among themselves; it steps down), and once healed all three follow one
   * leader again; the operator and clients reach every member throughout.
   */
  @Test
  void aLeaderCutOffFromItsPeersIsReplacedAndTheLinksHeal() throws Exception {
    try (E2E e2e = E2E.start(SandboxConfig.defaults(dir.resolve("s")).withPeerLinks());
        Cluster test = new Cluster(e2e, "test");
        Members members = new Members("test")) {
      e2e.apply(Cluster.THREE_MEMBERS);
      test.awaitConverged(1, 3, Duration.ofMinutes(2));
      String leader = test.leader().orElseThrow();
      long leaderId = members.statuses(3).get(leader).memberId();
      e2e.sandbox().faults().partitionPeers(E2E.NS, List.of(Set.of(leader)));
      long cut = System.nanoTime();
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .conditionEvaluationListener(
              c -> {
                if (c.getRemainingTimeInMS() < 600) {
                  System.out.println(
                      "statuses "
                          + members.statuses(3)
                          + " links "
                          + e2e.sandbox().kubelet().dns().peerLinks().state());
                }
              })
          .until(
              () -> {
                var statuses = members.statuses(3);
                return statuses.entrySet().stream()
                        .filter(e -> !e.getKey().equals(leader))
                        .allMatch(
                            e ->
                                e.getValue().leaderId() != 0 && e.getValue().leaderId() != leaderId)
                    && statuses.get(leader).leaderId() != leaderId;
              });
      System.out.printf(
          "leader %s cut off: the others follow another, it steps down, after %d ms%n",
          leader, (System.nanoTime() - cut) / 1_000_000);
      e2e.sandbox().faults().healPeers(E2E.NS);
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                var ids =
                    members.statuses(3).values().stream()
                        .map(s -> s.leaderId())
                        .distinct()
                        .toList();
                return ids.size() == 1 && ids.get(0) != 0;
              });
      test.awaitConverged(1, 3, Duration.ofMinutes(1));
    }
  }

  private static int addresses(String name) {
    try {
      return InetAddress.getAllByName(name).length;
    } catch (UnknownHostException e) {
      return 0;
    }
  }

  /** Two single-member clusters, and a Service that selects the pods of both. */
  @Test
  void clientsOfTwoClustersBehindOneServiceAreCaught() throws Exception {
    assumeTrue(
        Boolean.getBoolean("long.all.cases"),
        "a test of the checker, which WorkloadIT proves by default: -Plong");
    try (E2E e2e = E2E.start(dir.resolve("sandbox"));
        Cluster a = new Cluster(e2e, "a");
        Cluster b = new Cluster(e2e, "b")) {
      for (String name : List.of("a", "b")) {
        e2e.apply(
            """
            apiVersion: etcd.aenix.io/v1alpha1
            kind: EtcdCluster
            metadata:
              name: %s
              namespace: default
            spec:
              replicas: 1
            """
                .formatted(name));
      }
      a.awaitConverged(1, 1, Duration.ofMinutes(2));
      b.awaitConverged(1, 1, Duration.ofMinutes(2));
      e2e.client()
          .resource(
              new ServiceBuilder()
                  .withNewMetadata()
                  .withName("both")
                  .withNamespace(E2E.NS)
                  .endMetadata()
                  .withNewSpec()
                  .addToSelector(Names.LABEL_NAME, "etcd")
                  .addNewPort()
                  .withName("client")
                  .withPort(Names.CLIENT_PORT)
                  .endPort()
                  .endSpec()
                  .build())
          .create();
      // the clients start once the Service's name has both pods behind it
      String both = "both." + E2E.NS + ".svc";
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> addresses(both) == 2);
      Workload workload =
          Workload.builder(List.of("http://" + both + ":" + Names.CLIENT_PORT))
              .seed(2800)
              .rate(20)
              .maxDuration(Duration.ofSeconds(20))
              .start();
      try {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> workload.answered() > 400);
      } finally {
        workload.stop();
      }
      HistoryFile.write(workload.stop(), dir.resolve("two-clusters.json.gz"));
      Checker.Report report = new Checker().check(workload.stop());
      System.out.println("robustness two clusters behind one Service:\n" + report.describe(2));
      assertThat(report.linearization().verdict()).isEqualTo(Linearizer.Verdict.VIOLATED);
      assertThat(report.linearization().violations().get(0).ops()).isNotEmpty();
    }
  }
}
