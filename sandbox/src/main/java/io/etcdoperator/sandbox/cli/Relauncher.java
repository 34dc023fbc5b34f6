package io.etcdoperator.sandbox.cli;

import io.etcdoperator.sandbox.net.JvmHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JVM resolves sandbox names only when started with {@code -Djdk.net.hosts.file}; when the
 * sandbox command runs in a JVM without it, it runs itself again in a child JVM that has it (same
 * java, same class path), with the terminal inherited, and exits with the child's status. Ctrl-C
 * reaches both (same process group); a SIGTERM to the parent is passed on to the child; either way
 * the child stops its sandbox and the parent waits for it.
 */
final class Relauncher {
  private Relauncher() {}

  static int relaunchWithHostsFile(Path dir, Class<?> main, List<String> args) throws Exception {
    Files.createDirectories(dir);
    Path hosts = dir.toAbsolutePath().resolve("jvm-hosts");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-D" + JvmHosts.PROPERTY + "=" + hosts);
    cmd.add("-Dsun.net.inetaddr.ttl=0");
    cmd.add("-Dsun.net.inetaddr.negative.ttl=0");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(args);
    Process child = new ProcessBuilder(cmd).inheritIO().start();
    Thread hook =
        new Thread(
            () -> {
              try {
                child.destroy();
                if (!child.waitFor(60, TimeUnit.SECONDS)) {
                  child.destroyForcibly();
                }
              } catch (InterruptedException e) {
                child.destroyForcibly();
              }
            });
    Runtime.getRuntime().addShutdownHook(hook);
    int rc = child.waitFor();
    Runtime.getRuntime().removeShutdownHook(hook);
    return rc;
  }
}
