package io.etcdoperator.sandbox.process;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts a container's process the way the sandbox isolates pods: in its own session and process
 * group ({@code setsid}), killed if the JVM thread that started it dies ({@code setpriv --pdeathsig
 * KILL}), in its own mount and UTS namespaces ({@code unshare --mount --uts}), where a small shell
 * script bind-mounts the pod's hosts file on {@code /etc/hosts}, the sandbox's {@code resolv.conf}
 * on {@code /etc/resolv.conf}, each volume on its mount path, sets the hostname to the pod's,
 * changes to the working directory and then {@code exec}s the command (through {@code setpriv} when
 * the container runs as another user, see {@link RunAs}), so that the process id returned is the
 * container's main process and its process group id.
 *
 * <p>The environment is exactly the container's (plus PATH if unset and the sandbox's tag), not the
 * JVM's.
 */
public final class ProcessLauncher {
  /** A bind mount into the container. */
  public record Mount(Path source, String target, boolean readOnly) {}

  /**
   * Who the container's command runs as, after the setup (which needs root for its mounts): {@code
   * setpriv} sets the user, the group and the supplementary groups, and with {@code noNewPrivs} the
   * process can never gain privileges (allowPrivilegeEscalation: false).
   *
   * @param uid user id (0: root)
   * @param gid primary group id
   * @param groups supplementary groups (fsGroup, supplementalGroups)
   * @param noNewPrivs set the no_new_privs bit
   * @param ambientCaps capabilities kept across the change of user (names as setpriv takes them)
   */
  public record RunAs(
      long uid, long gid, List<Long> groups, boolean noNewPrivs, List<String> ambientCaps) {
    public RunAs {
      groups = List.copyOf(groups);
      ambientCaps = List.copyOf(ambientCaps);
    }
  }

  /** Everything needed to start one container process; {@code runAs} null: as root. */
  public record Spec(
      List<String> argv,
      Map<String, String> env,
      String hostname,
      Path hostsFile,
      Path resolvConf,
      List<Mount> mounts,
      String workingDir,
      Path logFile,
      String tag,
      RunAs runAs) {}

  /** Where the setup stages the volumes before mounting them (a tmpfs of the container's own). */
  static final String STAGE = "/run/sandbox-stage";

  /** The setup script's {@code $0}: while a process's arguments contain it, its setup runs. */
  static final String SETUP_MARKER = "sandbox-container-setup";

  private ProcessLauncher() {}

  /** Starts the process; the caller's thread should live as long as the process does. */
  public static Process start(Spec spec) throws IOException {
    StringBuilder script = new StringBuilder("set -e\n");
    script.append("mount --bind ").append(q(spec.hostsFile().toString())).append(" /etc/hosts\n");
    script
        .append("mount --bind ")
        .append(q(spec.resolvConf().toString()))
        .append(" /etc/resolv.conf\n");
    script.append("hostname ").append(q(spec.hostname())).append('\n');
    // Every volume is first bound under a private staging tmpfs, then from there onto its mount
    // path: a volume mounted on a directory that holds another volume's source (an emptyDir on
    // /tmp while the sandbox's state is under /tmp) would otherwise hide that source.
    List<Mount> mounts = spec.mounts();
    if (!mounts.isEmpty()) {
      script.append("mkdir -p ").append(STAGE).append('\n');
      script.append("mount -t tmpfs -o size=64k,mode=0700 sandbox-stage ").append(STAGE);
      script.append('\n');
    }
    for (int i = 0; i < mounts.size(); i++) {
      Mount m = mounts.get(i);
      String staged = STAGE + "/" + i;
      script
          .append(Files.isDirectory(m.source()) ? "mkdir " : ": > ")
          .append(staged)
          .append("\nmount --bind ")
          .append(q(m.source().toString()))
          .append(' ')
          .append(staged)
          .append('\n');
    }
    for (int i = 0; i < mounts.size(); i++) {
      Mount m = mounts.get(i);
      String target = q(m.target());
      if (Files.isDirectory(m.source())) {
        script.append("mkdir -p ").append(target).append('\n');
      } else {
        script.append("mkdir -p \"$(dirname ").append(target).append(")\"; [ -e ").append(target);
        script.append(" ] || : > ").append(target).append('\n');
      }
      script.append("mount --bind ").append(STAGE).append('/').append(i).append(' ');
      script.append(target).append('\n');
      if (m.readOnly()) {
        script.append("mount -o remount,bind,ro ").append(target).append('\n');
      }
    }
    if (!mounts.isEmpty()) {
      script.append("umount -l ").append(STAGE).append('\n');
    }
    if (spec.workingDir() != null && !spec.workingDir().isEmpty()) {
      script.append("cd ").append(q(spec.workingDir())).append('\n');
    }
    RunAs as = spec.runAs();
    if (as == null) {
      script.append("exec \"$@\"\n");
    } else {
      script.append("exec setpriv --reuid=").append(as.uid()).append(" --regid=").append(as.gid());
      script.append(
          as.groups().isEmpty()
              ? " --clear-groups"
              : " --groups="
                  + String.join(",", as.groups().stream().map(String::valueOf).toList()));
      if (!as.ambientCaps().isEmpty()) {
        String caps = String.join(",", as.ambientCaps().stream().map(c -> "+" + c).toList());
        script.append(" --inh-caps=").append(caps).append(" --ambient-caps=").append(caps);
      }
      if (as.noNewPrivs()) {
        script.append(" --no-new-privs");
      }
      script.append(" -- \"$@\"\n");
    }

    List<String> cmd = new ArrayList<>();
    cmd.add("setsid");
    cmd.add("setpriv");
    cmd.add("--pdeathsig");
    cmd.add("KILL");
    cmd.add("unshare");
    cmd.add("--mount");
    cmd.add("--uts");
    cmd.add("--propagation");
    cmd.add("private");
    cmd.add("/bin/sh");
    cmd.add("-c");
    cmd.add(script.toString());
    cmd.add(SETUP_MARKER);
    cmd.addAll(spec.argv());

    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env.put("HOSTNAME", spec.hostname());
    env.putAll(spec.env());
    env.put(ProcessSweeper.TAG_VARIABLE, spec.tag());
    Files.createDirectories(spec.logFile().toAbsolutePath().getParent());
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()));
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    return pb.start();
  }

  /**
   * Waits until the process has finished its setup and exec'd the container's command (the setup
   * marker is gone from its arguments; the command may have exec'd further since), so that its
   * namespaces and mounts are in place; false if it exited or did not get there within the timeout.
   */
  public static boolean awaitExec(Process p, Duration timeout) {
    Path cmdline = Path.of("/proc", String.valueOf(p.pid()), "cmdline");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (p.isAlive() && System.nanoTime() < deadline) {
      try {
        String args = new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8);
        if (!args.isEmpty() && !List.of(args.split("\0")).contains(SETUP_MARKER)) {
          return true;
        }
        Thread.sleep(5);
      } catch (IOException e) {
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  /** Single-quotes a string for sh. */
  static String q(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
