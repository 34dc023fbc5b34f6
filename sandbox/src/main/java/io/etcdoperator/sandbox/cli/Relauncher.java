package io.etcdoperator.sandbox.cli;

import io.etcdoperator.sandbox.net.JvmHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The JVM resolves sandbox names only when started with {@code -Djdk.net.hosts.file}; when the
 * sandbox command runs in a JVM without it, it runs itself again in a child JVM that has it (same
 * java, same class path), with the terminal inherited, and exits with the child's status. Ctrl-C
 * reaches both (same process group); a SIGTERM to the parent is passed on to the child; either way
 * the child stops its sandbox and the parent waits for it. A parent killed with SIGKILL can pass
 * nothing on: the child is told the parent's pid ({@value #PARENT_PROPERTY}) and watches it ({@link
 * #watchParent}), so it stops its sandbox within a second or two of the parent's death.
 */
public final class Relauncher {
  /** The system property that names, in the child, the pid of the JVM that launched it. */
  static final String PARENT_PROPERTY = "sandbox.launcher.pid";

  private static final long POLL_MILLIS = 500;

  private Relauncher() {}

  /**
   * In a child this class launched: a daemon thread that exits the JVM (its shutdown hooks stop the
   * sandbox and every process it started) once the launcher is gone, whatever killed it.
   */
  public static void watchParent() {
    String pid = System.getProperty(PARENT_PROPERTY);
    if (pid == null || pid.isBlank()) {
      return;
    }
    Optional<ProcessHandle> parent = ProcessHandle.of(Long.parseLong(pid.trim()));
    Thread t =
        new Thread(
            () -> {
              try {
                while (parent.map(ProcessHandle::isAlive).orElse(false)) {
                  Thread.sleep(POLL_MILLIS);
                }
              } catch (InterruptedException e) {
                return;
              }
              System.err.println(
                  "sandbox: the launcher (pid " + pid.trim() + ") is gone; stopping the sandbox.");
              System.exit(143);
            },
            "sandbox-launcher-watch");
    t.setDaemon(true);
    t.start();
  }

  public static int relaunchWithHostsFile(Path dir, Class<?> main, List<String> args)
      throws Exception {
    Files.createDirectories(dir);
    Path hosts = dir.toAbsolutePath().resolve("jvm-hosts");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-D" + JvmHosts.PROPERTY + "=" + hosts);
    cmd.add("-Dsun.net.inetaddr.ttl=0");
    cmd.add("-Dsun.net.inetaddr.negative.ttl=0");
    cmd.add("-D" + PARENT_PROPERTY + "=" + ProcessHandle.current().pid());
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
