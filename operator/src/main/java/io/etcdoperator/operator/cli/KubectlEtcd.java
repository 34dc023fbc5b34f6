package io.etcdoperator.operator.cli;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.operator.model.Names;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code kubectl etcd}: the kubectl plugin. kubectl runs an executable named {@code kubectl-etcd}
 * that it finds on PATH with the words after {@code kubectl etcd}; {@code
 * deploy/kubectl/kubectl-etcd} runs this class from the product jar.
 *
 * <p>It reads the kubeconfig kubectl reads ({@code KUBECONFIG}, else {@code ~/.kube/config}; {@code
 * --kubeconfig}, {@code --context} and {@code -n} as kubectl's own flags) and goes through the API
 * server only, with the user's credentials, so the user's RBAC decides what each command may do:
 * {@code list} and {@code status} read EtcdClusters (and EtcdBackups for the last backup), {@code
 * pause} and {@code resume} patch an EtcdCluster's {@value Names#PAUSED_ANNOTATION} annotation,
 * {@code snapshot} creates an EtcdBackup and waits for it ({@link KubectlBackups}), {@code restore}
 * creates an EtcdCluster restored from one and waits for it. Each asks the operator's own resources
 * and acts through them, never around the operator.
 *
 * <p>Exit codes: 0 done; 1 the API server refused, or what was asked for failed (the message says
 * what and what to do); 2 a usage error.
 */
@Command(
    name = "kubectl etcd",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.Provider.class,
    description =
        "Lists, inspects, pauses, defragments, backs up and restores etcd clusters of"
            + " etcd-operator.",
    subcommands = {
      KubectlEtcd.ListCommand.class,
      KubectlEtcd.StatusCommand.class,
      KubectlEtcd.PauseCommand.class,
      KubectlEtcd.ResumeCommand.class,
      KubectlMaintenance.DefragCommand.class,
      KubectlMaintenance.MoveLeaderCommand.class,
      KubectlBackups.SnapshotCommand.class,
      KubectlBackups.RestoreCommand.class
    })
public final class KubectlEtcd {
  @Option(
      names = "--kubeconfig",
      scope = ScopeType.INHERIT,
      description = "The kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).")
  Path kubeconfig;

  @Option(
      names = "--context",
      scope = ScopeType.INHERIT,
      description = "The kubeconfig context (default: its current one).")
  String context;

  @Option(
      names = {"-n", "--namespace"},
      scope = ScopeType.INHERIT,
      description = "The namespace (default: the context's, else default).")
  String namespace;

  @Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    CommandLine cli = commandLine();
    int code = cli.execute(args);
    // picocli's writers flush on println only; a table ends with print
    cli.getOut().flush();
    cli.getErr().flush();
    System.exit(code);
  }

  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new KubectlEtcd());
    cli.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          line.getErr().println("error: " + message(e));
          return 1;
        });
    return cli;
  }

  /** What went wrong, in the words of the API server where it answered. */
  static String message(Exception e) {
    if (e instanceof KubernetesClientException k && k.getStatus() != null) {
      String m = k.getStatus().getMessage();
      return k.getCode() == 403
          ? m + " (ask for that permission, or use a kubeconfig that has it)"
          : m;
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }

  /** A client of the API server the kubeconfig names. */
  KubernetesClient client() throws IOException {
    Config config =
        kubeconfig == null
            ? Config.autoConfigure(context)
            : Config.fromKubeconfig(
                context, Files.readString(kubeconfig), kubeconfig.toAbsolutePath().toString());
    if (namespace != null) {
      config.setNamespace(namespace);
    } else if (config.getNamespace() == null) {
      config.setNamespace("default");
    }
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** The EtcdCluster {@code name} of the namespace, or a message saying it is not there. */
  static EtcdCluster cluster(KubernetesClient client, String name) {
    EtcdCluster c = client.resources(EtcdCluster.class).withName(name).get();
    if (c == null) {
      throw new IllegalStateException(
          "etcdcluster "
              + name
              + " not found in namespace "
              + client.getNamespace()
              + " (kubectl etcd list -A lists them all)");
    }
    return c;
  }

  /** The member status names leader, if any. */
  static Optional<MemberStatus> leader(EtcdCluster c) {
    return c.getStatus() == null || c.getStatus().getMembers() == null
        ? Optional.empty()
        : c.getStatus().getMembers().stream()
            .filter(m -> Boolean.TRUE.equals(m.getLeader()))
            .findFirst();
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "Every etcd cluster of the namespace (-A: of every namespace): replicas, healthy voters,"
              + " leader, version, Ready or why not, the last complete backup's age.")
  static final class ListCommand implements Callable<Integer> {
    @ParentCommand KubectlEtcd parent;

    @Option(
        names = {"-A", "--all-namespaces"},
        description = "Every namespace.")
    boolean all;

    @Override
    public Integer call() throws IOException {
      try (KubernetesClient client = parent.client()) {
        var clusters = client.resources(EtcdCluster.class);
        var backups = client.resources(EtcdBackup.class);
        List<EtcdCluster> found =
            all ? clusters.inAnyNamespace().list().getItems() : clusters.list().getItems();
        if (found.isEmpty()) {
          parent
              .out()
              .println(
                  all
                      ? "No etcd clusters found."
                      : "No etcd clusters found in namespace " + client.getNamespace() + ".");
          return 0;
        }
        List<EtcdBackup> backupList =
            all ? backups.inAnyNamespace().list().getItems() : backups.list().getItems();
        Map<String, Long> dbSizes = new HashMap<>();
        for (EtcdCluster c : found) {
          leader(c)
              .map(m -> KubectlMembers.figures(client, c.getMetadata().getNamespace(), m).dbSize())
              .ifPresent(size -> dbSizes.put(KubectlTables.key(c), size));
        }
        parent
            .out()
            .print(
                KubectlTables.format(
                    KubectlTables.list(found, backupList, dbSizes, Instant.now(), all)));
        return 0;
      }
    }
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description =
          "One etcd cluster: its ID, version, leader, Ready and Available with their reasons, each"
              + " member (ID, role, health, leader, version, node, last defragmentation) and its"
              + " certificates' expiry.")
  static final class StatusCommand implements Callable<Integer> {
    @ParentCommand KubectlEtcd parent;

    @Parameters(paramLabel = "NAME", description = "The EtcdCluster.")
    String name;

    @Override
    public Integer call() throws IOException {
      try (KubernetesClient client = parent.client()) {
        EtcdCluster c = cluster(client, name);
        parent
            .out()
            .print(KubectlTables.status(c, KubectlMembers.figures(client, c), Instant.now()));
        return 0;
      }
    }
  }

  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description =
          "Stop every change the operator would make to the cluster (its status stays true): the"
              + " annotation "
              + Names.PAUSED_ANNOTATION
              + "=true.")
  static final class PauseCommand implements Callable<Integer> {
    @ParentCommand KubectlEtcd parent;

    @Parameters(paramLabel = "NAME", description = "The EtcdCluster.")
    String name;

    @Override
    public Integer call() throws IOException {
      return paused(parent, name, true);
    }
  }

  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = "Let the operator act on the cluster again: the pause annotation removed.")
  static final class ResumeCommand implements Callable<Integer> {
    @ParentCommand KubectlEtcd parent;

    @Parameters(paramLabel = "NAME", description = "The EtcdCluster.")
    String name;

    @Override
    public Integer call() throws IOException {
      return paused(parent, name, false);
    }
  }

  private static int paused(KubectlEtcd parent, String name, boolean paused) throws IOException {
    try (KubernetesClient client = parent.client()) {
      cluster(client, name);
      client
          .resources(EtcdCluster.class)
          .withName(name)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"annotations\":{\""
                  + Names.PAUSED_ANNOTATION
                  + "\":"
                  + (paused ? "\"true\"" : "null")
                  + "}}}");
      parent.out().println("etcdcluster/" + name + (paused ? " paused" : " resumed"));
      return 0;
    }
  }
}
