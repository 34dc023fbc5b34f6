package io.etcdoperator.operator.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/** Prints the operator's version. */
@Command(name = "version", description = "Print the version and exit.")
public final class VersionCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.out.println("etcd-operator " + version());
    return 0;
  }

  /** The project version the jar was built from. */
  public static String version() {
    Properties p = new Properties();
    try (InputStream in =
        VersionCommand.class.getResourceAsStream("/etcd-operator-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p.getProperty("version", "unknown");
  }

  /** Lets {@code --version} print the same. */
  public static final class Provider implements IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"etcd-operator " + version()};
    }
  }
}
