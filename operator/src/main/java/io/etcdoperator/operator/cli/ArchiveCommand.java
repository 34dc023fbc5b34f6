package io.etcdoperator.operator.cli;

import io.etcdoperator.operator.backup.ChangeArchiver;
import io.etcdoperator.operator.backup.SnapshotStore;
import io.etcdoperator.operator.etcd.EtcdServiceConfig;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code etcd-operator agent archive}: continuous backup, the archiver pod of an EtcdBackupSchedule
 * ({@link ChangeArchiver}). Runs until stopped (SIGTERM).
 */
@Command(
    name = "archive",
    mixinStandardHelpOptions = true,
    description = "Record every change of a cluster after its newest full backup.")
final class ArchiveCommand implements Callable<Integer> {
  @Option(names = "--cluster", required = true, description = "namespace/name")
  String cluster;

  @Option(names = "--endpoint", required = true, description = "The cluster's client URL.")
  String endpoint;

  @Option(names = "--backups", required = true, description = "Key prefix of the full backups.")
  String backups;

  @Option(names = "--backup-prefix", required = true, description = "Their file names start so.")
  String backupPrefix;

  @Option(names = "--log", required = true, description = "Key prefix of the change log.")
  String log;

  @Option(names = "--flush-ms", defaultValue = "1000")
  long flushMillis;

  @Mixin AgentCommand.StoreOptions store = new AgentCommand.StoreOptions();

  @Mixin AgentCommand.TlsOptions tls = new AgentCommand.TlsOptions();

  @Override
  public Integer call() throws Exception {
    Main.shortAddressCache();
    AtomicBoolean stopped = new AtomicBoolean();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stopped.set(true)));
    try (SnapshotStore s = store.open();
        JetcdEtcdService etcd =
            new JetcdEtcdService(
                EtcdServiceConfig.defaults().withDeadline(Duration.ofSeconds(5)))) {
      etcd.useTls(cluster, tls.read());
      long reached =
          new ChangeArchiver(etcd, Clock.systemUTC(), System.err::println)
              .run(
                  new ChangeArchiver.Request(
                      cluster,
                      endpoint,
                      backups,
                      backupPrefix,
                      log,
                      Duration.ofMillis(flushMillis)),
                  s,
                  stopped::get);
      System.err.println("stopped; the change log reaches revision " + reached);
      return 0;
    }
  }
}
