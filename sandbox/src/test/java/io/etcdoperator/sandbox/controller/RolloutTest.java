package io.etcdoperator.sandbox.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RolloutTest {
  private static Rollout.Set set(String name, int replicas, int pods, int available) {
    return new Rollout.Set(name, replicas, pods, available);
  }

  @Test
  void aFirstRolloutScalesTheNewSetUpToReplicas() {
    assertThat(Rollout.rollingUpdate(2, 1, 0, set("new", 0, 0, 0), List.of()))
        .isEqualTo(Map.of("new", 2));
  }

  @Test
  void twoReplicasWithDefaultLimitsSurgeOneAndKeepTwoAvailable() {
    // 25 %: surge 1 (rounded up), unavailable 0 (rounded down)
    int surge = Rollout.resolve(null, 2, true, "25%");
    int unavailable = Rollout.resolve(null, 2, false, "25%");
    assertThat(surge).isEqualTo(1);
    assertThat(unavailable).isZero();
    // step 1: one new replica, the old set keeps both (only 2 available, 2 needed)
    assertThat(
            Rollout.rollingUpdate(
                2, surge, unavailable, set("new", 0, 0, 0), List.of(set("old", 2, 2, 2))))
        .containsEntry("new", 1)
        .containsEntry("old", 2);
    // step 2: the new pod is available: one old replica may go, no more surge room yet
    assertThat(
            Rollout.rollingUpdate(
                2, surge, unavailable, set("new", 1, 1, 1), List.of(set("old", 2, 2, 2))))
        .containsEntry("new", 1)
        .containsEntry("old", 1);
    // step 3: room for the second new replica
    assertThat(
            Rollout.rollingUpdate(
                2, surge, unavailable, set("new", 1, 1, 1), List.of(set("old", 1, 1, 1))))
        .containsEntry("new", 2)
        .containsEntry("old", 1);
    // step 4: both new available: the last old one goes
    assertThat(
            Rollout.rollingUpdate(
                2, surge, unavailable, set("new", 2, 2, 2), List.of(set("old", 1, 1, 1))))
        .containsEntry("new", 2)
        .containsEntry("old", 0);
  }

  @Test
  void oldReplicasThatServeNothingGoFirstAndCostNoAvailability() {
    // the old set's 2 replicas are not available (crash-looping): both go at once
    assertThat(Rollout.rollingUpdate(2, 1, 0, set("new", 1, 1, 0), List.of(set("old", 2, 2, 0))))
        .containsEntry("old", 0)
        .containsEntry("new", 1);
  }

  @Test
  void olderSetsLoseReplicasFirst() {
    assertThat(
            Rollout.rollingUpdate(
                3,
                1,
                1,
                set("new", 1, 1, 1),
                List.of(set("oldest", 1, 1, 1), set("older", 2, 2, 2))))
        .containsEntry("oldest", 0)
        .containsEntry("older", 1);
  }

  @Test
  void aScaleDownOfTheDeploymentShrinksTheNewSet() {
    assertThat(Rollout.rollingUpdate(1, 1, 0, set("new", 3, 3, 3), List.of()))
        .isEqualTo(Map.of("new", 1));
  }

  @Test
  void recreateWaitsForEveryOldPodToBeGone() {
    assertThat(Rollout.recreate(2, set("new", 0, 0, 0), List.of(set("old", 2, 1, 1))))
        .containsEntry("old", 0)
        .containsEntry("new", 0);
    assertThat(Rollout.recreate(2, set("new", 0, 0, 0), List.of(set("old", 0, 0, 0))))
        .containsEntry("old", 0)
        .containsEntry("new", 2);
  }

  @Test
  void percentagesRoundAsKubernetesRoundsThem() {
    assertThat(Rollout.resolve("25%", 10, true, "0")).isEqualTo(3);
    assertThat(Rollout.resolve("25%", 10, false, "0")).isEqualTo(2);
    assertThat(Rollout.resolve(4, 10, false, "0")).isEqualTo(4);
    assertThat(Rollout.resolve(null, 4, true, "25%")).isEqualTo(1);
  }
}
