package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The address kubectl (and any client of {@code <dir>/kubeconfig}) talks to: a proxy in front of
 * the API server that adds what the mock server cannot do, watches over chunked HTTP. A {@code GET
 * ...?watch=true} without a WebSocket upgrade (as kubectl sends it for {@code get -w}, {@code
 * wait}, {@code rollout status}) is served by a WebSocket watch of the API server, each event
 * written as one JSON line of a chunked response (as Table rows when kubectl asked for a Table); a
 * WebSocket request (fabric8's watches, an operator run with this kubeconfig) is bridged to a
 * WebSocket of the API server; everything else is passed through unchanged, the bearer token with
 * it, so authentication, RBAC and admission apply as they do to any client. HTTPS with a
 * certificate of the sandbox's CA made at start ({@link ClusterCa}), which pods trust.
 */
final class KubectlFront implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final HttpClient backend;
  private final HttpServer server;
  private final String backendHost;
  private final int backendPort;
  private final BiFunction<ApiPath, JsonNode, JsonNode> asTable;
  private final ObjectMapper mapper = Serialization.jsonMapper();

  KubectlFront(
      String host, int backendPort, BiFunction<ApiPath, JsonNode, JsonNode> asTable, ClusterCa ca)
      throws Exception {
    this.backendHost = host;
    this.backendPort = backendPort;
    this.asTable = asTable;
    this.backend =
        vertx.createHttpClient(
            new HttpClientOptions().setSsl(true).setTrustAll(true).setVerifyHost(false));
    this.server =
        vertx.createHttpServer(
            new HttpServerOptions()
                .setSsl(true)
                .setKeyCertOptions(
                    new PemKeyCertOptions()
                        .setCertValue(Buffer.buffer(ca.certPem()))
                        .setKeyValue(Buffer.buffer(ca.keyPem())))
                .setHost(host)
                .setPort(0));
    server.requestHandler(this::handle);
    CompletableFuture<HttpServer> started = new CompletableFuture<>();
    server.listen().onSuccess(started::complete).onFailure(started::completeExceptionally);
    started.get(10, TimeUnit.SECONDS);
  }

  int port() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest req) {
    String watch = req.getParam("watch");
    boolean upgrade = "websocket".equalsIgnoreCase(req.getHeader("Upgrade"));
    if (req.method() == HttpMethod.GET && !upgrade && ("true".equals(watch) || "1".equals(watch))) {
      chunkedWatch(req);
    } else if (upgrade) {
      webSocket(req);
    } else {
      forward(req);
    }
  }

  /**
   * A WebSocket request (fabric8's watches: an operator run with this kubeconfig) goes on as one: a
   * WebSocket to the API server, each message passed through both ways, each side closed with the
   * other.
   */
  private void webSocket(HttpServerRequest req) {
    WebSocketConnectOptions o =
        new WebSocketConnectOptions()
            .setHost(backendHost)
            .setPort(backendPort)
            .setSsl(true)
            .setURI(req.uri());
    for (String h : List.of("Authorization", "Sec-WebSocket-Protocol", "Accept")) {
      String v = req.getHeader(h);
      if (v != null) {
        o.addHeader(h, v);
      }
    }
    req.pause();
    backend
        .webSocket(o)
        .onSuccess(
            back ->
                req.toWebSocket()
                    .onSuccess(
                        front -> {
                          back.textMessageHandler(front::writeTextMessage);
                          back.binaryMessageHandler(front::writeBinaryMessage);
                          front.textMessageHandler(back::writeTextMessage);
                          front.binaryMessageHandler(back::writeBinaryMessage);
                          back.closeHandler(v -> front.close());
                          front.closeHandler(v -> back.close());
                        })
                    .onFailure(e -> back.close()))
        .onFailure(e -> refused(req, e));
  }

  private void forward(HttpServerRequest req) {
    req.pause();
    RequestOptions o =
        new RequestOptions()
            .setMethod(req.method())
            .setHost(backendHost)
            .setPort(backendPort)
            .setURI(req.uri());
    for (Map.Entry<String, String> h : req.headers()) {
      String k = h.getKey().toLowerCase();
      if (!List.of("host", "connection", "upgrade", "content-length", "transfer-encoding")
          .contains(k)) {
        o.addHeader(h.getKey(), h.getValue());
      }
    }
    req.resume();
    req.body()
        .compose(body -> backend.request(o).compose(r -> r.send(body)))
        .compose(
            resp -> {
              var out = req.response().setStatusCode(resp.statusCode());
              resp.headers()
                  .forEach(
                      h -> {
                        String k = h.getKey().toLowerCase();
                        if (!k.equals("content-length") && !k.equals("transfer-encoding")) {
                          out.putHeader(h.getKey(), h.getValue());
                        }
                      });
              return resp.body().compose(out::end);
            })
        .onFailure(
            e -> {
              if (!req.response().headWritten()) {
                req.response().setStatusCode(502).end(String.valueOf(e.getMessage()));
              }
            });
  }

  private void chunkedWatch(HttpServerRequest req) {
    String accept = req.getHeader("Accept");
    boolean table = accept != null && accept.contains("as=Table");
    ApiPath api = ApiPath.parse(req.path());
    WebSocketConnectOptions o =
        new WebSocketConnectOptions()
            .setHost(backendHost)
            .setPort(backendPort)
            .setSsl(true)
            .setURI(req.uri());
    String auth = req.getHeader("Authorization");
    if (auth != null) {
      o.addHeader("Authorization", auth);
    }
    backend
        .webSocket(o)
        .onSuccess(
            ws -> {
              var out =
                  req.response()
                      .setStatusCode(200)
                      .setChunked(true)
                      .putHeader("Content-Type", "application/json");
              ws.textMessageHandler(
                  text -> {
                    String line = text;
                    if (table && api != null) {
                      try {
                        ObjectNode event = (ObjectNode) mapper.readTree(text);
                        JsonNode object = event.path("object");
                        if (object.isObject() && !"Status".equals(object.path("kind").asText())) {
                          event.set("object", asTable.apply(api, object));
                        }
                        line = event.toString();
                      } catch (Exception e) {
                        // pass the event on as it is
                      }
                    }
                    out.write(line + "\n");
                  });
              ws.closeHandler(v -> out.end());
              req.connection().closeHandler(v -> ws.close());
            })
        .onFailure(e -> refused(req, e));
  }

  /** The API server's answer when it refused the WebSocket, else 502. */
  private static void refused(HttpServerRequest req, Throwable e) {
    if (e instanceof UpgradeRejectedException r) {
      var out = req.response().setStatusCode(r.getStatus());
      if (r.getHeaders() != null && r.getHeaders().get("Content-Type") != null) {
        out.putHeader("Content-Type", r.getHeaders().get("Content-Type"));
      }
      out.end(r.getBody() == null ? Buffer.buffer() : r.getBody());
    } else {
      req.response().setStatusCode(502).end(String.valueOf(e.getMessage()));
    }
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // closing
    }
  }
}
