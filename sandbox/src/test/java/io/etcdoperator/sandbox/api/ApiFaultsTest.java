package io.etcdoperator.sandbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.sandbox.api.ApiFaults.Fault;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The API server failing one user: throttled and failing requests are every n-th one and say so as
 * a real server does (429 with Retry-After, 500), a slow server answers late, open watches end with
 * 410 Expired; healed, the user is served again; another user is never touched.
 */
class ApiFaultsTest {
  private static final String ADMIN = Identity.administrator().name();
  private ApiServer api;
  private final HttpClient http = SelfSigned.httpClient(Duration.ofSeconds(5));

  @BeforeEach
  void start() throws Exception {
    api = new ApiServer();
    api.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private HttpResponse<String> get(String token) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/namespaces/default/pods"))
            .header("Authorization", "Bearer " + token)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private List<Integer> codes(String token, int n) throws Exception {
    List<Integer> codes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      codes.add(get(token).statusCode());
    }
    return codes;
  }

  @Test
  void throttledRequestsAre429WithRetryAfterAndOthersAreServed() throws Exception {
    api.faults().fail(ADMIN, new Fault.Throttled(2, Duration.ofSeconds(3)));
    assertThat(codes(api.adminToken(), 4)).containsExactly(200, 429, 200, 429);
    HttpResponse<String> throttled = get(api.adminToken());
    if (throttled.statusCode() != 429) {
      throttled = get(api.adminToken());
    }
    assertThat(throttled.headers().firstValue("Retry-After")).contains("3");
    assertThat(throttled.body()).contains("\"reason\":\"TooManyRequests\"");
    api.faults().heal(ADMIN);
    assertThat(codes(api.adminToken(), 3)).containsOnly(200);
  }

  @Test
  void failingRequestsAre500AndAnotherUserIsNotTouched() throws Exception {
    api.faults().fail("someone-else", new Fault.Failing(1));
    assertThat(codes(api.adminToken(), 3)).containsOnly(200);
    api.faults().fail(ADMIN, new Fault.Failing(3));
    assertThat(codes(api.adminToken(), 6)).containsExactly(200, 200, 500, 200, 200, 500);
  }

  @Test
  void aSlowServerAnswersLate() throws Exception {
    api.faults().fail(ADMIN, new Fault.Slow(Duration.ofMillis(400)));
    long start = System.nanoTime();
    assertThat(get(api.adminToken()).statusCode()).isEqualTo(200);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(400));
  }

  @Test
  void openWatchesEndWith410Expired() throws Exception {
    AtomicReference<WatcherException> closed = new AtomicReference<>();
    try (KubernetesClient k = api.newClient();
        var watch =
            k.pods()
                .inNamespace("default")
                .watch(
                    new Watcher<Pod>() {
                      @Override
                      public void eventReceived(Action action, Pod resource) {}

                      @Override
                      public void onClose(WatcherException cause) {
                        closed.set(cause);
                      }
                    })) {
      await().atMost(Duration.ofSeconds(5)).until(() -> api.faults().endWatches(ADMIN) == 1);
      await().atMost(Duration.ofSeconds(5)).until(() -> closed.get() != null);
      assertThat(closed.get().isHttpGone()).isTrue();
    }
  }
}
