package io.etcdoperator.sandbox;

import io.etcdoperator.sandbox.api.ApiFaults;
import io.etcdoperator.sandbox.api.ApiServer;
import io.etcdoperator.sandbox.kubelet.Kubelet;
import io.etcdoperator.sandbox.kubelet.PodHandle;
import io.etcdoperator.sandbox.net.PeerLinks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Faults to inject into a running sandbox, for tests and for the {@code sandbox fault} command:
 * what happens to real pods when a process crashes, a pod is deleted, a disk is lost, or a node
 * stops answering.
 */
public final class Faults {
  private final ApiServer api;
  private final Kubelet kubelet;
  private final Sandbox sandbox;

  Faults(ApiServer api, Kubelet kubelet, Sandbox sandbox) {
    this.api = api;
    this.kubelet = kubelet;
    this.sandbox = sandbox;
  }

  /** The API server, for tests in this package that fail one identity's requests. */
  ApiServer api() {
    return api;
  }

  /**
   * SIGKILL to a container's process group (null: the pod's first container): a crash;
   * restartPolicy decides what follows.
   */
  public void kill(String namespace, String pod, String container) {
    if (!running(namespace, pod).kill(container)) {
      throw new IllegalArgumentException(
          "container "
              + (container == null ? "" : container + " ")
              + "of pod "
              + namespace
              + "/"
              + pod
              + " is not running");
    }
  }

  /**
   * SIGKILL to every container of the pod, and none restarts for {@code down} (at most 30 s): a
   * member that is really gone for a while, as one in a crash loop's back-off, rather than one
   * restarted at once.
   */
  public void crash(String namespace, String pod, Duration down) {
    if (!running(namespace, pod).crash(down)) {
      throw new IllegalArgumentException("pod " + namespace + "/" + pod + " runs no container");
    }
  }

  /** Deletes the pod through the API, as {@code kubectl delete pod} does. */
  public void delete(String namespace, String pod) {
    if (!api.deleteInProcess("/api/v1/namespaces/" + namespace + "/pods/" + pod)) {
      throw new IllegalArgumentException("no pod " + namespace + "/" + pod);
    }
  }

  /**
   * Loses the pod's persistent volumes: its containers are killed and held down, every claim
   * directory it mounts is emptied, then the containers restart (per restartPolicy) on empty
   * volumes. Returns the claims wiped.
   */
  public List<String> wipe(String namespace, String pod) {
    return running(namespace, pod).wipeClaims();
  }

  /**
   * Bit rot: in every file of the pod's claims, the last byte of each occurrence of {@code marker}
   * is flipped in place, while its processes run (a running etcd sees it through its memory map of
   * the database). A disk that returns other bytes than were written, which no checksum of etcd's
   * database catches: only comparing members' data does. Returns the bytes flipped.
   */
  public int rot(String namespace, String pod, byte[] marker) {
    int flipped = 0;
    for (Path claim : running(namespace, pod).claims().values()) {
      try (Stream<Path> files = Files.walk(claim)) {
        for (Path file : files.filter(Files::isRegularFile).toList()) {
          flipped += BitRot.flip(file, marker);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return flipped;
  }

  /** SIGSTOP to every process of the pod: it neither answers nor dies, like a partitioned node. */
  public void freeze(String namespace, String pod) {
    if (!running(namespace, pod).freeze()) {
      throw new IllegalArgumentException(
          "pod " + namespace + "/" + pod + " has no running process");
    }
  }

  /**
   * SIGCONT to every process of the pod, unless its node is down: a node that is down keeps its
   * processes stopped until it is up again, whatever froze them first (a freeze that ended while
   * the node was down once let a member of a down node run on: robustness seed 31287).
   */
  public void thaw(String namespace, String pod) {
    PodHandle h = running(namespace, pod);
    if (kubelet.isDown(h.node())) {
      return;
    }
    if (!h.thaw()) {
      throw new IllegalArgumentException(
          "pod " + namespace + "/" + pod + " has no running process");
    }
  }

  /**
   * Makes the pod's etcd ports unreachable from the operator only, as a NetworkPolicy that drops
   * the operator's traffic to it would: the operator (this JVM) resolves the pod's names to a black
   * hole where connections are accepted and never answered, so its calls time out; the pod's peers
   * and the kubelet's probes still reach it. Lasts, across restarts of the pod, until {@link
   * #heal}.
   */
  public void partition(String namespace, String pod) {
    running(namespace, pod);
    kubelet.partition(namespace, pod, true);
  }

  /** Ends a {@link #partition}: the operator reaches the pod again. */
  public void heal(String namespace, String pod) {
    kubelet.partition(namespace, pod, false);
  }

  /**
   * The node stops, as a node that hangs or is cut off from the network: every process of every pod
   * on it is frozen (SIGSTOP), and its kubelet stops renewing the node's Lease and does nothing for
   * its pods (no status writes, no starts or restarts, no completion of terminations). After the
   * grace period the node lifecycle controller marks it NotReady and taints it unreachable; its
   * pods are then deleted as their tolerations run out, and stay Terminating.
   */
  public void nodeDown(String node) {
    kubelet.nodeDown(node);
  }

  /**
   * The node is back: its processes are thawed, its Lease renewed and Ready posted, and its kubelet
   * acts again: pods deleted meanwhile are stopped and their termination completed; the others run
   * on and their status is written again.
   */
  public void nodeUp(String node) {
    kubelet.nodeUp(node);
  }

  /**
   * The node is gone for good: its processes are killed, the Node object deleted, and its local
   * volumes deleted with their data (their claims become Lost). The pod garbage collector then
   * force-deletes the pods bound to it; network volumes survive and mount elsewhere. Returns the
   * local PersistentVolumes deleted.
   */
  public List<String> nodeDelete(String node) {
    removeNode(node);
    return sandbox.volumes().deleteLocalVolumes(node);
  }

  /** The part of {@link #nodeDelete} that makes no request of the API server over HTTP. */
  void removeNode(String node) {
    kubelet.removeNode(node);
    api.deleteInProcess("/api/v1/nodes/" + node);
  }

  /**
   * Partitions the members of a namespace from each other: pods on different sides reach each other
   * no more (their links are cut in both directions), pods on one side still do; the operator and
   * clients still reach every pod. A pod on no side keeps its links to every side (a bridge). Needs
   * a sandbox started {@link SandboxConfig#withPeerLinks() with peer links}; lasts until {@link
   * #healPeers}.
   */
  public void partitionPeers(String namespace, List<Set<String>> sides) {
    PeerLinks links = peerLinks();
    if (sides.size() == 1) {
      Set<String> rest = new TreeSet<>(links.pods(namespace));
      rest.removeAll(sides.get(0));
      sides = List.of(sides.get(0), rest);
    }
    for (int i = 0; i < sides.size(); i++) {
      for (int j = i + 1; j < sides.size(); j++) {
        for (String a : sides.get(i)) {
          for (String b : sides.get(j)) {
            links.cut(namespace, a, b, true);
          }
        }
      }
    }
  }

  /** Delays, by {@code delay}, everything between {@code pod} and every other member. */
  public void delayPeers(String namespace, String pod, List<String> others, Duration delay) {
    PeerLinks links = peerLinks();
    for (String other : others) {
      links.delay(namespace, pod, other, delay);
    }
  }

  /** Every link between the members of the namespace back to normal. */
  public void healPeers(String namespace) {
    peerLinks().heal(namespace);
  }

  private PeerLinks peerLinks() {
    PeerLinks links = kubelet.dns().peerLinks();
    if (links == null) {
      throw new IllegalStateException(
          "members reach each other directly: start the sandbox with SandboxConfig.withPeerLinks()");
    }
    return links;
  }

  /** Stops the operator (as if its pod died); a no-op when it is stopped. */
  public void stopOperator() throws Exception {
    sandbox.stopOperator();
  }

  /** Starts the operator again; a no-op when it runs. */
  public void startOperator() throws Exception {
    sandbox.startOperator();
  }

  private PodHandle running(String namespace, String pod) {
    PodHandle h = kubelet.pod(namespace, pod);
    if (h == null) {
      throw new IllegalArgumentException("no running pod " + namespace + "/" + pod);
    }
    return h;
  }

  /**
   * From now on every {@code every}-th request of the operator is answered {@code 429
   * TooManyRequests} with {@code Retry-After}, until {@link #apiHeal}.
   */
  public void apiThrottle(int every, Duration retryAfter) {
    api.faults().fail(operator(), new ApiFaults.Fault.Throttled(every, retryAfter));
  }

  /** From now on every {@code every}-th request of the operator fails with 500, until healed. */
  public void apiFail(int every) {
    api.faults().fail(operator(), new ApiFaults.Fault.Failing(every));
  }

  /** From now on every answer to the operator comes {@code delay} late, until healed. */
  public void apiSlow(Duration delay) {
    api.faults().fail(operator(), new ApiFaults.Fault.Slow(delay));
  }

  /** Ends every open watch of the operator with 410 Expired; returns how many. */
  public int apiWatchesGone() {
    return api.faults().endWatches(operator());
  }

  /** The operator's requests are served normally again. */
  public void apiHeal() {
    api.faults().heal(operator());
  }

  private String operator() {
    return sandbox.operatorIdentity().name();
  }
}
