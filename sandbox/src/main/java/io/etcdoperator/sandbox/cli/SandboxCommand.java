package io.etcdoperator.sandbox.cli;

import io.etcdoperator.sandbox.ObjectStore;
import io.etcdoperator.sandbox.OperatorLauncher;
import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.sandbox.SandboxException;
import io.etcdoperator.sandbox.bench.BenchmarkCommand;
import io.etcdoperator.sandbox.bench.ScaleBenchmarkCommand;
import io.etcdoperator.sandbox.net.JvmHosts;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code etcd-operator sandbox}: a local Kubernetes stand-in with the operator inside, real etcd
 * processes as pods, and the given manifests applied (a 3-member sample EtcdCluster by default).
 */
@Command(
    name = "sandbox",
    mixinStandardHelpOptions = true,
    description = {
      "Runs a local Kubernetes stand-in (API server, StatefulSet controller, a kubelet that runs pods"
          + " as local processes, DNS) with the operator inside, applies the manifests and shows"
          + " progress until every EtcdCluster is Ready; then runs until Ctrl-C.",
      "Needs root (mount namespaces) and the etcd binary (Debian's etcd-server).",
      "kubectl works against it: kubectl --kubeconfig <dir>/kubeconfig get etcdclusters,pods"
    },
    subcommands = {FaultCommand.class, BenchmarkCommand.class, ScaleBenchmarkCommand.class})
public final class SandboxCommand implements Callable<Integer> {
  static final String SAMPLE = "io/etcdoperator/sandbox/sample-etcdcluster.yaml";

  @Option(
      names = {"-f", "--filename"},
      paramLabel = "FILE",
      description = "Manifest to apply (repeatable). Default: a 3-member sample EtcdCluster.")
  List<Path> files = new ArrayList<>();

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      defaultValue = ".sandbox",
      description = "State directory: claims, pod logs, kubeconfig (default: ${DEFAULT-VALUE}).")
  Path dir;

  @Option(
      names = "--until-ready",
      description =
          "Exit 0 once every EtcdCluster is Ready; non-zero with the reason after --timeout.")
  boolean untilReady;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "PT5M",
      converter = DurationConverter.class,
      description = "How long --until-ready waits, e.g. 90s, 5m (default: 5m).")
  Duration timeout;

  @Option(
      names = "--nodes",
      paramLabel = "N",
      defaultValue = "3",
      description = "Number of nodes, node-0 ... node-<N-1> (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--no-operator",
      description =
          "Run no operator inside: start your own build against the sandbox instead, with the"
              + " command the sandbox prints (./etcd-operator run --kubeconfig <dir>/kubeconfig).")
  boolean noOperator;

  @Option(
      names = "--object-store",
      description =
          "Also run an S3-compatible object store (s3proxy, filesystem backend, on 127.0.0.1) with"
              + " a bucket 'backups' and the Secret 's3-credentials'; prints its endpoint, the"
              + " credentials and an EtcdBackup to try.")
  boolean objectStore;

  private final OperatorLauncher launcher;
  private final PrintStream out;
  private final PrintStream err;

  /**
   * The command with the operator found on the class path (see {@link
   * OperatorLauncher#onClassPath()}).
   */
  public SandboxCommand() {
    this(null, System.out, System.err);
  }

  /** The command with a given operator (null: the one on the class path) and output streams. */
  public SandboxCommand(OperatorLauncher launcher, PrintStream out, PrintStream err) {
    this.launcher = launcher;
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    Logging.quiet();
    if (nodes < 1) {
      err.println("sandbox: --nodes must be at least 1, not " + nodes);
      return 2;
    }
    if (System.getProperty(JvmHosts.PROPERTY) == null) {
      return Relauncher.relaunchWithHostsFile(dir, SandboxMain.class, rawArgs());
    }
    Relauncher.watchParent();
    OperatorLauncher operator =
        noOperator
            ? OperatorLauncher.NONE
            : launcher != null ? launcher : OperatorLauncher.onClassPath();
    if (operator == null) {
      err.println("sandbox: no operator on the class path; EtcdClusters will not be reconciled.");
      operator = OperatorLauncher.NONE;
    }
    Sandbox sandbox;
    try {
      sandbox = Sandbox.start(SandboxConfig.defaults(dir).withNodes(nodes), operator);
    } catch (SandboxException e) {
      err.println("sandbox: " + e.getMessage());
      return 2;
    }
    try {
      out.println(
          "sandbox: API server "
              + sandbox.kubectlUrl()
              + ", state in "
              + sandbox.config().stateDir());
      out.println(
          "sandbox: kubectl --kubeconfig "
              + sandbox.config().kubeconfig()
              + " get etcdclusters,pods");
      var images = sandbox.kubelet().etcdImages();
      if (images.versions().isEmpty()) {
        err.println(
            "sandbox: no etcd binaries in "
                + images.directory()
                + ": every etcd pod would wait in ErrImagePull. Run scripts/ensure-etcd first (it"
                + " puts etcd 3.4 and 3.5 there), or point ETCD_BINARIES at a directory of"
                + " <version>/bin/etcd.");
        return 2;
      }
      out.println(
          "sandbox: etcd images run the local etcd "
              + String.join(", ", images.versions().stream().map(Object::toString).toList())
              + " (from "
              + images.directory()
              + "; an image's major.minor picks one)");
      if (noOperator) {
        out.println(
            "sandbox: no operator inside; start yours (the members' names resolve through the"
                + " sandbox's hosts file):");
        out.println(
            "  ETCD_OPERATOR_JAVA_OPTS=\"-D"
                + JvmHosts.PROPERTY
                + "="
                + JvmHosts.file().toAbsolutePath()
                + " -Dsun.net.inetaddr.ttl=0\" ./etcd-operator run --kubeconfig "
                + sandbox.config().kubeconfig());
      }
      ObjectStore store = objectStore ? startObjectStore(sandbox) : null;
      apply(sandbox.client());
      Progress progress = new Progress(sandbox, out);
      String notReady = progress.awaitReady(untilReady ? timeout : null);
      if (untilReady) {
        if (notReady != null) {
          err.println("sandbox: not ready after " + timeout.toSeconds() + "s: " + notReady);
          return 1;
        }
        return 0;
      }
      out.println("sandbox: running; Ctrl-C stops it and every process it started.");
      progress.follow();
      return 0;
    } catch (SandboxException e) {
      err.println("sandbox: " + e.getMessage());
      return 2;
    } finally {
      sandbox.close();
    }
  }

  private ObjectStore startObjectStore(Sandbox sandbox) throws Exception {
    ObjectStore store = ObjectStore.start(sandbox.config().stateDir().resolve("s3"), 0);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    store.close();
                  } catch (Exception e) {
                    // going away anyway
                  }
                }));
    store.createSecret(sandbox.client(), "default");
    out.println(
        "sandbox: object store "
            + store.endpoint()
            + " (s3proxy, objects under "
            + store.dir()
            + "), bucket "
            + ObjectStore.BUCKET
            + ", AWS_ACCESS_KEY_ID="
            + ObjectStore.ACCESS_KEY
            + " AWS_SECRET_ACCESS_KEY="
            + ObjectStore.SECRET_KEY
            + ", Secret default/"
            + ObjectStore.SECRET);
    Path sample = sandbox.config().stateDir().resolve("etcdbackup-sample.yaml");
    Files.writeString(sample, store.sampleBackup("test"));
    out.println(
        "sandbox: try a backup: kubectl --kubeconfig "
            + sandbox.config().kubeconfig()
            + " apply -f "
            + sample
            + " && kubectl --kubeconfig "
            + sandbox.config().kubeconfig()
            + " get etcdbackups");
    return store;
  }

  private void apply(KubernetesClient client) throws IOException {
    List<HasMetadata> objects = new ArrayList<>();
    if (files.isEmpty()) {
      try (InputStream in = SandboxCommand.class.getClassLoader().getResourceAsStream(SAMPLE)) {
        objects.addAll(client.load(in).items());
      }
    }
    for (Path f : files) {
      if (!Files.isReadable(f)) {
        throw new SandboxException("cannot read manifest " + f);
      }
      try (InputStream in = Files.newInputStream(f)) {
        objects.addAll(client.load(in).items());
      } catch (RuntimeException e) {
        throw new SandboxException("cannot parse manifest " + f + ": " + e.getMessage(), e);
      }
    }
    for (HasMetadata o : objects) {
      if (o.getMetadata().getNamespace() == null) {
        o.getMetadata().setNamespace("default");
      }
      client.resource(o).createOr(r -> r.update());
      out.println(
          "applied "
              + o.getKind()
              + " "
              + o.getMetadata().getNamespace()
              + "/"
              + o.getMetadata().getName());
    }
  }

  /** The options again, for the JVM the command relaunches itself in. */
  List<String> rawArgs() {
    List<String> args = new ArrayList<>();
    files.forEach(
        f -> {
          args.add("-f");
          args.add(f.toString());
        });
    args.add("--dir");
    args.add(dir.toString());
    if (untilReady) {
      args.add("--until-ready");
    }
    args.add("--timeout");
    args.add(timeout.toString());
    args.add("--nodes");
    args.add(String.valueOf(nodes));
    if (objectStore) {
      args.add("--object-store");
    }
    if (noOperator) {
      args.add("--no-operator");
    }
    return args;
  }
}
