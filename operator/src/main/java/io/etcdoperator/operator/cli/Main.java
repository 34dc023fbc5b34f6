package io.etcdoperator.operator.cli;

import java.security.Security;
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
    subcommands = {RunCommand.class, RenderCommand.class, VersionCommand.class, AgentCommand.class})
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    shortAddressCache();
    System.exit(commandLine().execute(args));
  }

  /**
   * A member's pod gets a new address each time it is recreated, under the same name; the JVM keeps
   * a name's address for 30 s by default, and for that long the operator would see a member that
   * came back as gone. While the pod is away its name does not resolve, and the JVM remembers that
   * for 10 s by default: the member would stay "not answering" that long after it came back. One
   * second for both, unless the user chose otherwise ({@code -Dsun.net.inetaddr.ttl}, {@code
   * -Dsun.net.inetaddr.negative.ttl}, or the security properties). Must run before the first
   * lookup: the JVM reads the settings once.
   */
  static void shortAddressCache() {
    if (Security.getProperty(ADDRESS_CACHE_TTL) == null
        && System.getProperty("sun.net.inetaddr.ttl") == null) {
      Security.setProperty(ADDRESS_CACHE_TTL, "1");
    }
    // The JDK's java.security file sets the negative TTL to 10: that value is the default, not a
    // choice.
    String negative = Security.getProperty(NEGATIVE_CACHE_TTL);
    if ((negative == null || negative.equals(JDK_NEGATIVE_CACHE_TTL))
        && System.getProperty("sun.net.inetaddr.negative.ttl") == null) {
      Security.setProperty(NEGATIVE_CACHE_TTL, "1");
    }
  }

  static final String ADDRESS_CACHE_TTL = "networkaddress.cache.ttl";
  static final String NEGATIVE_CACHE_TTL = "networkaddress.cache.negative.ttl";
  private static final String JDK_NEGATIVE_CACHE_TTL = "10";

  /** The full command line, with every subcommand found on the class path. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Main());
    for (SubcommandProvider provider : ServiceLoader.load(SubcommandProvider.class)) {
      cli.addSubcommand(provider.command());
    }
    return cli;
  }
}
