package io.etcdoperator.sandbox.fake;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The part of etcd's configuration {@link FakeEtcd} reads, taken from a command line and an
 * environment the way etcd takes them: flags as {@code --flag=value}, {@code --flag value} or with
 * one dash, each also settable as {@code ETCD_FLAG_NAME}; a flag given on the command line wins
 * over its variable. Unset values get etcd's defaults.
 *
 * @param name {@code --name}
 * @param listenClientUrls {@code --listen-client-urls}
 * @param listenPeerUrls {@code --listen-peer-urls}
 * @param listenMetricsUrls {@code --listen-metrics-urls} (none by default)
 * @param advertiseClientUrls {@code --advertise-client-urls}
 * @param initialCluster {@code --initial-cluster}: each member's name to its peer URLs, in order
 * @param token {@code --initial-cluster-token}
 */
record EtcdArgs(
    String name,
    List<String> listenClientUrls,
    List<String> listenPeerUrls,
    List<String> listenMetricsUrls,
    List<String> advertiseClientUrls,
    Map<String, List<String>> initialCluster,
    String token) {

  private static final String NAME = "name";
  private static final String LISTEN_CLIENT = "listen-client-urls";
  private static final String LISTEN_PEER = "listen-peer-urls";
  private static final String LISTEN_METRICS = "listen-metrics-urls";
  private static final String ADVERTISE_CLIENT = "advertise-client-urls";
  private static final String ADVERTISE_PEER = "initial-advertise-peer-urls";
  private static final String INITIAL_CLUSTER = "initial-cluster";
  private static final String TOKEN = "initial-cluster-token";
  private static final Set<String> READ =
      Set.of(
          NAME,
          LISTEN_CLIENT,
          LISTEN_PEER,
          LISTEN_METRICS,
          ADVERTISE_CLIENT,
          ADVERTISE_PEER,
          INITIAL_CLUSTER,
          TOKEN);

  /**
   * Reads etcd's configuration.
   *
   * @param argv etcd's command line, the binary first (ignored)
   * @param env etcd's environment
   * @throws IOException what etcd would refuse to start with: a flag without its value, a malformed
   *     {@code --initial-cluster}, a name the initial cluster does not list
   */
  static EtcdArgs parse(List<String> argv, Map<String, String> env) throws IOException {
    Map<String, String> flags = flags(argv);
    Map<String, String> values = new LinkedHashMap<>();
    for (String flag : READ) {
      String value = flags.get(flag);
      if (value == null) {
        value = env.get("ETCD_" + flag.toUpperCase().replace('-', '_'));
      }
      if (value != null) {
        values.put(flag, value);
      }
    }
    String name = values.getOrDefault(NAME, "default");
    List<String> advertisePeer =
        split(values.getOrDefault(ADVERTISE_PEER, "http://localhost:2380"));
    // etcd: with a name of its own and no --initial-cluster, the cluster is this member alone.
    String initial = values.get(INITIAL_CLUSTER);
    if (initial == null) {
      initial = String.join(",", advertisePeer.stream().map(u -> name + "=" + u).toList());
    }
    Map<String, List<String>> cluster = initialCluster(initial);
    if (!cluster.containsKey(name)) {
      throw new IOException(
          "couldn't find local name \"" + name + "\" in the initial cluster configuration");
    }
    return new EtcdArgs(
        name,
        split(values.getOrDefault(LISTEN_CLIENT, "http://localhost:2379")),
        split(values.getOrDefault(LISTEN_PEER, "http://localhost:2380")),
        split(values.getOrDefault(LISTEN_METRICS, "")),
        split(values.getOrDefault(ADVERTISE_CLIENT, "http://localhost:2379")),
        cluster,
        values.getOrDefault(TOKEN, "etcd-cluster"));
  }

  /** The flags of the command line this class reads, by name; Go's flag syntax. */
  private static Map<String, String> flags(List<String> argv) throws IOException {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 1; i < argv.size(); i++) {
      String arg = argv.get(i);
      // Go's flag package stops at the first argument that is not a flag, and after "--".
      if (arg.equals("--") || !arg.startsWith("-") || arg.equals("-")) {
        break;
      }
      String body = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
      int eq = body.indexOf('=');
      String flag = eq < 0 ? body : body.substring(0, eq);
      String value;
      if (eq >= 0) {
        value = body.substring(eq + 1);
      } else if (READ.contains(flag)) {
        if (i + 1 >= argv.size()) {
          throw new IOException("flag needs an argument: -" + flag);
        }
        value = argv.get(++i);
      } else {
        // A flag this class ignores: its value, if it has one, is the next argument.
        if (i + 1 < argv.size() && !argv.get(i + 1).startsWith("-")) {
          i++;
        }
        continue;
      }
      flags.put(flag, value);
    }
    return flags;
  }

  private static Map<String, List<String>> initialCluster(String value) throws IOException {
    Map<String, List<String>> members = new LinkedHashMap<>();
    for (String entry : split(value)) {
      int eq = entry.indexOf('=');
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new IOException("malformed --initial-cluster entry: \"" + entry + "\"");
      }
      members
          .computeIfAbsent(entry.substring(0, eq).trim(), k -> new ArrayList<>())
          .add(entry.substring(eq + 1).trim());
    }
    return members;
  }

  private static List<String> split(String commaSeparated) {
    List<String> out = new ArrayList<>();
    for (String s : commaSeparated.split(",")) {
      if (!s.isBlank()) {
        out.add(s.trim());
      }
    }
    return List.copyOf(out);
  }
}
