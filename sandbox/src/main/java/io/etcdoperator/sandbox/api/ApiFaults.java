package io.etcdoperator.sandbox.api;

import static io.etcdoperator.sandbox.api.Responses.status;

import io.etcdoperator.sandbox.api.auth.Identity;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API server failing one client the way a real one fails its clients, for tests of how the
 * client copes (the robustness runs fail the operator's identity). One fault at a time, until
 * healed:
 *
 * <ul>
 *   <li><b>throttled</b>: every {@code every}-th request of the user is answered {@code 429
 *       TooManyRequests} with a {@code Retry-After} header, as API Priority and Fairness answers a
 *       flow over its share;
 *   <li><b>failing</b>: every {@code every}-th request is answered {@code 500 InternalError}, as
 *       when the server's etcd times out;
 *   <li><b>slow</b>: every answer to the user waits {@code delay} before its body, as an overloaded
 *       server's do.
 * </ul>
 *
 * Besides, {@link #endWatches} ends every open watch of a user with an ERROR event carrying {@code
 * 410 Expired} ("too old resource version"), what a real server sends a watch whose revision was
 * compacted away: the client must list again before it watches again. The requests counted are the
 * user's after authentication (a 401 is never a fault's).
 */
public final class ApiFaults {
  private static final Logger LOG = LoggerFactory.getLogger(ApiFaults.class);

  /** What a user's requests meet. */
  public sealed interface Fault {
    /** Every {@code every}-th request: 429 with {@code Retry-After}. */
    record Throttled(int every, Duration retryAfter) implements Fault {}

    /** Every {@code every}-th request: 500. */
    record Failing(int every) implements Fault {}

    /** Every answer: {@code delay} first. */
    record Slow(Duration delay) implements Fault {}
  }

  private final Map<String, Fault> faults = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private final Map<String, Set<WebSocket>> watches = new ConcurrentHashMap<>();

  /** From now on, {@code user}'s requests meet {@code fault}. */
  public void fail(String user, Fault fault) {
    LOG.info("API fault for {}: {}", user, fault);
    counts.put(user, new AtomicLong());
    faults.put(user, fault);
  }

  /** {@code user}'s requests are served normally again. */
  public void heal(String user) {
    if (faults.remove(user) != null) {
      LOG.info("API fault for {} healed", user);
    }
  }

  /** Ends every open watch of {@code user} with 410 Expired; returns how many there were. */
  public int endWatches(String user) {
    Set<WebSocket> open = watches.getOrDefault(user, Set.of());
    int n = 0;
    for (WebSocket w : Set.copyOf(open)) {
      w.send(
          "{\"type\":\"ERROR\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Status\","
              + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version\","
              + "\"reason\":\"Expired\",\"code\":410}}");
      w.close(1000, "");
      open.remove(w);
      n++;
    }
    LOG.info("ended {} watches of {} with 410 Expired", n, user);
    return n;
  }

  /** Answers as the fault of {@code user} says, else as {@code next} does. */
  MockResponse filter(Identity user, RecordedRequest request, Supplier<MockResponse> next) {
    Fault fault = faults.get(user.name());
    if (fault instanceof Fault.Throttled t && due(user, t.every())) {
      return status(429, "TooManyRequests", "the server has received too many requests")
          .setHeader("Retry-After", String.valueOf(Math.max(1, t.retryAfter().toSeconds())));
    }
    if (fault instanceof Fault.Failing f && due(user, f.every())) {
      return status(500, "InternalError", "etcdserver: request timed out");
    }
    MockResponse response = next.get();
    if (fault instanceof Fault.Slow s) {
      response.setBodyDelay(s.delay());
    }
    WebSocketListener listener = response.getWebSocketListener();
    if (listener != null && isWatch(request)) {
      response.withWebSocketUpgrade(new Tracked(listener, user.name()));
    }
    return response;
  }

  private boolean due(Identity user, int every) {
    return counts.computeIfAbsent(user.name(), u -> new AtomicLong()).incrementAndGet() % every
        == 0;
  }

  private static boolean isWatch(RecordedRequest request) {
    String path = request.getPath();
    return path != null && (path.contains("watch=true") || path.contains("watch=1"));
  }

  /** A watch's listener that keeps its socket among the user's open watches while it is open. */
  private final class Tracked extends WebSocketListener {
    private final WebSocketListener inner;
    private final String user;

    Tracked(WebSocketListener inner, String user) {
      this.inner = inner;
      this.user = user;
    }

    @Override
    public void onBeforeAccept(WebSocket ws, Response response) {
      inner.onBeforeAccept(ws, response);
    }

    @Override
    public void onOpen(WebSocket ws, Response response) {
      watches.computeIfAbsent(user, u -> ConcurrentHashMap.newKeySet()).add(ws);
      inner.onOpen(ws, response);
    }

    @Override
    public void onMessage(WebSocket ws, String text) {
      inner.onMessage(ws, text);
    }

    @Override
    public void onMessage(WebSocket ws, ByteString bytes) {
      inner.onMessage(ws, bytes);
    }

    @Override
    public void onMessage(WebSocket ws, byte[] bytes) {
      inner.onMessage(ws, bytes);
    }

    @Override
    public void onClosing(WebSocket ws, int code, String reason) {
      forget(ws);
      inner.onClosing(ws, code, reason);
    }

    @Override
    public void onClosed(WebSocket ws, int code, String reason) {
      forget(ws);
      inner.onClosed(ws, code, reason);
    }

    @Override
    public void onFailure(WebSocket ws, Throwable t, Response response) {
      forget(ws);
      inner.onFailure(ws, t, response);
    }

    private void forget(WebSocket ws) {
      Set<WebSocket> open = watches.get(user);
      if (open != null) {
        open.remove(ws);
      }
    }
  }
}
