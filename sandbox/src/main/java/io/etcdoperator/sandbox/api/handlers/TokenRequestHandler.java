package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;
import static io.etcdoperator.sandbox.api.Responses.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.auth.Authenticator;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The {@code serviceaccounts/token} subresource (authentication.k8s.io/v1 TokenRequest), as {@code
 * kubectl create token} uses it: a token of an existing ServiceAccount that expires after {@code
 * spec.expirationSeconds} (default one hour; under ten minutes is refused with the real message).
 * Unlike a real one, the token is not bound to an object and names no audience.
 */
public final class TokenRequestHandler implements Handler {
  static final long DEFAULT_SECONDS = 3600;
  static final long MIN_SECONDS = 600;

  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;
  private final Authenticator authenticator;

  public TokenRequestHandler(Store store, Authenticator authenticator) {
    this.store = store;
    this.authenticator = authenticator;
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    ApiPath api = request.api();
    if (store.get(api.objectPath()).code() != 200) {
      return status(404, "NotFound", "serviceaccounts \"" + api.name() + "\" not found");
    }
    String body = request.body();
    JsonNode tokenRequest =
        body == null || body.isBlank() ? mapper.createObjectNode() : mapper.readTree(body);
    long seconds = tokenRequest.path("spec").path("expirationSeconds").asLong(DEFAULT_SECONDS);
    if (seconds < MIN_SECONDS) {
      return status(
          422,
          "Invalid",
          "TokenRequest.authentication.k8s.io \""
              + api.name()
              + "\" is invalid: spec.expirationSeconds: Invalid value: "
              + seconds
              + ": may not specify a duration less than 10 minutes");
    }
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant expires = now.plusSeconds(seconds);
    String token =
        authenticator.issue(Identity.serviceAccount(api.namespace(), api.name()), expires);
    ObjectNode answer = mapper.createObjectNode();
    answer.put("apiVersion", "authentication.k8s.io/v1");
    answer.put("kind", "TokenRequest");
    answer
        .putObject("metadata")
        .put("name", api.name())
        .put("namespace", api.namespace())
        .put("creationTimestamp", now.toString());
    ObjectNode spec = answer.putObject("spec");
    spec.set(
        "audiences",
        tokenRequest.path("spec").path("audiences").isArray()
            ? tokenRequest.path("spec").path("audiences")
            : mapper.createArrayNode());
    spec.put("expirationSeconds", seconds);
    answer.putObject("status").put("token", token).put("expirationTimestamp", expires.toString());
    return json(201, mapper.writeValueAsString(answer));
  }
}
