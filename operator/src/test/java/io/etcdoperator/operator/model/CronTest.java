package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The next firing of a schedule after a time, one row per kind of field. */
class CronTest {
  @ParameterizedTest(name = "{0} after {1} -> {2}")
  @CsvSource({
    "'* * * * *', 2026-11-29T10:15:30Z, 2026-11-29T10:16:00Z",
    "'0 */6 * * *', 2026-11-29T06:00:00Z, 2026-11-29T12:00:00Z",
    "'30 2 * * *', 2026-11-29T03:00:00Z, 2026-11-30T02:30:00Z",
    "'0 0 1 * *', 2026-11-29T00:00:00Z, 2026-12-01T00:00:00Z",
    "'0 0 * * SUN', 2026-11-29T00:00:00Z, 2026-12-06T00:00:00Z",
    "'0 0 * * 7', 2026-11-28T00:00:00Z, 2026-11-29T00:00:00Z",
    "'0 12 * JAN-MAR MON-FRI', 2026-11-29T00:00:00Z, 2027-01-01T12:00:00Z",
    "'0 0 13 * 5', 2026-11-01T00:00:00Z, 2026-11-06T00:00:00Z",
    "'5,35 * * * *', 2026-11-29T10:06:00Z, 2026-11-29T10:35:00Z",
    "'10-20/5 * * * *', 2026-11-29T10:16:00Z, 2026-11-29T10:20:00Z",
    "'@daily', 2026-11-29T10:00:00Z, 2026-11-30T00:00:00Z",
    "'@hourly', 2026-11-29T10:00:00Z, 2026-11-29T11:00:00Z",
    "'0 0 29 2 *', 2026-11-29T10:00:00Z, 2028-02-29T00:00:00Z"
  })
  void nextFiring(String schedule, String after, String expected) {
    assertThat(Cron.parse(schedule).next(Instant.parse(after))).contains(Instant.parse(expected));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({
    "'* * * *', expected 5 fields",
    "'60 * * * *', minute 60 is outside 0-59",
    "'* * * FOO *', month \"FOO\" is not a number",
    "'5-1 * * * *', runs backwards",
    "'@every 5m', @every expressions are not supported by Kubernetes CronJobs",
    "'@sometimes', unknown macro"
  })
  void refusesWithAReason(String schedule, String reason) {
    assertThatThrownBy(() -> Cron.parse(schedule)).hasMessageContaining(reason);
  }

  @org.junit.jupiter.api.Test
  void noSuchDayNeverFires() {
    assertThat(Cron.parse("0 0 30 2 *").next(Instant.parse("2026-01-01T00:00:00Z"))).isEmpty();
  }
}
