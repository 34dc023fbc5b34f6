package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The {@code pods/proxy} subresource, as the API server serves it: {@code
 * /api/v1/namespaces/NS/pods/[SCHEME:]NAME[:PORT]/proxy/PATH} sends the request (method, body,
 * content type, query) to the pod's IP and port over http or https, and answers with the pod's
 * answer. As on a real cluster, the API server presents no client certificate to the pod and does
 * not verify the pod's serving certificate (a pod's certificate is not the cluster's to vouch for);
 * a pod that is gone is a 404, one without an IP or that does not answer a 503 saying why.
 * Authorization is the caller's: {@code create} (or {@code get}) on {@code pods/proxy}.
 */
public final class ProxyHandler implements Handler {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;
  private final HttpClient http;

  public ProxyHandler(Store store) {
    this.store = store;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .sslContext(trustingEveryServer())
            .sslParameters(withoutHostnameCheck())
            .build();
  }

  /** What a proxy path names: scheme, pod and port. */
  record Target(String scheme, String pod, int port) {
    static Target parse(String name) {
      String[] parts = name.split(":", -1);
      if (parts.length == 3) {
        return new Target(parts[0].isEmpty() ? "http" : parts[0], parts[1], port(parts[2]));
      }
      if (parts.length == 2 && (parts[0].equals("http") || parts[0].equals("https"))) {
        return new Target(parts[0], parts[1], 80);
      }
      if (parts.length == 2) {
        return new Target("http", parts[0], port(parts[1]));
      }
      return new Target("http", name, 80);
    }

    private static int port(String p) {
      return p.isEmpty() ? 80 : Integer.parseInt(p);
    }
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    ApiPath api = request.api();
    Target target = Target.parse(api.name());
    MockResponse stored =
        store.get("/api/v1/namespaces/" + api.namespace() + "/pods/" + target.pod());
    if (stored.code() != 200) {
      return status(404, "NotFound", "pods \"" + target.pod() + "\" not found");
    }
    JsonNode pod = mapper.readTree(stored.getBody().readUtf8());
    String ip = pod.path("status").path("podIP").asText("");
    if (ip.isEmpty()) {
      return status(
          503,
          "ServiceUnavailable",
          "error trying to reach service: pod " + target.pod() + " has no IP address");
    }
    String marker = "/proxy";
    String path = request.path();
    int at = path.indexOf(marker, path.indexOf("/pods/"));
    String rest = at < 0 ? "/" : path.substring(at + marker.length());
    if (rest.isEmpty() || rest.startsWith("?")) {
      rest = "/" + rest;
    }
    URI uri = URI.create(target.scheme() + "://" + ip + ":" + target.port() + rest);
    String body = request.body();
    HttpRequest.Builder forward =
        HttpRequest.newBuilder(uri)
            .timeout(TIMEOUT)
            .method(
                request.method().name(),
                body == null || body.isEmpty()
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (request.contentType() != null && !request.contentType().isEmpty()) {
      forward.header("Content-Type", request.contentType());
    }
    HttpResponse<byte[]> answer;
    try {
      answer = http.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      return status(503, "ServiceUnavailable", "error trying to reach service: " + uri + ": " + e);
    }
    MockResponse out =
        new MockResponse()
            .setResponseCode(answer.statusCode())
            .setBody(new String(answer.body(), StandardCharsets.UTF_8));
    answer
        .headers()
        .firstValue("Content-Type")
        .ifPresent(type -> out.setHeader("Content-Type", type));
    return out;
  }

  private static SSLContext trustingEveryServer() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          null,
          new TrustManager[] {
            // Extended, so that the JDK checks neither the chain nor the host name
            new X509ExtendedTrustManager() {
              @Override
              public void checkClientTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkServerTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkClientTrusted(
                  X509Certificate[] chain, String authType, Socket socket) {}

              @Override
              public void checkServerTrusted(
                  X509Certificate[] chain, String authType, Socket socket) {}

              @Override
              public void checkClientTrusted(
                  X509Certificate[] chain, String authType, SSLEngine engine) {}

              @Override
              public void checkServerTrusted(
                  X509Certificate[] chain, String authType, SSLEngine engine) {}

              @Override
              public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
              }
            }
          },
          new SecureRandom());
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JVM has TLS", e);
    }
  }

  private static SSLParameters withoutHostnameCheck() {
    SSLParameters p = new SSLParameters();
    p.setEndpointIdentificationAlgorithm(null);
    return p;
  }
}
