package io.etcdoperator.sandbox.api.auth;

import static io.etcdoperator.sandbox.api.Responses.status;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first filter of every request, as a real API server's: the bearer token names the user (see
 * {@link Authenticator}), and a request without a known one goes no further ({@code 401
 * Unauthorized}).
 */
public final class AuthenticationFilter {
  private static final Logger LOG = LoggerFactory.getLogger(AuthenticationFilter.class);
  private final Authenticator authenticator;

  public AuthenticationFilter(Authenticator authenticator) {
    this.authenticator = authenticator;
  }

  /** Hands the request on as its user, or answers 401. */
  public MockResponse filter(RecordedRequest request, Function<Identity, MockResponse> next) {
    Optional<Identity> user = authenticator.authenticate(request.getHeader("Authorization"));
    if (user.isEmpty()) {
      LOG.debug("{} {} -> 401", request.getMethod(), request.getPath());
      return status(401, "Unauthorized", "Unauthorized");
    }
    return next.apply(user.get());
  }
}
