package io.etcdoperator.sandbox.kubelet;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A sandbox pod has no network namespace of its own, so the kubelet emulates one for etcd: in
 * etcd's listen URLs (flags {@code --listen-client-urls}, {@code --listen-peer-urls}, {@code
 * --listen-metrics-urls} and the matching {@code ETCD_LISTEN_*} variables) a wildcard or loopback
 * host ({@code 0.0.0.0}, {@code 127.0.0.1}, {@code localhost}, {@code [::]}, {@code [::1]}) becomes
 * the pod's own address, and duplicates that this creates are dropped. When neither the flag nor
 * the variable sets the client or peer listen URLs, etcd's defaults (localhost:2379 and :2380) are
 * given the same treatment. Nothing else is rewritten: advertise URLs stay as written.
 *
 * <p>One more consequence of the shared network: a member dials its peers from {@code 127.0.0.1},
 * whatever address it listens on, while etcd checks the SANs of a peer's client certificate against
 * the address the connection comes from (by IP SAN, or by reverse and forward lookups of DNS SANs).
 * No certificate issued for a pod's names can pass that here, so when peers must show client
 * certificates ({@code --peer-client-cert-auth}) the kubelet sets {@code
 * ETCD_EXPERIMENTAL_PEER_SKIP_CLIENT_SAN_VERIFICATION=true} unless the pod chose. The peer's
 * certificate chain, its CA and the SANs a dialing member checks against the peer URL's host are
 * still verified. On a cluster each pod has its own address and the check applies.
 */
public final class ListenUrls {
  private static final List<String> FLAGS =
      List.of("listen-client-urls", "listen-peer-urls", "listen-metrics-urls");
  private static final Set<String> LOCAL_HOSTS =
      Set.of("0.0.0.0", "127.0.0.1", "localhost", "[::]", "::", "[::1]", "");

  private ListenUrls() {}

  /** Rewrites one comma-separated URL list. */
  public static String rewrite(String urls, String podIp) {
    Set<String> out = new LinkedHashSet<>();
    for (String url : urls.split(",")) {
      String u = url.trim();
      if (u.isEmpty()) {
        continue;
      }
      int schemeEnd = u.indexOf("://");
      String scheme = schemeEnd < 0 ? "" : u.substring(0, schemeEnd + 3);
      String rest = schemeEnd < 0 ? u : u.substring(schemeEnd + 3);
      int slash = rest.indexOf('/');
      String hostPort = slash < 0 ? rest : rest.substring(0, slash);
      String path = slash < 0 ? "" : rest.substring(slash);
      int colon = hostPort.lastIndexOf(':');
      String host = colon < 0 || hostPort.endsWith("]") ? hostPort : hostPort.substring(0, colon);
      String port = colon < 0 || hostPort.endsWith("]") ? "" : hostPort.substring(colon);
      out.add(LOCAL_HOSTS.contains(host) ? scheme + podIp + port + path : u);
    }
    return String.join(",", out);
  }

  /** Rewrites etcd's argv (after the binary) in place and returns it. */
  public static List<String> rewriteArgs(List<String> args, String podIp) {
    List<String> out = new ArrayList<>(args);
    for (int i = 0; i < out.size(); i++) {
      String a = out.get(i);
      String flag = flagName(a);
      if (flag == null || !FLAGS.contains(flag)) {
        continue;
      }
      int eq = a.indexOf('=');
      if (eq >= 0) {
        out.set(i, a.substring(0, eq + 1) + rewrite(a.substring(eq + 1), podIp));
      } else if (i + 1 < out.size()) {
        out.set(i + 1, rewrite(out.get(i + 1), podIp));
        i++;
      }
    }
    return out;
  }

  /** Rewrites etcd's environment in place, adding listen URLs where etcd would use its defaults. */
  public static void rewriteEnv(Map<String, String> env, List<String> args, String podIp) {
    for (String flag : FLAGS) {
      String var = "ETCD_" + flag.toUpperCase().replace('-', '_');
      if (env.containsKey(var)) {
        env.put(var, rewrite(env.get(var), podIp));
      }
    }
    if (!hasFlag(args, "listen-client-urls") && !env.containsKey("ETCD_LISTEN_CLIENT_URLS")) {
      env.put("ETCD_LISTEN_CLIENT_URLS", "http://" + podIp + ":2379");
    }
    if (!hasFlag(args, "listen-peer-urls") && !env.containsKey("ETCD_LISTEN_PEER_URLS")) {
      env.put("ETCD_LISTEN_PEER_URLS", "http://" + podIp + ":2380");
    }
    String skip = "experimental-peer-skip-client-san-verification";
    boolean peerClientAuth =
        args.stream()
                .anyMatch(
                    a ->
                        a.equals("--peer-client-cert-auth=true")
                            || a.equals("--peer-client-cert-auth"))
            || "true".equals(env.get("ETCD_PEER_CLIENT_CERT_AUTH"));
    if (peerClientAuth
        && !hasFlag(args, skip)
        && !env.containsKey("ETCD_EXPERIMENTAL_PEER_SKIP_CLIENT_SAN_VERIFICATION")) {
      env.put("ETCD_EXPERIMENTAL_PEER_SKIP_CLIENT_SAN_VERIFICATION", "true");
    }
  }

  private static boolean hasFlag(List<String> args, String name) {
    return args.stream().anyMatch(a -> name.equals(flagName(a)));
  }

  private static String flagName(String arg) {
    if (!arg.startsWith("-")) {
      return null;
    }
    String s = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
    int eq = s.indexOf('=');
    return eq < 0 ? s : s.substring(0, eq);
  }
}
