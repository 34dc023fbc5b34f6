package io.etcdoperator.testing.robustness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.testing.LocalEtcdCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The workload and the checker against real etcd processes: a healthy cluster whose members are
 * killed and restarted under the workload passes every check; clients sent to two separate clusters
 * behind one set of endpoints (seed 000's scenario 3) are caught.
 */
class WorkloadIT {
  private static final Path OUT = Path.of("target", "robustness");

  @Test
  void aClusterWhoseMembersAreKilledAndRestartedStaysLinearizable() throws Exception {
    try (LocalEtcdCluster cluster = LocalEtcdCluster.builder().members(3).start()) {
      cluster.awaitHealthy(Duration.ofSeconds(20));
      Workload workload =
          Workload.builder(cluster.clientUrls())
              .seed(28)
              .rate(30)
              .compactEvery(Duration.ofSeconds(3))
              .maxDuration(Duration.ofSeconds(60))
              .start();
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> workload.answered() > 200);
        for (int i = 0; i < 2; i++) {
          var member = cluster.member(i);
          try (var span = workload.span("kill and restart " + member.name())) {
            member.kill();
            long before = workload.answered();
            await().atMost(Duration.ofSeconds(10)).until(() -> workload.answered() > before + 100);
            member.restart();
            cluster.awaitHealthy(Duration.ofSeconds(20));
          }
          long before = workload.answered();
          await().atMost(Duration.ofSeconds(10)).until(() -> workload.answered() > before + 100);
        }
      } finally {
        workload.stop();
      }
      History history = workload.stop();
      HistoryFile.write(history, OUT.resolve("kill-restart.json.gz"));
      Checker.Report report = new Checker().check(history);
      System.out.println(
          "robustness kill-restart: "
              + history.ops().size()
              + " operations\n"
              + report.describe(5));
      assertThat(report.ok()).as(report.describe(10)).isTrue();
      assertThat(history.ops()).hasSizeGreaterThan(500);
      // the clients spread over the members from the start, as a Service spreads connections
      assertThat(
              history.ops().stream().filter(o -> !o.failed()).limit(100).map(Op::member).distinct())
          .hasSize(3);
      assertThat(history.ops().stream().filter(Op::indeterminate)).isNotEmpty();
      assertThat(history.watches().stream().filter(r -> r.kind() == Watch.Kind.EVENTS))
          .isNotEmpty();
      // the file replays to the same verdict
      assertThat(new Checker().check(HistoryFile.read(OUT.resolve("kill-restart.json.gz"))).ok())
          .isTrue();
    }
  }

  @Test
  void clientsOfTwoClustersBehindOneSetOfEndpointsAreCaught() throws Exception {
    try (LocalEtcdCluster a = LocalEtcdCluster.builder().name("a").members(1).start();
        LocalEtcdCluster b = LocalEtcdCluster.builder().name("b").members(1).start()) {
      a.awaitHealthy(Duration.ofSeconds(20));
      b.awaitHealthy(Duration.ofSeconds(20));
      List<String> both = new ArrayList<>(a.clientUrls());
      both.addAll(b.clientUrls());
      // each client keeps its endpoint until it fails: kill one cluster for a moment so that
      // clients move over, as pods behind one Service come and go
      Workload workload =
          Workload.builder(both).seed(3).rate(30).maxDuration(Duration.ofSeconds(30)).start();
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> workload.answered() > 200);
        a.member(0).kill();
        long before = workload.answered();
        await().atMost(Duration.ofSeconds(10)).until(() -> workload.answered() > before + 100);
        a.member(0).restart();
        a.awaitHealthy(Duration.ofSeconds(20));
        b.member(0).kill();
        long after = workload.answered();
        await().atMost(Duration.ofSeconds(10)).until(() -> workload.answered() > after + 100);
        b.member(0).restart();
        b.awaitHealthy(Duration.ofSeconds(20));
      } finally {
        workload.stop();
      }
      History history = workload.stop();
      HistoryFile.write(history, OUT.resolve("two-clusters.json.gz"));
      Checker.Report report = new Checker().check(history);
      System.out.println("robustness two-clusters:\n" + report.describe(3));
      assertThat(report.ok()).isFalse();
      assertThat(report.linearization().verdict()).isEqualTo(Linearizer.Verdict.VIOLATED);
    }
  }
}
