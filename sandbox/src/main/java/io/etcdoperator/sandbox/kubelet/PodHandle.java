package io.etcdoperator.sandbox.kubelet;

import java.nio.file.Path;
import java.util.List;

/** What faults and tests may do to a running pod on the sandbox's node. */
public final class PodHandle {
  private final PodWorker worker;

  PodHandle(PodWorker worker) {
    this.worker = worker;
  }

  public String uid() {
    return worker.uid();
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

  /** The main process id of a container (null: the first), or -1. */
  public long pid(String container) {
    ContainerRunner r = worker.container(container);
    return r == null ? -1 : r.pid();
  }

  /** The directory backing a volume of the pod, or null before the volumes are prepared. */
  public Path volume(String name) {
    Volumes v = worker.volumes();
    return v == null ? null : v.path(name);
  }
}
