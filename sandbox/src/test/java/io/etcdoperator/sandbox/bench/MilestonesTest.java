package io.etcdoperator.sandbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MilestonesTest {
  static final Instant APPLIED = Instant.parse("2026-12-03T14:00:00Z");

  /** A pod as the sandbox leaves it: times in milliseconds after the apply, null if not yet. */
  static Pod pod(Integer scheduled, Integer started, Integer ready) {
    var status = new PodBuilder().withNewStatus();
    if (scheduled != null) {
      status
          .addNewCondition()
          .withType("PodScheduled")
          .withStatus("True")
          .withLastTransitionTime(at(scheduled))
          .endCondition();
    }
    if (ready != null) {
      status
          .addNewCondition()
          .withType("Ready")
          .withStatus("True")
          .withLastTransitionTime(at(ready))
          .endCondition();
    } else {
      status
          .addNewCondition()
          .withType("Ready")
          .withStatus("False")
          .withLastTransitionTime(at(0))
          .endCondition();
    }
    if (started != null) {
      status
          .addNewContainerStatus()
          .withName("etcd")
          .withNewState()
          .withNewRunning()
          .withStartedAt(at(started))
          .endRunning()
          .endState()
          .endContainerStatus();
    } else if (scheduled != null) {
      status
          .addNewContainerStatus()
          .withName("etcd")
          .withNewState()
          .withNewWaiting()
          .withReason("ContainerCreating")
          .endWaiting()
          .endState()
          .endContainerStatus();
    }
    return status.endStatus().build();
  }

  static String at(int millis) {
    return APPLIED.plusMillis(millis).toString();
  }

  static Optional<Duration> ms(int millis) {
    return Optional.of(Duration.ofMillis(millis));
  }

  /** A member's log as etcd 3.5 writes it, publishing itself at the given time. */
  static String log(int publishedMillis) {
    return """
        {"level":"info","ts":"%s","caller":"etcdserver/server.go:875","msg":"starting etcd server"}
        {"level":"info","ts":"%s","caller":"etcdserver/server.go:2174","msg":"%s","local-member-id":"8e9e05c52164694d"}
        {"level":"info","ts":"%s","caller":"etcdserver/server.go:2174","msg":"%s","local-member-id":"8e9e05c52164694d"}
        """
        .formatted(
            at(publishedMillis - 300),
            at(publishedMillis),
            Milestones.PUBLISHED,
            at(publishedMillis + 5000),
            Milestones.PUBLISHED);
  }

  static final List<String> LOGS = List.of(log(1500), log(1620), log(1580));

  @Test
  void eachMilestoneIsTheLastPodToReachIt() {
    Milestones m =
        Milestones.of(
            APPLIED,
            List.of(pod(350, 420, 1400), pod(1040, 1101, 1900), pod(600, 700, 1500)),
            LOGS);
    assertThat(m).isEqualTo(new Milestones(ms(1040), ms(1101), ms(1620), ms(1900)));
    assertThat(m.toString())
        .isEqualTo(
            "pods scheduled +1040 ms, containers started +1101 ms, etcd formed +1620 ms,"
                + " pods Ready +1900 ms");
  }

  @Test
  void aMemberThatHasNotPublishedItselfLeavesFormedUnknown() {
    assertThat(Milestones.of(APPLIED, List.of(), List.of(log(1500), "", log(900))).formed())
        .isEmpty();
    assertThat(Milestones.published("{\"msg\":\"" + Milestones.PUBLISHED + "\"}")).isEmpty();
  }

  @Test
  void aMilestoneOnePodHasNotReachedIsUnknownNotTheOthersLatest() {
    Milestones m =
        Milestones.of(
            APPLIED,
            List.of(pod(350, 420, 1400), pod(1040, null, null), pod(600, 700, null)),
            LOGS);
    assertThat(m).isEqualTo(new Milestones(ms(1040), Optional.empty(), ms(1620), Optional.empty()));
    assertThat(m.toString())
        .endsWith("containers started (not yet), etcd formed +1620 ms, pods Ready (not yet)");
  }

  @Test
  void eachMembersStartInOrdinalOrderAndTheOperatorsShareAfterReachable() {
    List<Pod> pods =
        List.of(
            named("bench-2", pod(600, 700, 1500)),
            named("bench-0", pod(350, 420, 1400)),
            named("bench-1", pod(1040, 1101, 1900)));
    assertThat(Milestones.starts(APPLIED, pods))
        .containsExactly(Duration.ofMillis(420), Duration.ofMillis(1101), Duration.ofMillis(700));
    assertThat(
            Milestones.starts(
                APPLIED, List.of(pods.get(0), named("bench-3", pod(1040, null, null)))))
        .isEmpty();

    Milestones m = Milestones.of(APPLIED, pods, LOGS);
    // Ready 1960 ms after the apply: pods Ready at +1900 ms, formed at +1620 ms: 60 ms ours.
    ApplyToReady.SandboxRun run =
        new ApplyToReady.SandboxRun(
            Duration.ofMillis(1960),
            m,
            ms(30),
            ms(45),
            Milestones.starts(APPLIED, pods),
            List.of());
    assertThat(run.afterReachable()).isEqualTo(ms(60));
    ApplyToReady.SandboxRun formedLast =
        new ApplyToReady.SandboxRun(
            Duration.ofMillis(2000),
            new Milestones(ms(1040), ms(1101), ms(1950), ms(1900)),
            ms(30),
            ms(45),
            List.of(),
            List.of());
    assertThat(formedLast.afterReachable()).isEqualTo(ms(50));
    ApplyToReady.SandboxRun unknown =
        new ApplyToReady.SandboxRun(
            Duration.ofMillis(2000),
            new Milestones(ms(1040), ms(1101), Optional.empty(), ms(1900)),
            ms(30),
            ms(45),
            List.of(),
            List.of());
    assertThat(unknown.afterReachable()).isEmpty();
  }

  private static Pod named(String name, Pod p) {
    p.setMetadata(new ObjectMetaBuilder().withName(name).build());
    return p;
  }

  @Test
  void noPodsNoMilestones() {
    assertThat(Milestones.of(APPLIED, List.of(), List.of()))
        .isEqualTo(
            new Milestones(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
  }

  @Test
  void aTimeThatDoesNotParseIsUnknown() {
    Pod p = pod(100, 200, 300);
    p.getStatus().getConditions().get(0).setLastTransitionTime("yesterday");
    assertThat(Milestones.of(APPLIED, List.of(p), List.of()).scheduled()).isEmpty();
  }

  @Test
  void mediansAreOverTheRunsThatShowedEach() {
    Milestones median =
        Milestones.median(
            List.of(
                new Milestones(ms(100), ms(300), ms(500), Optional.empty()),
                new Milestones(ms(200), ms(100), Optional.empty(), ms(900)),
                new Milestones(ms(900), ms(200), ms(400), ms(700))));
    assertThat(median).isEqualTo(new Milestones(ms(200), ms(200), ms(450), ms(800)));
  }
}
