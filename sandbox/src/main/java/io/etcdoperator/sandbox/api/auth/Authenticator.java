package io.etcdoperator.sandbox.api.auth;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bearer-token authentication, as a real API server's static token file does it: each token names
 * one identity; a request without a known token is unauthenticated (the API server answers 401).
 */
public final class Authenticator {
  private static final SecureRandom RANDOM = new SecureRandom();
  private final Map<String, Identity> tokens = new ConcurrentHashMap<>();

  /** A new random token (256 bits, hex) for the identity. */
  public String issue(Identity identity) {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    String token = HexFormat.of().formatHex(b);
    tokens.put(token, identity);
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
    return Optional.ofNullable(tokens.get(h.substring(7).trim()));
  }
}
