package io.etcdoperator.operator.act;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.act.Deletions.How;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** How the cached pods and claims are corrected for what the operator deleted. */
class DeletionsTest {
  static final String C = "default/test";
  static final Instant DELETED_AT = Instant.parse("2026-12-03T10:00:00.700Z");
  static final Instant SOON = DELETED_AT.plusMillis(250);

  static Pod pod(String name, String uid, boolean terminating) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withUid(uid)
        .withDeletionTimestamp(terminating ? "2026-12-03T10:00:00Z" : null)
        .endMetadata()
        .build();
  }

  static PersistentVolumeClaim claim(String name, String uid, boolean terminating) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withUid(uid)
        .withDeletionTimestamp(terminating ? "2026-12-03T10:00:00Z" : null)
        .endMetadata()
        .build();
  }

  /** "name/uid" for an object as it is, "name/uid T" terminating; one string per object. */
  static List<String> seen(List<? extends HasMetadata> objects) {
    return objects.stream()
        .map(
            p ->
                p.getMetadata().getName()
                    + "/"
                    + p.getMetadata().getUid()
                    + (p.getMetadata().getDeletionTimestamp() != null ? " T" : ""))
        .toList();
  }

  /**
   * test-1 (uid u1) deleted at {@link #DELETED_AT} as {@code how}; the cache then holds {@code
   * cached} at {@code now}: what is handed on, and whether the deletion is still remembered.
   */
  static Stream<Arguments> cases() {
    Pod u0 = pod("test-0", "u0", false);
    return Stream.of(
        Arguments.of(
            "graceful, the cache not caught up: shown terminating",
            How.GRACEFUL,
            List.of(u0, pod("test-1", "u1", false)),
            SOON,
            List.of("test-0/u0", "test-1/u1 T"),
            true),
        Arguments.of(
            "graceful, the cache shows it terminating: as cached, forgotten",
            How.GRACEFUL,
            List.of(u0, pod("test-1", "u1", true)),
            SOON,
            List.of("test-0/u0", "test-1/u1 T"),
            false),
        Arguments.of(
            "graceful, the cache has no test-1: forgotten",
            How.GRACEFUL,
            List.of(u0),
            SOON,
            List.of("test-0/u0"),
            false),
        Arguments.of(
            "graceful, the cache holds the StatefulSet's new pod: as cached, forgotten",
            How.GRACEFUL,
            List.of(u0, pod("test-1", "u1b", false)),
            SOON,
            List.of("test-0/u0", "test-1/u1b"),
            false),
        Arguments.of(
            "graceful, the cache never caught up: as cached after a minute, forgotten",
            How.GRACEFUL,
            List.of(u0, pod("test-1", "u1", false)),
            DELETED_AT.plus(Deletions.FORGET_AFTER),
            List.of("test-0/u0", "test-1/u1"),
            false),
        Arguments.of(
            "graceful, just before a minute: still shown terminating",
            How.GRACEFUL,
            List.of(u0, pod("test-1", "u1", false)),
            DELETED_AT.plus(Deletions.FORGET_AFTER).minusMillis(1),
            List.of("test-0/u0", "test-1/u1 T"),
            true),
        Arguments.of(
            "forced, the cache not caught up: left out",
            How.FORCED,
            List.of(u0, pod("test-1", "u1", false)),
            SOON,
            List.of("test-0/u0"),
            true),
        Arguments.of(
            "forced, the cache still shows it terminating (it was, on a lost node): left out",
            How.FORCED,
            List.of(u0, pod("test-1", "u1", true)),
            SOON,
            List.of("test-0/u0"),
            true),
        Arguments.of(
            "forced, the cache holds the StatefulSet's new pod: as cached, forgotten",
            How.FORCED,
            List.of(u0, pod("test-1", "u1b", false)),
            SOON,
            List.of("test-0/u0", "test-1/u1b"),
            false),
        Arguments.of(
            "forced, the cache dropped it: forgotten",
            How.FORCED,
            List.of(u0),
            SOON,
            List.of("test-0/u0"),
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void correctsThePods(
      String name,
      How how,
      List<Pod> cached,
      Instant now,
      List<String> handedOn,
      boolean remembered) {
    Deletions d = new Deletions(C);
    d.deleted(pod("test-1", "u1", false), how, DELETED_AT);
    List<String> before = seen(cached);
    List<Pod> seen = d.pods(cached, now);
    assertThat(seen(seen)).isEqualTo(handedOn);
    assertThat(d.remembers()).isEqualTo(remembered);
    assertThat(seen(cached)).as("the cache's own objects are left as they are").isEqualTo(before);
    if (!before.contains("test-1/u1 T") && handedOn.contains("test-1/u1 T")) {
      assertThat(seen.get(1).getMetadata().getDeletionTimestamp())
          .as("terminating since the delete")
          .isEqualTo("2026-12-03T10:00:00Z");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void claimsAreCorrectedAlikeAndApartFromPods(
      String name,
      How how,
      List<Pod> cachedPods,
      Instant now,
      List<String> handedOn,
      boolean remembered) {
    Deletions d = new Deletions(C);
    d.deleted(claim("data-test-1", "u1", false), how, DELETED_AT);
    List<PersistentVolumeClaim> cached =
        cachedPods.stream()
            .map(
                p ->
                    claim(
                        "data-" + p.getMetadata().getName(),
                        p.getMetadata().getUid(),
                        p.getMetadata().getDeletionTimestamp() != null))
            .toList();
    // The pods of the same names are not the claims deleted.
    assertThat(seen(d.pods(cachedPods, now))).isEqualTo(seen(cachedPods));
    assertThat(seen(d.claims(cached, now)))
        .isEqualTo(handedOn.stream().map(s -> "data-" + s).toList());
    assertThat(d.remembers()).isEqualTo(remembered);
  }

  @org.junit.jupiter.api.Test
  void anotherClusterAndAnObjectWithoutUidAreLeftAlone() {
    Deletions d = new Deletions(C);
    Deletions other = new Deletions("default/other");
    d.deleted(pod("test-1", "u1", false), How.GRACEFUL, DELETED_AT);
    other.deleted(pod("test-1", null, false), How.GRACEFUL, DELETED_AT);
    List<Pod> pods = List.of(pod("test-1", "u1", false));
    assertThat(seen(other.pods(pods, SOON))).containsExactly("test-1/u1");
    assertThat(other.remembers()).isFalse();
    assertThat(d.remembers()).isTrue();
    assertThat(Duration.between(DELETED_AT, SOON)).isLessThan(Deletions.FORGET_AFTER);
  }
}
