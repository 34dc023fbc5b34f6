package io.etcdoperator.operator.cli;

import io.etcdoperator.operator.backup.EtcdTools;
import io.etcdoperator.operator.backup.RestoreAgent;
import io.etcdoperator.operator.backup.SnapshotStore;
import io.etcdoperator.operator.etcd.EtcdServiceConfig;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code etcd-operator agent restore}: the restore init container of a member pod ({@link
 * RestoreAgent}). The member's name and the new cluster come from the environment the pod gives
 * etcd itself: {@code POD_NAME} and the cluster-state ConfigMap's {@code ETCD_INITIAL_*} keys.
 */
@Command(
    name = "restore",
    mixinStandardHelpOptions = true,
    description = "Restore this member's data from a snapshot, unless it has data.")
final class RestoreAgentCommand implements Callable<Integer> {
  @Option(names = "--data-dir", required = true)
  Path dataDir;

  @Option(names = "--key", required = true, description = "The snapshot's key in the store.")
  String key;

  @Option(names = "--peer-url", required = true)
  String peerUrl;

  @Option(names = "--change-log", description = "Replay this change log over the snapshot.")
  String changeLog = "";

  @Option(names = "--target-revision", description = "Replay up to this revision.")
  long targetRevision;

  @Option(names = "--target-time", description = "Replay what was recorded by this time.")
  String targetTime;

  @Mixin AgentCommand.StoreOptions store = new AgentCommand.StoreOptions();

  @Override
  public Integer call() {
    try (SnapshotStore s = store.open();
        var etcd =
            new JetcdEtcdService(
                EtcdServiceConfig.defaults().withDeadline(Duration.ofSeconds(5)))) {
      RestoreAgent.Request request =
          new RestoreAgent.Request(
              dataDir,
              env("POD_NAME"),
              peerUrl,
              env("ETCD_INITIAL_CLUSTER"),
              env("ETCD_INITIAL_CLUSTER_STATE"),
              env("ETCD_INITIAL_CLUSTER_TOKEN"),
              key,
              changeLog,
              targetRevision,
              Optional.ofNullable(targetTime).map(Instant::parse));
      RestoreAgent.Result r =
          new RestoreAgent(Clock.systemUTC(), System.err::println, etcd)
              .run(request, s, EtcdTools.fromEnvironment());
      return AgentCommand.finish(r.toJsonLine(), true);
    } catch (RestoreAgent.Refused e) {
      return AgentCommand.finish("restore refused: " + e.getMessage(), false);
    } catch (IOException | RuntimeException e) {
      return AgentCommand.finish("restore failed: " + e.getMessage(), false);
    }
  }

  private static String env(String name) {
    String v = System.getenv(name);
    if (v == null) {
      throw new IllegalArgumentException(name + " is not set");
    }
    return v;
  }
}
