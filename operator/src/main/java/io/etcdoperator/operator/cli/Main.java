package io.etcdoperator.operator.cli;

import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code etcd-operator} command line. Subcommands of other modules (the sandbox) are found
 * through {@link SubcommandProvider} on the class path, so that the operator module does not depend
 * on them.
 */
@Command(
    name = "etcd-operator",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.Provider.class,
    description = "Runs durable etcd clusters on Kubernetes.",
    subcommands = {VersionCommand.class, RenderCommand.class})
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The full command line, with every subcommand found on the class path. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Main());
    for (SubcommandProvider provider : ServiceLoader.load(SubcommandProvider.class)) {
      cli.addSubcommand(provider.command());
    }
    return cli;
  }
}
