package io.etcdoperator.sandbox.cli;

import io.etcdoperator.sandbox.Sandbox;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Shows what happens in a sandbox, one line per change: pods (phase, readiness, restarts, address)
 * and EtcdClusters (their status conditions, members, leader, as the operator reports them), until
 * every EtcdCluster's {@code Ready} condition is True; then the client endpoints and an {@code
 * etcdctl} line that works from this machine's shell.
 */
final class Progress {
  static final ResourceDefinitionContext ETCD_CLUSTERS =
      new ResourceDefinitionContext.Builder()
          .withGroup("etcd.aenix.io")
          .withVersion("v1alpha1")
          .withPlural("etcdclusters")
          .withKind("EtcdCluster")
          .withNamespaced(true)
          .build();

  private final Sandbox sandbox;
  private final PrintStream out;
  private final Map<String, String> shown = new HashMap<>();
  private final Set<String> printed = new HashSet<>();

  Progress(Sandbox sandbox, PrintStream out) {
    this.sandbox = sandbox;
    this.out = out;
  }

  /**
   * Prints progress until every EtcdCluster is Ready (then its endpoints; with no EtcdCluster at
   * all: until every pod is Running and Ready) or the timeout passes (null: no timeout); returns
   * null when ready, else why not.
   */
  String awaitReady(Duration timeout) throws InterruptedException {
    long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
    String why = "nothing observed yet";
    while (System.nanoTime() < deadline) {
      try {
        why = poll();
        if (why == null) {
          return null;
        }
      } catch (KubernetesClientException e) {
        why = "the API server did not answer: " + e.getMessage();
      }
      Thread.sleep(500);
    }
    return why;
  }

  /** Keeps printing changes until interrupted. */
  void follow() throws InterruptedException {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        poll();
      } catch (KubernetesClientException e) {
        // the next poll tells
      }
      Thread.sleep(1000);
    }
  }

  private String poll() {
    var client = sandbox.client();
    List<String> podsNotReady = new ArrayList<>();
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    for (Pod p : pods) {
      String d = describe(p);
      show("pod " + key(p.getMetadata().getNamespace(), p.getMetadata().getName()), d);
      if (!d.startsWith("Running, ready")) {
        podsNotReady.add(p.getMetadata().getName());
      }
    }
    List<GenericKubernetesResource> clusters =
        client.genericKubernetesResources(ETCD_CLUSTERS).inAnyNamespace().list().getItems();
    List<String> notReady = new ArrayList<>();
    for (GenericKubernetesResource c : clusters) {
      String key = key(c.getMetadata().getNamespace(), c.getMetadata().getName());
      Map<String, Object> status = map(c.getAdditionalProperties().get("status"));
      show("etcdcluster " + key, describe(status));
      Map<String, Object> ready = condition(status, "Ready");
      if (ready == null || !"True".equals(ready.get("status"))) {
        notReady.add(
            key
                + ": "
                + (ready == null
                    ? "no Ready condition in its status yet (is the operator running?)"
                    : "Ready="
                        + ready.get("status")
                        + " ("
                        + ready.get("reason")
                        + ": "
                        + ready.get("message")
                        + ")"));
      }
    }
    if (!notReady.isEmpty()) {
      return String.join("; ", notReady);
    }
    if (clusters.isEmpty()) {
      if (pods.isEmpty()) {
        return "no EtcdCluster and no pod yet";
      }
      return podsNotReady.isEmpty() ? null : "pods not ready: " + String.join(", ", podsNotReady);
    }
    for (GenericKubernetesResource c : clusters) {
      if (printed.add(c.getMetadata().getUid())) {
        printEndpoints(c.getMetadata().getNamespace(), c.getMetadata().getName());
      }
    }
    return null;
  }

  private void printEndpoints(String ns, String name) {
    String service = name + "." + ns + ".svc";
    List<String> ips = sandbox.kubelet().dns().records().getOrDefault(service, List.of());
    if (ips.isEmpty()) {
      // The operator's Ready comes from etcd itself, often before the kubelet's readiness probes
      // have put the members behind the Service: the member pods' own addresses serve as well.
      ips =
          sandbox
              .client()
              .pods()
              .inNamespace(ns)
              .withLabel("app.kubernetes.io/instance", name)
              .list()
              .getItems()
              .stream()
              .filter(p -> p.getStatus() != null && p.getStatus().getPodIP() != null)
              .filter(p -> p.getMetadata().getName().matches(Pattern.quote(name) + "-\\d+"))
              .map(p -> p.getStatus().getPodIP())
              .sorted()
              .toList();
    }
    List<String> urls = ips.stream().map(ip -> "http://" + ip + ":2379").toList();
    out.println("etcdcluster " + key(ns, name) + " is Ready.");
    out.println("  client endpoints: " + String.join(",", urls));
    out.println("  inside the sandbox: http://" + service + ":2379");
    var images = sandbox.kubelet().etcdImages();
    String etcdctl =
        images.versions().isEmpty()
            ? "etcdctl"
            : images
                .version(images.versions().get(images.versions().size() - 1).minorVersion())
                .orElseThrow()
                .tool("etcdctl");
    out.println(
        "  try: " + etcdctl + " --endpoints=" + String.join(",", urls) + " endpoint health");
  }

  private void show(String what, String description) {
    if (!Objects.equals(shown.put(what, description), description)) {
      out.println(what + ": " + description);
    }
  }

  static String describe(Pod p) {
    if (p.getStatus() == null || p.getStatus().getPhase() == null) {
      return "Pending";
    }
    StringBuilder b = new StringBuilder(p.getStatus().getPhase());
    boolean ready =
        p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    b.append(ready ? ", ready" : ", not ready");
    int restarts = 0;
    String waiting = null;
    for (ContainerStatus s : p.getStatus().getContainerStatuses()) {
      restarts += s.getRestartCount() == null ? 0 : s.getRestartCount();
      if (s.getState() != null && s.getState().getWaiting() != null) {
        waiting = s.getState().getWaiting().getReason();
      }
    }
    if (waiting != null) {
      b.append(", ").append(waiting);
    }
    if (restarts > 0) {
      b.append(", restarts ").append(restarts);
    }
    if (p.getStatus().getPodIP() != null) {
      b.append(", ").append(p.getStatus().getPodIP());
    }
    return b.toString();
  }

  static String describe(Map<String, Object> status) {
    if (status == null) {
      return "no status yet";
    }
    StringBuilder b = new StringBuilder();
    Object conditions = status.get("conditions");
    if (conditions instanceof List<?> list) {
      for (Object o : list) {
        Map<String, Object> c = map(o);
        if (c != null) {
          b.append(b.length() == 0 ? "" : ", ")
              .append(c.get("type"))
              .append('=')
              .append(c.get("status"));
          if (c.get("reason") != null) {
            b.append(" (").append(c.get("reason")).append(')');
          }
        }
      }
    }
    for (String f : List.of("readyMembers", "leader", "clusterID")) {
      if (status.get(f) != null) {
        b.append(b.length() == 0 ? "" : ", ").append(f).append(' ').append(status.get(f));
      }
    }
    Object members = status.get("members");
    if (members instanceof List<?> list && !list.isEmpty()) {
      List<String> names = new ArrayList<>();
      for (Object o : list) {
        Map<String, Object> m = map(o);
        if (m != null) {
          String role =
              Boolean.TRUE.equals(m.get("learner")) || "learner".equals(m.get("role"))
                  ? " (learner)"
                  : "";
          names.add(m.get("name") + role);
        }
      }
      b.append(b.length() == 0 ? "" : ", ").append("members ").append(String.join(" ", names));
    }
    return b.length() == 0 ? "status without conditions" : b.toString();
  }

  static Map<String, Object> condition(Map<String, Object> status, String type) {
    if (status == null || !(status.get("conditions") instanceof List<?> list)) {
      return null;
    }
    for (Object o : list) {
      Map<String, Object> c = map(o);
      if (c != null && type.equals(c.get("type"))) {
        return c;
      }
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
  }

  private static String key(String ns, String name) {
    return ns + "/" + name;
  }
}
