package io.etcdoperator.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StatusMergerTest {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00.123Z");

  static EtcdClusterStatus status(Condition... conditions) {
    EtcdClusterStatus s = new EtcdClusterStatus();
    s.setConditions(new ArrayList<>(List.of(conditions)));
    return s;
  }

  static Condition cond(String type, String status, String time) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason("R")
        .withMessage("m")
        .withLastTransitionTime(time)
        .build();
  }

  @Test
  void keepsTheTimeWhileTheStatusIsUnchanged() {
    var merged =
        StatusMerger.merge(
            status(cond("Ready", "True", "2026-01-01T00:00:00Z")),
            status(cond("Ready", "True", null)),
            NOW);
    assertThat(merged.getConditions().get(0).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");
  }

  @Test
  void stampsNowOnAChangeOrANewCondition() {
    var merged =
        StatusMerger.merge(
            status(cond("Ready", "True", "2026-01-01T00:00:00Z")),
            status(cond("Ready", "False", null), cond("Available", "True", null)),
            NOW);
    assertThat(merged.getConditions())
        .extracting(Condition::getLastTransitionTime)
        .containsExactly("2026-11-29T12:00:00Z", "2026-11-29T12:00:00Z");
  }

  @Test
  void replacesATimeSomeoneWroteByHand() {
    var merged =
        StatusMerger.merge(
            status(cond("Ready", "True", "yesterday")), status(cond("Ready", "True", null)), NOW);
    assertThat(merged.getConditions().get(0).getLastTransitionTime())
        .isEqualTo("2026-11-29T12:00:00Z");
  }

  @Test
  void noPreviousStatus() {
    var merged = StatusMerger.merge(null, status(cond("Ready", "False", null)), NOW);
    assertThat(merged.getConditions().get(0).getLastTransitionTime())
        .isEqualTo("2026-11-29T12:00:00Z");
  }

  static MemberStatus member(String name, String id, Boolean healthy, String unhealthySince) {
    MemberStatus m = new MemberStatus();
    m.setName(name);
    m.setId(id);
    m.setHealthy(healthy);
    m.setUnhealthySince(unhealthySince);
    return m;
  }

  static EtcdClusterStatus members(MemberStatus... members) {
    EtcdClusterStatus s = status();
    s.setMembers(new ArrayList<>(List.of(members)));
    return s;
  }

  static final String EARLIER = "2026-11-29T11:00:00Z";

  /** Previous member (or none), computed member: the unhealthySince the merge gives. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      nullValues = "-",
      value = {
        "healthy stays healthy,            a, true,  -,       a, true,  -",
        "healthy turns unhealthy: now,     a, true,  -,       a, false, 2026-11-29T12:00:00Z",
        "unhealthy stays: kept,            a, false, EARLIER, a, false, EARLIER",
        "unhealthy turns healthy: cleared, a, false, EARLIER, a, true,  -",
        "never healthy stays: none,        a, false, -,       a, false, -",
        "out of sight keeps it,            a, false, EARLIER, a, -,     EARLIER",
        "healthy then out of sight: now,   a, true,  -,       a, -,     2026-11-29T12:00:00Z",
        "replaced under its name: new,     a, false, EARLIER, b, false, -",
        "a time written by hand: dropped,  a, false, soon,    a, false, -",
      })
  void unhealthySinceIsWhenAHealthyMemberStoppedBeingHealthy(
      String name,
      String oldId,
      Boolean oldHealthy,
      String oldSince,
      String id,
      Boolean healthy,
      String expected) {
    String since = "EARLIER".equals(oldSince) ? EARLIER : oldSince;
    var merged =
        StatusMerger.merge(
            members(member("test-0", oldId, oldHealthy, since)),
            members(member("test-0", id, healthy, null)),
            NOW);
    assertThat(merged.getMembers().get(0).getUnhealthySince())
        .isEqualTo("EARLIER".equals(expected) ? EARLIER : expected);
  }

  @Test
  void aMemberNotInThePreviousStatusHasNoUnhealthySince() {
    var merged =
        StatusMerger.merge(
            members(member("test-0", "a", true, null)),
            members(member("test-0", "a", true, null), member("test-1", "c", false, null)),
            NOW);
    assertThat(merged.getMembers().get(1).getUnhealthySince()).isNull();
  }
}
