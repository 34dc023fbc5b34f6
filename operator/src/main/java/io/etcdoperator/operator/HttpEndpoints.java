package io.etcdoperator.operator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code /healthz} (liveness), {@code /readyz} (readiness) and {@code /metrics} (Prometheus text
 * format), served by the JDK's own HTTP server on one small thread.
 */
final class HttpEndpoints implements AutoCloseable {
  private final HttpServer server;

  HttpEndpoints(
      OperatorSettings.Http http,
      BooleanSupplier live,
      BooleanSupplier ready,
      Supplier<String> metrics) {
    try {
      server = HttpServer.create(new InetSocketAddress(http.host(), http.port()), 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve HTTP on " + http.host() + ":" + http.port(), e);
    }
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "http-endpoints");
              t.setDaemon(true);
              return t;
            }));
    server.createContext(
        "/healthz",
        x ->
            answer(
                x,
                live.getAsBoolean() ? 200 : 503,
                "text/plain",
                live.getAsBoolean() ? "ok\n" : "unhealthy\n"));
    server.createContext(
        "/readyz",
        x ->
            answer(
                x,
                ready.getAsBoolean() ? 200 : 503,
                "text/plain",
                ready.getAsBoolean() ? "ok\n" : "not ready\n"));
    server.createContext(
        "/metrics", x -> answer(x, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.get()));
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange exchange, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
