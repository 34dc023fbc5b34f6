package io.etcdoperator.sandbox.net;

import io.etcdoperator.sandbox.SandboxException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.Security;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JVM's own name resolution for sandbox names: the file named by the {@code jdk.net.hosts.file}
 * system property, which the JDK reads instead of asking DNS. The property takes effect only when
 * set at JVM start, so it cannot be set here: its absence is an error.
 *
 * <p>The file is replaced whole on each change ({@link HostsFile#replace}), so that a lookup never
 * reads it half written.
 *
 * <p>Several sandboxes of one JVM share the one file: each publishes its own entries under its id
 * and the file is rewritten with the union (for a name published by two sandboxes, the one
 * published last wins).
 */
public final class JvmHosts {
  /** The system property the JDK reads. */
  public static final String PROPERTY = "jdk.net.hosts.file";

  private static final Map<String, Map<String, List<String>>> BY_SANDBOX = new LinkedHashMap<>();

  private JvmHosts() {}

  /**
   * The hosts file of this JVM; fails with one clear sentence when the JVM was started without it.
   */
  public static Path file() {
    String p = System.getProperty(PROPERTY);
    if (p == null || p.isBlank()) {
      throw new SandboxException(
          "The sandbox needs the JVM started with -D"
              + PROPERTY
              + "=<writable file> (and -Dsun.net.inetaddr.ttl=0) so that it can resolve pod names;"
              + " add it to the java command line.");
    }
    Security.setProperty("networkaddress.cache.ttl", "0");
    Security.setProperty("networkaddress.cache.negative.ttl", "0");
    return Path.of(p);
  }

  /** Replaces the entries of one sandbox and rewrites the file. */
  public static synchronized void publish(String sandboxId, Map<String, List<String>> entries) {
    BY_SANDBOX.remove(sandboxId);
    BY_SANDBOX.put(sandboxId, new LinkedHashMap<>(entries));
    rewrite();
  }

  /** Removes the entries of one sandbox. */
  public static synchronized void withdraw(String sandboxId) {
    if (BY_SANDBOX.remove(sandboxId) != null) {
      rewrite();
    }
  }

  private static void rewrite() {
    Map<String, List<String>> merged = new LinkedHashMap<>();
    for (Map<String, List<String>> entries : BY_SANDBOX.values()) {
      entries.forEach((name, addresses) -> merged.put(name, new ArrayList<>(addresses)));
    }
    try {
      HostsFile.replace(
          file(), HostsFile.render("etcd-operator sandbox: names of this JVM", merged));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
