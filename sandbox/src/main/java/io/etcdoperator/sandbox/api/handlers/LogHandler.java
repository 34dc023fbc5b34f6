package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.status;

import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.LogSource;
import io.fabric8.mockwebserver.http.MockResponse;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * The {@code pods/log} subresource ({@code kubectl logs}): the whole log a container wrote, as
 * plain text, from the {@link LogSource} the kubelet gives; the {@code container} parameter picks
 * the container, other parameters ({@code follow}, {@code tailLines}, ...) are ignored.
 */
public final class LogHandler implements Handler {
  private volatile LogSource logs;

  public void setLogSource(LogSource logs) {
    this.logs = logs;
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    LogSource logs = this.logs;
    if (logs == null) {
      return status(404, "NotFound", "no logs in this sandbox");
    }
    ApiPath api = request.api();
    String path = request.path();
    String container = null;
    int q = path.indexOf('?');
    if (q >= 0) {
      for (String kv : path.substring(q + 1).split("&")) {
        if (kv.startsWith("container=")) {
          container =
              URLDecoder.decode(kv.substring("container=".length()), StandardCharsets.UTF_8);
        }
      }
    }
    String text = logs.log(api.namespace(), api.name(), container);
    if (text == null) {
      return status(
          404,
          "NotFound",
          "no log of pod "
              + api.namespace()
              + "/"
              + api.name()
              + (container == null ? "" : " container " + container));
    }
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", "text/plain")
        .setBody(text);
  }
}
