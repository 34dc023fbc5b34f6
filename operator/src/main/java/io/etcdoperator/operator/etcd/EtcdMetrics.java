package io.etcdoperator.operator.etcd;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads a member's raft progress from its Prometheus endpoint. A member restarted while its cluster
 * has no quorum serves no client request at all (etcd 3.4 serves clients only once it has joined a
 * cluster with quorum), but its metrics listener answers: it is the only way to learn how far each
 * survivor's log goes, and so which survivor holds the most advanced data.
 *
 * <p>All members are asked at once with one deadline; one that does not answer within it is simply
 * absent from the result.
 */
public final class EtcdMetrics {
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

  public EtcdMetrics(Duration deadline) {
    this.deadline = deadline;
    this.http = HttpClient.newBuilder().connectTimeout(deadline).build();
  }

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
