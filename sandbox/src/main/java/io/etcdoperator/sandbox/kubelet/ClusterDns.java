package io.etcdoperator.sandbox.kubelet;

import io.etcdoperator.sandbox.net.DnsServer;
import io.etcdoperator.sandbox.net.HostsFile;
import io.etcdoperator.sandbox.net.JvmHosts;
import io.etcdoperator.sandbox.net.PeerLinks;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The sandbox's cluster DNS, as hosts files.
 *
 * <p>Records, computed from the Services and the live pods (a pod is live from the moment the
 * kubelet gives it an address until its processes are gone), as CoreDNS would serve them:
 *
 * <ul>
 *   <li>a Service with a selector: {@code <svc>.<ns>.svc} and {@code <svc>.<ns>.svc.cluster.local}
 *       resolve to the addresses of the live pods it selects that are Ready (all of them when
 *       {@code publishNotReadyAddresses}). There is no virtual Service IP and no proxy: clients
 *       reach the pods directly, on the target port;
 *   <li>a headless Service ({@code clusterIP: None}) also gives each such pod whose {@code
 *       hostname} is set and whose {@code subdomain} is the Service's name the record {@code
 *       <hostname>.<svc>.<ns>.svc[.cluster.local]}.
 * </ul>
 *
 * <p>Served, as on a cluster, by a DNS server ({@link DnsServer}, UDP port 53 on a loopback address
 * of its own) that pods reach through their {@code resolv.conf} (the sandbox's server, the search
 * path {@code <ns>.svc.cluster.local svc.cluster.local cluster.local}, {@code ndots:5}), with TTL
 * 0. Each pod's {@code /etc/hosts} holds what the kubelet writes there: localhost and the pod's own
 * hostname lines. The JVM resolves the same fully qualified names through its hosts file ({@link
 * JvmHosts}). Hosts files are rewritten in place on each change.
 */
public final class ClusterDns {
  /** A pod that has an address. */
  public record LivePod(Pod pod, String ip, boolean ready) {}

  private final String sandboxId;
  private final Path dir;
  private final Supplier<List<Service>> services;
  private final Supplier<List<LivePod>> pods;
  private volatile Map<String, List<String>> global = Map.of();

  /** Every record, pod names included (the DNS server leaves those out with peer links). */
  private volatile Map<String, List<String>> all = Map.of();

  private PeerLinks peers;
  private DnsServer server;
  private final Set<String> partitioned = new TreeSet<>();
  private Supplier<String> blackHole;

  /** What each pod's hosts file holds now, by pod UID: a file is written only when it changes. */
  private final Map<String, String> podHosts = new HashMap<>();

  /** The records last published to the JVM's hosts file. */
  private Map<String, List<String>> publishedToJvm = Map.of();

  public ClusterDns(
      String sandboxId, Path dir, Supplier<List<Service>> services, Supplier<List<LivePod>> pods) {
    this.sandboxId = sandboxId;
    this.dir = dir;
    this.services = services;
    this.pods = pods;
  }

  /** Starts the DNS server on {@code address}, port 53. */
  public synchronized void startServer(String address) throws IOException {
    server =
        new DnsServer(
            address,
            name -> {
              List<String> a = global.get(name);
              return a == null ? List.of() : a;
            });
  }

  /**
   * From now on members of one headless Service reach each other through {@code links} (see {@link
   * io.etcdoperator.sandbox.net.PeerLinks}): each pod's hosts file maps the other members' names to
   * its links to them, and the DNS server no longer answers pod names (so that no lookup goes
   * around a link); other pods' hosts files map pod names to the pods' addresses.
   */
  public synchronized void usePeerLinks(PeerLinks links) {
    this.peers = links;
  }

  /** The peer links, or null when members reach each other directly. */
  public synchronized PeerLinks peerLinks() {
    return peers;
  }

  /** A pod's name record: a headless Service's pod, by its hostname. */
  private record PodName(String namespace, String service, String pod, String name, String ip) {}

  /** The resolv.conf of a pod: the sandbox's name server and the search path of its namespace. */
  Path resolvConf(PodWorker w) {
    String ns = w.pod().getMetadata().getNamespace();
    Path p = dir.resolve("resolv-" + w.uid() + ".conf");
    String nameserver = server == null ? "127.0.0.1" : server.address();
    try {
      Files.createDirectories(dir);
      Files.writeString(
          p,
          "# etcd-operator sandbox: the sandbox's cluster DNS\nnameserver "
              + nameserver
              + "\nsearch "
              + ns
              + ".svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5 timeout:1 attempts:2\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  /** The hosts file of a pod (created when first asked). */
  Path podHostsFile(PodWorker w) {
    return dir.resolve("hosts-" + w.uid());
  }

  /**
   * Resolves a name as a pod would: loopback literals as themselves, sandbox names to an address,
   * else null.
   */
  public String resolve(String host) {
    if (host.equals("localhost")) {
      return "127.0.0.1";
    }
    if (host.matches("127(\\.\\d{1,3}){3}") || host.equals("::1") || host.equals("[::1]")) {
      return host;
    }
    List<String> a = all.get(host.endsWith(".") ? host.substring(0, host.length() - 1) : host);
    return a == null || a.isEmpty() ? null : a.get(0);
  }

  /**
   * Partitions a pod from this JVM (the operator) or heals it: while partitioned, the JVM resolves
   * the pod's own names ({@code <hostname>.<svc>.<ns>.svc[.cluster.local]}) to the black-hole
   * address, so that the operator's calls to the member connect and then hang until their deadline,
   * as behind a NetworkPolicy that drops its traffic; pods (through the DNS server) and the
   * kubelet's probes (by pod address) still reach it, and Service names still resolve to it (they
   * are how other clients reach etcd, not how the operator does).
   *
   * @param blackHole the black-hole address, asked for when first needed
   */
  public synchronized void partition(
      String namespace, String pod, boolean on, Supplier<String> blackHole) {
    this.blackHole = blackHole;
    if (on) {
      partitioned.add(namespace + "/" + pod);
    } else {
      partitioned.remove(namespace + "/" + pod);
    }
    refresh();
  }

  /** The pods partitioned from the JVM now ({@code namespace/name}). */
  public synchronized Set<String> partitioned() {
    return Set.copyOf(partitioned);
  }

  /** Every fully qualified record now. */
  public Map<String, List<String>> records() {
    return global;
  }

  /** Recomputes the records and rewrites every file. */
  public synchronized void refresh() {
    List<LivePod> live = new ArrayList<>(pods.get());
    live.sort(Comparator.comparing(p -> p.pod().getMetadata().getName()));
    // Pods by namespace and label: a Service's selector looks at the pods of its rarest label only
    // (a thousand Services over a thousand pods must not cost a million matches per change).
    Map<String, List<LivePod>> byLabel = new HashMap<>();
    for (LivePod lp : live) {
      Map<String, String> labels = lp.pod().getMetadata().getLabels();
      if (labels != null) {
        String ns = lp.pod().getMetadata().getNamespace();
        labels.forEach(
            (k, v) ->
                byLabel.computeIfAbsent(ns + "/" + k + "=" + v, x -> new ArrayList<>()).add(lp));
      }
    }
    Map<String, List<String>> fq = new LinkedHashMap<>();
    Map<String, List<String>> jvm = new LinkedHashMap<>();
    List<PodName> podNames = new ArrayList<>();
    for (Service s : services.get()) {
      String ns = s.getMetadata().getNamespace();
      String name = s.getMetadata().getName();
      Map<String, String> selector = s.getSpec() == null ? null : s.getSpec().getSelector();
      if (selector == null || selector.isEmpty()) {
        continue;
      }
      boolean headless = "None".equals(s.getSpec().getClusterIP());
      boolean notReadyToo = Boolean.TRUE.equals(s.getSpec().getPublishNotReadyAddresses());
      List<String> endpoints = new ArrayList<>();
      List<LivePod> candidates =
          selector.entrySet().stream()
              .map(e -> byLabel.getOrDefault(ns + "/" + e.getKey() + "=" + e.getValue(), List.of()))
              .min(Comparator.comparingInt(List::size))
              .orElse(List.of());
      for (LivePod lp : candidates) {
        String key = lp.pod().getMetadata().getNamespace() + "/" + lp.pod().getMetadata().getName();
        Pod p = lp.pod();
        if (!matches(selector, p) || !(lp.ready() || notReadyToo)) {
          continue;
        }
        endpoints.add(lp.ip());
        String hostname = p.getSpec().getHostname();
        if (headless && hostname != null && name.equals(p.getSpec().getSubdomain())) {
          add(fq, hostname + "." + name + "." + ns + ".svc", lp.ip());
          add(fq, hostname + "." + name + "." + ns + ".svc.cluster.local", lp.ip());
          podNames.add(
              new PodName(
                  ns,
                  name,
                  p.getMetadata().getName(),
                  hostname + "." + name + "." + ns + ".svc",
                  lp.ip()));
          if (partitioned.contains(key)) {
            String hole = blackHole.get();
            add(jvm, hostname + "." + name + "." + ns + ".svc", hole);
            add(jvm, hostname + "." + name + "." + ns + ".svc.cluster.local", hole);
          }
        }
      }
      for (String ip : endpoints) {
        add(fq, name + "." + ns + ".svc", ip);
        add(fq, name + "." + ns + ".svc.cluster.local", ip);
      }
    }
    all = fq;
    if (peers == null) {
      global = fq;
    } else {
      Map<String, List<String>> dns = new LinkedHashMap<>(fq);
      for (PodName n : podNames) {
        dns.remove(n.name());
        dns.remove(n.name() + ".cluster.local");
      }
      global = dns;
    }
    Map<String, List<String>> forJvm = new LinkedHashMap<>(fq);
    forJvm.putAll(jvm);
    if (!forJvm.equals(publishedToJvm)) {
      JvmHosts.publish(sandboxId, forJvm);
      publishedToJvm = forJvm;
    }
    try {
      for (LivePod lp : live) {
        Pod p = lp.pod();
        Map<String, List<String>> entries = new LinkedHashMap<>();
        String hostname =
            p.getSpec().getHostname() != null
                ? p.getSpec().getHostname()
                : p.getMetadata().getName();
        if (p.getSpec().getSubdomain() != null) {
          add(
              entries,
              hostname
                  + "."
                  + p.getSpec().getSubdomain()
                  + "."
                  + p.getMetadata().getNamespace()
                  + ".svc.cluster.local",
              lp.ip());
        }
        add(entries, hostname, lp.ip());
        if (peers != null) {
          addPodNames(entries, p, lp.ip(), podNames);
        }
        String uid = p.getMetadata().getUid();
        String content =
            HostsFile.render(
                "etcd-operator sandbox: /etc/hosts of pod "
                    + p.getMetadata().getNamespace()
                    + "/"
                    + p.getMetadata().getName(),
                entries);
        if (!content.equals(podHosts.get(uid))) {
          HostsFile.write(dir.resolve("hosts-" + uid), content);
          podHosts.put(uid, content);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * With peer links, the pod names a pod's hosts file holds: its own, its fellow members' through
   * its links to them, every other pod's as its address.
   */
  private void addPodNames(
      Map<String, List<String>> entries, Pod p, String ip, List<PodName> podNames) {
    String ns = p.getMetadata().getNamespace();
    for (PodName n : podNames) {
      String address;
      if (n.namespace().equals(ns) && n.pod().equals(p.getMetadata().getName())) {
        address = ip;
      } else if (n.namespace().equals(ns) && n.service().equals(p.getSpec().getSubdomain())) {
        address = peers.address(ns, p.getMetadata().getName(), n.pod(), n.name());
      } else {
        address = n.ip();
      }
      add(entries, n.name(), address);
      add(entries, n.name() + ".cluster.local", address);
    }
  }

  /** Removes a pod's hosts file once its processes are gone. */
  synchronized void forget(String uid) {
    podHosts.remove(uid);
    try {
      Files.deleteIfExists(dir.resolve("hosts-" + uid));
      Files.deleteIfExists(dir.resolve("resolv-" + uid + ".conf"));
    } catch (IOException e) {
      // best effort
    }
  }

  /** Withdraws this sandbox's names from the JVM. */
  public synchronized void close() {
    if (server != null) {
      server.close();
    }
    if (peers != null) {
      peers.close();
    }
    JvmHosts.withdraw(sandboxId);
  }

  private static boolean matches(Map<String, String> selector, Pod p) {
    Map<String, String> labels = p.getMetadata().getLabels();
    return labels != null && labels.entrySet().containsAll(selector.entrySet());
  }

  private static void add(Map<String, List<String>> m, String name, String ip) {
    List<String> l = m.computeIfAbsent(name, k -> new ArrayList<>());
    if (!l.contains(ip)) {
      l.add(ip);
    }
  }
}
