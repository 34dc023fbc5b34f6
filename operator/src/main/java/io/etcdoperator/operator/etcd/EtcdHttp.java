package io.etcdoperator.operator.etcd;

import io.etcdoperator.operator.tls.ClientTls;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

/**
 * What members serve over HTTP(S), besides gRPC: their versions ({@code /version}) and their raft
 * progress (the Prometheus {@code /metrics} page). A member restarted while its cluster has no
 * quorum serves no client request at all (etcd serves clients only once it has joined a cluster
 * with quorum), but its metrics listener answers: it is the only way to learn how far each
 * survivor's log goes, and so which survivor holds the most advanced data.
 *
 * <p>Every call has the deadline; members are asked at once; one that does not answer within it is
 * simply absent from the result.
 */
public final class EtcdHttp {
  private final Duration deadline;

  /**
   * What the metrics say of the member's raft log.
   *
   * @param committedIndex {@code etcd_server_proposals_committed_total}: the member's commit index
   * @param appliedIndex {@code etcd_server_proposals_applied_total}
   * @param hasLeader {@code etcd_server_has_leader}
   * @param revision {@code etcd_debugging_mvcc_current_revision}: the key-value store's revision, 1
   *     when no write was ever applied to this data dir (0 when the page lacks it)
   */
  public record Progress(
      long committedIndex, long appliedIndex, boolean hasLeader, long revision) {}

  /** The socket factory of each TLS material (by fingerprint), at most {@value #TLS_CONTEXTS}. */
  private final Map<String, SSLSocketFactory> tlsFactories =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, SSLSocketFactory> eldest) {
              return size() > TLS_CONTEXTS;
            }
          });

  private static final int TLS_CONTEXTS = 256;

  public EtcdHttp(Duration deadline) {
    this.deadline = deadline;
  }

  /**
   * GET with the deadline for connecting and for reading, over https with the TLS material's socket
   * factory when given; the body of a 200, else empty. Through {@link java.net.HttpURLConnection},
   * which keeps an idle connection 5 s and starts no thread: the JDK's {@code HttpClient} kept a
   * connection to every member it had asked (with its buffers, in an operator of a thousand
   * members) and a selector thread besides, for calls this rare (a cluster version that may have
   * changed, the metrics of a member that does not answer).
   */
  private Optional<String> get(String url, Optional<SSLSocketFactory> tls) {
    HttpURLConnection c = null;
    try {
      c = (HttpURLConnection) URI.create(url).toURL().openConnection();
      if (c instanceof HttpsURLConnection https && tls.isPresent()) {
        https.setSSLSocketFactory(tls.get());
      }
      c.setConnectTimeout((int) deadline.toMillis());
      c.setReadTimeout((int) deadline.toMillis());
      if (c.getResponseCode() != 200) {
        return Optional.empty();
      }
      try (var in = c.getInputStream()) {
        return Optional.of(new String(in.readNBytes(MAX_BODY), StandardCharsets.UTF_8));
      }
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    } finally {
      if (c != null) {
        c.disconnect();
      }
    }
  }

  /** A metrics page is some tens of KiB; what lies beyond this is not read. */
  private static final int MAX_BODY = 1024 * 1024;

  private Optional<SSLSocketFactory> factory(ClientTls tls) {
    return Optional.of(
        tlsFactories.computeIfAbsent(tls.fingerprint(), f -> tls.sslContext().getSocketFactory()));
  }

  /** Asks several members at once: daemon threads, gone after a minute unused. */
  private static final ExecutorService PARALLEL =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "etcd-http");
            t.setDaemon(true);
            return t;
          });

  /**
   * What a member's {@code /version} says.
   *
   * @param server the member's own version ({@code etcdserver}), e.g. 3.5.30
   * @param cluster the cluster version ({@code etcdcluster}), e.g. 3.5.0: the lowest version every
   *     member runs, which etcd raises once all have moved, and never lowers
   */
  public record Versions(String server, String cluster) {}

  /** The versions the member at {@code clientUrl} reports, if it answers within the deadline. */
  public Optional<Versions> versions(String clientUrl) {
    return versions(clientUrl, Optional.empty());
  }

  /**
   * The versions the member at {@code clientUrl} reports, over https with {@code tls} when the URL
   * is https (the client port then also asks for the operator's certificate).
   */
  public Optional<Versions> versions(String clientUrl, Optional<ClientTls> tls) {
    if (clientUrl.startsWith("https:")) {
      return tls.flatMap(t -> get(clientUrl + "/version", factory(t)))
          .flatMap(EtcdHttp::parseVersions);
    }
    return get(clientUrl + "/version", Optional.empty()).flatMap(EtcdHttp::parseVersions);
  }

  /** {@code {"etcdserver":"3.5.30","etcdcluster":"3.5.0"}}; empty when either is missing. */
  static Optional<Versions> parseVersions(String body) {
    Matcher server = SERVER.matcher(body);
    Matcher cluster = CLUSTER.matcher(body);
    return server.find() && cluster.find()
        ? Optional.of(new Versions(server.group(1), cluster.group(1)))
        : Optional.empty();
  }

  private static final Pattern SERVER = Pattern.compile("\"etcdserver\"\\s*:\\s*\"([^\"]+)\"");
  private static final Pattern CLUSTER = Pattern.compile("\"etcdcluster\"\\s*:\\s*\"([^\"]+)\"");

  /**
   * The progress of every member that answered, by metrics base URL (e.g. {@code
   * http://host:2381}).
   */
  public Map<String, Progress> progress(List<String> baseUrls) {
    Map<String, CompletableFuture<Optional<String>>> calls = new LinkedHashMap<>();
    for (String url : baseUrls) {
      calls.put(
          url,
          CompletableFuture.supplyAsync(() -> get(url + "/metrics", Optional.empty()), PARALLEL));
    }
    // connecting and reading each have the deadline
    long until = System.nanoTime() + 2 * deadline.toNanos() + TimeUnit.MILLISECONDS.toNanos(100);
    Map<String, Progress> result = new LinkedHashMap<>();
    for (var call : calls.entrySet()) {
      try {
        long left = Math.max(0, until - System.nanoTime());
        call.getValue()
            .get(left, TimeUnit.NANOSECONDS)
            .flatMap(EtcdHttp::parse)
            .ifPresent(p -> result.put(call.getKey(), p));
      } catch (ExecutionException | TimeoutException e) {
        call.getValue().cancel(true);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return result;
  }

  /** The progress in a Prometheus text page, if it has the commit index. */
  static Optional<Progress> parse(String page) {
    Long committed = null;
    long applied = 0;
    boolean leader = false;
    long revision = 0;
    for (String line : page.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      if (space < 0) {
        continue;
      }
      String name = line.substring(0, space).trim();
      double value;
      try {
        value = Double.parseDouble(line.substring(space + 1).trim());
      } catch (NumberFormatException e) {
        continue;
      }
      switch (name) {
        case "etcd_server_proposals_committed_total" -> committed = (long) value;
        case "etcd_server_proposals_applied_total" -> applied = (long) value;
        case "etcd_server_has_leader" -> leader = value == 1;
        case "etcd_debugging_mvcc_current_revision" -> revision = (long) value;
        default -> {}
      }
    }
    return committed == null
        ? Optional.empty()
        : Optional.of(new Progress(committed, applied, leader, revision));
  }
}
