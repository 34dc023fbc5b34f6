package io.etcdoperator.sandbox.kubelet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What faults and tests may do to a running pod on the sandbox's node. */
public final class PodHandle {
  private final PodWorker worker;

  PodHandle(PodWorker worker) {
    this.worker = worker;
  }

  public String uid() {
    return worker.uid();
  }

  /** The node the pod runs on. */
  public String node() {
    return worker.node();
  }

  /** The pod's current address, or null before it has one. */
  public String ip() {
    return worker.podIp();
  }

  /** Names of the pod's containers. */
  public List<String> containers() {
    return worker.containers().stream().map(ContainerRunner::name).toList();
  }

  /** SIGKILL to a container's process group (null: the first container); false if none runs. */
  public boolean kill(String container) {
    ContainerRunner r = worker.container(container);
    return r != null && r.kill();
  }

  /** See {@link io.etcdoperator.sandbox.Faults#crash}. */
  public boolean crash(Duration down) {
    return worker.crash(down);
  }

  /** SIGSTOP to every container's process group. */
  public boolean freeze() {
    boolean any = false;
    for (ContainerRunner r : worker.containers()) {
      any |= r.signal("STOP");
    }
    return any;
  }

  /** SIGCONT to every container's process group. */
  public boolean thaw() {
    boolean any = false;
    for (ContainerRunner r : worker.containers()) {
      any |= r.signal("CONT");
    }
    return any;
  }

  /** See {@link io.etcdoperator.sandbox.Faults#wipe}. */
  public List<String> wipeClaims() {
    return worker.wipeClaims();
  }

  /**
   * Runs a command inside a container's mount and UTS namespaces (as {@code kubectl exec} would),
   * with the container's hosts file; returns exit code and output.
   */
  public ExecResult exec(String container, Duration timeout, String... command) throws IOException {
    long pid = pid(container);
    if (pid <= 0) {
      throw new IOException("container " + container + " of " + worker.key() + " is not running");
    }
    List<String> cmd =
        new ArrayList<>(
            List.of("nsenter", "--target", String.valueOf(pid), "--mount", "--uts", "--"));
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IOException("timed out: " + String.join(" ", command));
      }
      return new ExecResult(
          p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
  }

  /** Exit code and combined output of {@link #exec}. */
  public record ExecResult(int exitCode, String output) {}

  /** The main process id of a container (null: the first), or -1. */
  public long pid(String container) {
    ContainerRunner r = worker.container(container);
    return r == null ? -1 : r.pid();
  }

  /** The directories backing the pod's claims, by claim name (empty before they are prepared). */
  public Map<String, Path> claims() {
    Volumes v = worker.volumes();
    return v == null ? Map.of() : v.claims();
  }

  /** The directory backing a volume of the pod, or null before the volumes are prepared. */
  public Path volume(String name) {
    Volumes v = worker.volumes();
    return v == null ? null : v.path(name);
  }
}
