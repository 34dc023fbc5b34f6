package io.etcdoperator.e2e;

import io.etcdoperator.operator.etcd.EtcdMemberList;
import io.etcdoperator.operator.etcd.EtcdServiceConfig;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.testing.EtcdKv;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Asks a cluster's members directly, by their stable client URLs, what the operator's status only
 * reports: member and cluster IDs, the member list, and whether every member holds the same data.
 */
final class Members implements AutoCloseable {
  private final String cluster;
  private final String scheme;
  private final JetcdEtcdService etcd =
      new JetcdEtcdService(EtcdServiceConfig.defaults().withDeadline(Duration.ofSeconds(2)));
  private final EtcdKv kv;

  /** The member name each resolved address stands for: what a TLS call verifies. */
  private final Map<String, String> hostOf = new java.util.concurrent.ConcurrentHashMap<>();

  Members(String cluster) {
    this(cluster, Optional.empty());
  }

  /** Members that serve clients over https and ask for a client certificate: {@code tls}'s. */
  Members(String cluster, Optional<io.etcdoperator.operator.tls.ClientTls> tls) {
    this.cluster = cluster;
    this.scheme = tls.isPresent() ? "https" : "http";
    etcd.useTls("witness/" + cluster, tls);
    this.kv =
        new EtcdKv(
            Duration.ofSeconds(5), tls, uri -> hostOf.getOrDefault(uri.getHost(), uri.getHost()));
  }

  String url(int ordinal) {
    return Names.clientUrl(E2E.NS, cluster, ordinal, scheme);
  }

  /**
   * The member's client URL with its name resolved now: the key-value calls go through channels
   * cached per URL, which would keep a moved pod's old address.
   */
  String addressUrl(int ordinal) {
    String host = Names.memberHost(E2E.NS, cluster, ordinal);
    try {
      String address = InetAddress.getByName(host).getHostAddress();
      hostOf.put(address, host);
      return scheme + "://" + address + ":2379";
    } catch (UnknownHostException e) {
      return url(ordinal);
    }
  }

  /** What each member of ordinals {@code 0..n-1} says about itself, by pod name. */
  Map<String, EtcdStatus> statuses(int n) {
    Map<String, EtcdStatus> result = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      result.put(Names.pod(cluster, i), etcd.status("witness/" + cluster, url(i)));
    }
    return result;
  }

  /** Member ID (hex) of each answering member, by pod name. */
  Map<String, String> memberIds(int n) {
    Map<String, String> ids = new TreeMap<>();
    statuses(n)
        .forEach(
            (pod, s) -> {
              if (s.reachable()) {
                ids.put(pod, Long.toHexString(s.memberId()));
              }
            });
    return ids;
  }

  /** Every cluster ID an answering member reports (more than one: split brain). */
  Set<String> clusterIds(int n) {
    Set<String> ids = new TreeSet<>();
    statuses(n).values().stream()
        .filter(EtcdStatus::reachable)
        .forEach(s -> ids.add(Long.toHexString(s.clusterId())));
    return ids;
  }

  /** The member list as the first answering member sees it. */
  Optional<EtcdMemberList> memberList(int n) {
    for (int i = 0; i < n; i++) {
      try {
        return Optional.of(etcd.memberList("witness/" + cluster, url(i)));
      } catch (RuntimeException e) {
        // the next one
      }
    }
    return Optional.empty();
  }

  /**
   * The hash of each member's key-value store at one revision every member has reached: equal
   * hashes mean the same data. Members that do not answer are left out.
   */
  Map<String, Long> hashes(int n) {
    Map<String, Long> revisions = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      try {
        revisions.put(Names.pod(cluster, i), kv.hashKv(addressUrl(i)).revision());
      } catch (RuntimeException e) {
        // not answering
      }
    }
    long at = revisions.values().stream().mapToLong(Long::longValue).min().orElse(0);
    Map<String, Long> hashes = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      if (revisions.containsKey(Names.pod(cluster, i))) {
        hashes.put(Names.pod(cluster, i), kv.hashKv(addressUrl(i), at).hash());
      }
    }
    return hashes;
  }

  /**
   * The keys under {@code prefix} that the member of this ordinal holds: linearizable (through the
   * leader's read index, then from this member's store) or serializable (its own copy, as it is,
   * even without a quorum).
   */
  Set<String> keys(int ordinal, String prefix, boolean serializable) {
    Set<String> keys = new TreeSet<>();
    String from = prefix;
    for (int page = 0; page < 10_000; page++) {
      EtcdKv.Page p = kv.range(addressUrl(ordinal), prefix, from, 1000, serializable);
      p.entries().forEach(e -> keys.add(e.key()));
      if (!p.more() || p.entries().isEmpty()) {
        return keys;
      }
      from = p.entries().get(p.entries().size() - 1).key() + "\0";
    }
    throw new IllegalStateException("too many keys under " + prefix);
  }

  List<String> urls(int n) {
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      urls.add(url(i));
    }
    return urls;
  }

  @Override
  public void close() {
    etcd.close();
    kv.close();
  }
}
