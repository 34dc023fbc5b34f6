package io.etcdoperator.sandbox.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Tokens that expire, and the expired ones forgotten. */
class AuthenticatorTest {
  /** A clock the test moves. */
  private static final class Hands extends Clock {
    Instant now = Instant.parse("2026-12-07T00:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  private final Hands clock = new Hands();
  private final Authenticator auth = new Authenticator(clock);
  private final Identity pod = Identity.serviceAccount("default", "default");

  @Test
  void aTokenAuthenticatesUntilItExpiresAndIsForgottenThen() {
    String token = auth.issue(pod, clock.now.plusSeconds(10));
    String forGood = auth.issue(Identity.administrator());
    assertThat(auth.authenticate("Bearer " + token)).contains(pod);

    clock.now = clock.now.plus(Duration.ofSeconds(10));

    assertThat(auth.authenticate("Bearer " + token)).isEmpty();
    assertThat(auth.authenticate("Bearer " + forGood)).contains(Identity.administrator());
    assertThat(auth.size()).isEqualTo(1);
  }

  @Test
  void expiredTokensNobodyUsesAreForgottenEveryThousandIssued() {
    for (int i = 0; i < 999; i++) {
      auth.issue(pod, clock.now.plusSeconds(1));
    }
    clock.now = clock.now.plusSeconds(2);
    assertThat(auth.size()).isEqualTo(999);

    String fresh = auth.issue(pod, clock.now.plusSeconds(60));

    assertThat(auth.size()).isEqualTo(1);
    assertThat(auth.authenticate("bearer " + fresh)).contains(pod);
    assertThat(auth.authenticate(null)).isEmpty();
    assertThat(auth.authenticate("Basic abc")).isEmpty();
  }
}
