package io.etcdoperator.operator.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The etcd command line of a member: the flags the operator owns, then {@code spec.options}.
 *
 * <p>The operator owns every flag that decides a member's identity, data location, membership and
 * URLs: a user value for one of them would give a member another name, lose its data or break the
 * peer URLs the member list records. TLS flags are owned too: TLS comes with {@code
 * spec.security.tls} ({@link Security}), which also sets the URLs' schemes and the operator's own
 * client; a TLS flag alone would make members unreachable by it.
 */
final class EtcdFlags {
  static final String DEFAULT_IMAGE = "quay.io/coreos/etcd:v3.5.30";
  static final String COMMAND = "etcd";
  static final String AUTO_COMPACTION_MODE = "auto-compaction-mode";
  static final String AUTO_COMPACTION_RETENTION = "auto-compaction-retention";

  private static final String IDENTITY = "member identity and data location";
  private static final String MEMBERSHIP = "cluster membership";
  private static final String URLS = "member URLs and ports";
  private static final String TLS = "TLS comes with spec.security.tls";
  private static final String CONFIG = "etcd ignores every other flag and variable when it is set";
  private static final String LOGS =
      "the operator reads a member's last words on stderr, through its termination message";

  /** Owned flag -> why the operator owns it. */
  private static final Map<String, String> OWNED = new LinkedHashMap<>();

  static {
    for (String f : List.of("name", "data-dir", "wal-dir")) {
      OWNED.put(f, IDENTITY);
    }
    for (String f :
        List.of(
            "initial-cluster",
            "initial-cluster-state",
            "initial-cluster-token",
            "force-new-cluster",
            "discovery",
            "discovery-srv",
            "discovery-srv-name",
            "discovery-fallback",
            "discovery-proxy")) {
      OWNED.put(f, MEMBERSHIP);
    }
    for (String f :
        List.of(
            "listen-peer-urls",
            "listen-client-urls",
            "listen-client-http-urls",
            "listen-metrics-urls",
            "initial-advertise-peer-urls",
            "advertise-client-urls")) {
      OWNED.put(f, URLS);
    }
    for (String f :
        List.of(
            "cert-file",
            "key-file",
            "trusted-ca-file",
            "client-cert-auth",
            "client-crl-file",
            "client-cert-file",
            "client-key-file",
            "auto-tls",
            "peer-cert-file",
            "peer-key-file",
            "peer-trusted-ca-file",
            "peer-client-cert-auth",
            "peer-crl-file",
            "peer-auto-tls",
            "peer-cert-allowed-cn",
            "peer-cert-allowed-hostname")) {
      OWNED.put(f, TLS);
    }
  }

  static {
    OWNED.put("config-file", CONFIG);
    OWNED.put("log-outputs", LOGS);
  }

  /**
   * Flags the user could set but the operator does not run members with, with why: they void
   * durability, make a process something other than a member, or loosen membership safety.
   */
  private static final Map<String, String> UNSAFE = new LinkedHashMap<>();

  static {
    UNSAFE.put("unsafe-no-fsync", "acknowledges writes before they are on disk (data loss)");
    UNSAFE.put("socket-reuse-port", "lets a second process bind the member's ports");
    for (String f :
        List.of(
            "proxy",
            "proxy-failure-wait",
            "proxy-refresh-interval",
            "proxy-dial-timeout",
            "proxy-write-timeout",
            "proxy-read-timeout")) {
      UNSAFE.put(f, "runs etcd as a v2 proxy instead of a member");
    }
  }

  private EtcdFlags() {}

  /**
   * Why the operator will not run a member with {@code --flag=value}, or empty when it may: the
   * flags of {@link #UNSAFE}, {@code strict-reconfig-check=false} (etcd would then accept a
   * membership change that leaves it without quorum), and {@code enable-v2=true} (the v2 API keeps
   * data and users of its own, outside v3 snapshots, backups and auth).
   */
  static Optional<String> unsafeBecause(String flag, String value) {
    if (UNSAFE.containsKey(flag)) {
      return Optional.of(UNSAFE.get(flag));
    }
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    if (flag.equals("strict-reconfig-check") && v.equals("false")) {
      return Optional.of("lets etcd accept a membership change that leaves it without quorum");
    }
    if (flag.equals("enable-v2") && v.equals("true")) {
      return Optional.of(
          "serves the v2 API, whose data and users live outside v3 snapshots, backups and auth");
    }
    return Optional.empty();
  }

  /** Why the operator owns {@code flag}, or empty when the user may set it. */
  static Optional<String> ownedBecause(String flag) {
    return Optional.ofNullable(OWNED.get(flag));
  }

  /**
   * The flag an environment variable sets ({@code ETCD_DATA_DIR} -> {@code data-dir}) when it is
   * one the operator owns. etcd reads {@code ETCD_<FLAG>} for every flag.
   */
  static Optional<String> ownedFlagOfEnv(String envName) {
    if (envName == null || !envName.startsWith("ETCD_")) {
      return Optional.empty();
    }
    String flag = envName.substring("ETCD_".length()).toLowerCase(Locale.ROOT).replace('_', '-');
    return OWNED.containsKey(flag) ? Optional.of(flag) : Optional.empty();
  }

  /**
   * The member's arguments. {@code $(POD_NAME)} and {@code $(POD_NAMESPACE)} are expanded by the
   * kubelet from the container's environment.
   */
  static List<String> args(String cluster, Map<String, String> options) {
    return args(cluster, options, Security.NONE);
  }

  /** The member's arguments with the TLS of {@code security}. */
  static List<String> args(String cluster, Map<String, String> options, Security security) {
    return args(cluster, options, security, TlsMove.NONE);
  }

  /**
   * The member's arguments with the TLS of {@code security}, listening on the peer URLs of {@code
   * move} while a running cluster moves its peers to TLS.
   */
  static List<String> args(
      String cluster, Map<String, String> options, Security security, TlsMove move) {
    String host =
        "$("
            + Names.ENV_POD_NAME
            + ")."
            + Names.headlessService(cluster)
            + ".$("
            + Names.ENV_POD_NAMESPACE
            + ").svc";
    List<String> args = new ArrayList<>();
    args.add("--name=$(" + Names.ENV_POD_NAME + ")");
    args.add("--data-dir=" + Names.DATA_DIR);
    // [::] is every address of the pod, IPv6 and IPv4 alike (a dual-stack socket): members work
    // on IPv4, IPv6-only and dual-stack clusters; 0.0.0.0 would bind IPv4 only.
    String client = security.clientScheme() + "://";
    args.add("--listen-peer-urls=" + move.listenPeerUrls("[::]", security.peerScheme()));
    args.add("--listen-client-urls=" + client + "[::]:" + Names.CLIENT_PORT);
    // Plain http always: the kubelet's probes and Prometheus read it (health and metrics, no data).
    args.add("--listen-metrics-urls=http://[::]:" + Names.METRICS_PORT);
    args.add(
        "--initial-advertise-peer-urls=" + move.advertisedPeerUrl(host, security.peerScheme()));
    args.add("--advertise-client-urls=" + client + host + ":" + Names.CLIENT_PORT);
    args.addAll(security.flags());
    // A member whose data diverged from its peers' (a wiped majority that took writes before the
    // survivor came back) refuses to serve, and a periodic check raises the
    // CORRUPT alarm: diverged data is reported instead of served. Options may override both.
    Map<String, String> defaults = new TreeMap<>();
    defaults.put("experimental-initial-corrupt-check", "true");
    defaults.put("experimental-corrupt-check-time", "5m");
    // History older than 5 minutes is compacted (what aenix's operator runs with), so that a
    // cluster whose clients overwrite keys does not fill its quota with old revisions; options
    // setting either flag replace both (a revision mode wants a count, not a duration).
    defaults.put(AUTO_COMPACTION_MODE, "periodic");
    defaults.put(AUTO_COMPACTION_RETENTION, "5m");
    if (options != null) {
      options.keySet().forEach(defaults::remove);
      if (options.containsKey(AUTO_COMPACTION_MODE)
          || options.containsKey(AUTO_COMPACTION_RETENTION)) {
        defaults.remove(AUTO_COMPACTION_MODE);
        defaults.remove(AUTO_COMPACTION_RETENTION);
      }
    }
    defaults.forEach((k, v) -> args.add("--" + k + "=" + v));
    if (options != null) {
      new TreeMap<>(options).forEach((k, v) -> args.add("--" + k + "=" + v));
    }
    return args;
  }
}
