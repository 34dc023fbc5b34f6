package io.etcdoperator.sandbox.api.auth;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bearer-token authentication, as a real API server's static token file does it: each token names
 * one identity; a request without a known token is unauthenticated (the API server answers 401). A
 * token may expire, as the TokenRequest API's do (the API server here never extends them): from
 * then on it authenticates no one, and it is forgotten.
 */
public final class Authenticator {
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Whose a token is, and until when (null: for good). */
  private record Grant(Identity identity, Instant expires) {
    boolean expired(Instant now) {
      return expires != null && !now.isBefore(expires);
    }
  }

  private final Map<String, Grant> tokens = new ConcurrentHashMap<>();
  private final Clock clock;
  private final AtomicLong issued = new AtomicLong();

  public Authenticator() {
    this(Clock.systemUTC());
  }

  Authenticator(Clock clock) {
    this.clock = clock;
  }

  /** A new random token (256 bits, hex) for the identity, valid for good. */
  public String issue(Identity identity) {
    return issue(identity, null);
  }

  /**
   * A new random token for the identity, valid until {@code expires} (null: for good). Every 1,000
   * tokens issued, the expired ones are forgotten.
   */
  public String issue(Identity identity, Instant expires) {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    String token = HexFormat.of().formatHex(b);
    tokens.put(token, new Grant(identity, expires));
    if (issued.incrementAndGet() % 1000 == 0) {
      Instant now = clock.instant();
      tokens.values().removeIf(g -> g.expired(now));
    }
    return token;
  }

  /** The identity of an {@code Authorization} header's bearer token, or empty. */
  public Optional<Identity> authenticate(String authorizationHeader) {
    if (authorizationHeader == null) {
      return Optional.empty();
    }
    String h = authorizationHeader.trim();
    if (h.length() < 7 || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String token = h.substring(7).trim();
    Grant g = tokens.get(token);
    if (g == null) {
      return Optional.empty();
    }
    if (g.expired(clock.instant())) {
      tokens.remove(token);
      return Optional.empty();
    }
    return Optional.of(g.identity());
  }

  /** How many tokens are kept. */
  int size() {
    return tokens.size();
  }
}
