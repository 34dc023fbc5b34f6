package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;
import static io.etcdoperator.sandbox.api.Responses.status;

import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.ControlHandler;
import io.etcdoperator.sandbox.api.Handler;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * {@code POST /sandbox/v1/<verb>}, the sandbox's own requests (fault injection from the command
 * line), handed to the {@link ControlHandler} the sandbox installs: 503 without one, 404 for what
 * it says does not exist.
 */
public final class ControlRequestHandler implements Handler {
  private static final String PREFIX = "/sandbox/v1/";
  private volatile ControlHandler control;

  public void setControlHandler(ControlHandler handler) {
    this.control = handler;
  }

  /** Whether a path (without query or trailing slash) is a control request's. */
  public static boolean serves(String bare) {
    return bare.startsWith(PREFIX);
  }

  @Override
  public MockResponse handle(ApiRequest request) {
    String verb = request.bare().substring(PREFIX.length());
    String body = request.request().getUtf8Body();
    ControlHandler h = control;
    if (h == null) {
      return status(503, "ServiceUnavailable", "this sandbox takes no control requests");
    }
    try {
      return json(
          200,
          Serialization.jsonMapper()
              .createObjectNode()
              .put("message", h.handle(verb, body))
              .toString());
    } catch (IllegalArgumentException e) {
      return status(404, "NotFound", e.getMessage());
    } catch (Exception e) {
      return status(500, "InternalError", String.valueOf(e.getMessage()));
    }
  }
}
