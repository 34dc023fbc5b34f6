package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.auth.Forbidden;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;

/** Answers in the shapes a real API server gives them: JSON, and {@code Status} objects. */
public final class Responses {
  private Responses() {}

  public static MockResponse json(int code, String body) {
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setBody(body);
  }

  /** A failure Status. */
  public static MockResponse status(int code, String reason, String message) {
    return json(code, statusNode(code, reason, message).put("code", code).toString());
  }

  /** A failure Status as a real API server writes it (details, when any, go before code). */
  public static ObjectNode statusNode(int code, String reason, String message) {
    ObjectNode s = Serialization.jsonMapper().createObjectNode();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Failure");
    s.put("message", message);
    s.put("reason", reason);
    return s;
  }

  /** A success Status. */
  public static ObjectNode success(int code) {
    ObjectNode s = Serialization.jsonMapper().createObjectNode();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Success");
    s.put("code", code);
    return s;
  }

  /** A 403 with the message and details of the real server's, for the request refused. */
  public static MockResponse forbidden(RequestInfo info, String reason) {
    ObjectNode s = statusNode(403, "Forbidden", Forbidden.message(info, reason));
    if (info.resourceRequest()) {
      ObjectNode details = s.putObject("details");
      if (!info.name().isEmpty()) {
        details.put("name", info.name());
      }
      if (!info.group().isEmpty()) {
        details.put("group", info.group());
      }
      details.put("kind", info.resource());
    }
    return json(403, s.put("code", 403).toString());
  }

  /** The document, or a 404 when there is none. */
  public static MockResponse orNotFound(String body) {
    return body == null
        ? status(404, "NotFound", "the server could not find the requested resource")
        : json(200, body);
  }
}
