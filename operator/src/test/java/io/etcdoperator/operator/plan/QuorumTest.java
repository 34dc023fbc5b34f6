package io.etcdoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Can this member be restarted, removed or promoted now? For 1 to 7 voters. */
class QuorumTest {
  @ParameterizedTest(
      name = "{0} voters, {1} healthy, target learner={2} healthy={3}: restart={4} remove={5}")
  @CsvSource({
    // voters, healthy, learner, targetHealthy, canRestart, canRemove
    "1, 1, false, true,  false, false",
    "1, 0, false, false, false, false",
    "1, 1, true,  true,  true,  true",
    "2, 2, false, true,  false, true",
    "2, 1, false, true,  false, false",
    "2, 1, false, false, false, false",
    "3, 3, false, true,  true,  true",
    "3, 2, false, true,  false, false",
    "3, 2, false, false, true,  true",
    "3, 1, false, false, false, false",
    "3, 1, true,  true,  true,  false",
    "3, 2, true,  false, true,  true",
    "4, 4, false, true,  true,  true",
    "4, 3, false, true,  false, true",
    "4, 3, false, false, true,  true",
    "4, 2, false, false, false, false",
    "5, 5, false, true,  true,  true",
    "5, 4, false, true,  true,  true",
    "5, 3, false, true,  false, false",
    "5, 3, false, false, true,  true",
    "5, 2, false, false, false, false",
    "6, 6, false, true,  true,  true",
    "6, 4, false, true,  false, true",
    "6, 4, false, false, true,  true",
    "7, 7, false, true,  true,  true",
    "7, 5, false, true,  true,  true",
    "7, 4, false, true,  false, false",
    "7, 4, false, false, true,  true",
    "7, 3, true,  true,  true,  false",
  })
  void restartAndRemove(
      int voters,
      int healthy,
      boolean learner,
      boolean targetHealthy,
      boolean restart,
      boolean remove) {
    assertThat(Quorum.canRestart(voters, healthy, learner, targetHealthy))
        .as("restart")
        .isEqualTo(restart);
    assertThat(Quorum.canRemove(voters, healthy, learner, targetHealthy))
        .as("remove")
        .isEqualTo(remove);
  }

  @ParameterizedTest(name = "{0} voters, {1} healthy, learner healthy={2}: promote={3}")
  @CsvSource({
    "1, 1, true,  true",
    "1, 0, true,  false",
    "1, 1, false, false",
    "2, 2, true,  true",
    "2, 1, true,  true",
    "2, 0, true,  false",
    "3, 3, true,  true",
    "3, 2, true,  true",
    "4, 3, true,  true",
    "4, 2, true,  true",
    "4, 1, true,  false",
    "5, 3, true,  true",
    "6, 4, true,  true",
    "6, 3, true,  true",
    "6, 2, true,  false",
  })
  void promote(int voters, int healthy, boolean learnerHealthy, boolean promote) {
    assertThat(Quorum.canPromote(voters, healthy, learnerHealthy)).isEqualTo(promote);
  }
}
