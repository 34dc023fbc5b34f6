package io.etcdoperator.operator.etcd;

import io.etcdoperator.operator.tls.ClientTls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
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
  private final HttpClient http;
  private final Duration deadline;

  /**
   * What the metrics say of the member's raft log.
   *
   * @param committedIndex {@code etcd_server_proposals_committed_total}: the member's commit index
   * @param appliedIndex {@code etcd_server_proposals_applied_total}
   * @param hasLeader {@code etcd_server_has_leader}
   */
  public record Progress(long committedIndex, long appliedIndex, boolean hasLeader) {}

  /**
   * The socket factory of each TLS material (by fingerprint), at most {@value #TLS_CONTEXTS}: https
   * calls go through {@link HttpsURLConnection}, which starts no thread of its own (a JDK {@link
   * HttpClient} per cluster would cost one each).
   */
  private final Map<String, SSLSocketFactory> tlsFactories =
      java.util.Collections.synchronizedMap(
          new java.util.LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, SSLSocketFactory> eldest) {
              return size() > TLS_CONTEXTS;
            }
          });

  private static final int TLS_CONTEXTS = 256;

  public EtcdHttp(Duration deadline) {
    this.deadline = deadline;
    this.http = HttpClient.newBuilder().connectTimeout(deadline).build();
  }

  /** GET over https with the cluster's TLS material; the body of a 200, else empty. */
  private Optional<String> httpsGet(String url, ClientTls tls) {
    SSLSocketFactory factory =
        tlsFactories.computeIfAbsent(tls.fingerprint(), f -> tls.sslContext().getSocketFactory());
    HttpsURLConnection c = null;
    try {
      c = (HttpsURLConnection) URI.create(url).toURL().openConnection();
      c.setSSLSocketFactory(factory);
      c.setConnectTimeout((int) deadline.toMillis());
      c.setReadTimeout((int) deadline.toMillis());
      if (c.getResponseCode() != 200) {
        return Optional.empty();
      }
      try (var in = c.getInputStream()) {
        return Optional.of(new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8));
      }
    } catch (java.io.IOException | IllegalArgumentException e) {
      return Optional.empty();
    } finally {
      if (c != null) {
        c.disconnect();
      }
    }
  }

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
      return tls.flatMap(t -> httpsGet(clientUrl + "/version", t)).flatMap(EtcdHttp::parseVersions);
    }
    try {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(clientUrl + "/version"))
              .timeout(deadline)
              .GET()
              .build();
      HttpResponse<String> response =
          http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
              .get(deadline.toMillis() + 100, TimeUnit.MILLISECONDS);
      return response.statusCode() == 200 ? parseVersions(response.body()) : Optional.empty();
    } catch (ExecutionException | TimeoutException | IllegalArgumentException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
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
    Map<String, CompletableFuture<HttpResponse<String>>> calls = new LinkedHashMap<>();
    for (String url : baseUrls) {
      try {
        HttpRequest request =
            HttpRequest.newBuilder(URI.create(url + "/metrics")).timeout(deadline).GET().build();
        calls.put(url, http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
      } catch (IllegalArgumentException e) {
        // not a URL: no answer
      }
    }
    long until = System.nanoTime() + deadline.toNanos() + TimeUnit.MILLISECONDS.toNanos(100);
    Map<String, Progress> result = new LinkedHashMap<>();
    for (var call : calls.entrySet()) {
      try {
        long left = Math.max(0, until - System.nanoTime());
        HttpResponse<String> response = call.getValue().get(left, TimeUnit.NANOSECONDS);
        if (response.statusCode() == 200) {
          parse(response.body()).ifPresent(p -> result.put(call.getKey(), p));
        }
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
        default -> {}
      }
    }
    return committed == null
        ? Optional.empty()
        : Optional.of(new Progress(committed, applied, leader));
  }
}
