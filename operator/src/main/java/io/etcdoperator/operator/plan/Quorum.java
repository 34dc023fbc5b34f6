package io.etcdoperator.operator.plan;

/**
 * The quorum arithmetic every membership decision goes through: can this member be restarted,
 * removed or promoted now, and the cluster still hold a quorum of healthy voters throughout?
 *
 * <p>Learners do not vote: restarting or removing one never endangers quorum. For a voter, the
 * question is asked about the voters only: {@code voters} is how many voting members the member
 * list has, {@code healthyVoters} how many of them are healthy now (the target included, when it is
 * healthy).
 *
 * <ul>
 *   <li>Restart (the member is down for a while, membership unchanged): the other healthy voters
 *       must make a quorum of {@code voters}.
 *   <li>Remove: the change must commit (a quorum of {@code voters} healthy now) and the healthy
 *       voters left must make a quorum of {@code voters - 1}. Removing the last voter is never
 *       allowed: that is deleting the cluster.
 *   <li>Promote a healthy learner: the healthy voters plus the new one must make a quorum of {@code
 *       voters + 1}.
 * </ul>
 */
public final class Quorum {
  private Quorum() {}

  /** Voters needed for a quorum among {@code voters}. */
  public static int of(int voters) {
    return voters / 2 + 1;
  }

  /** Whether {@code healthyVoters} of {@code voters} make a quorum. */
  public static boolean held(int voters, int healthyVoters) {
    return voters > 0 && healthyVoters >= of(voters);
  }

  public static boolean canRestart(
      int voters, int healthyVoters, boolean targetIsLearner, boolean targetHealthy) {
    if (targetIsLearner) {
      return true;
    }
    int othersHealthy = healthyVoters - (targetHealthy ? 1 : 0);
    return othersHealthy >= of(voters);
  }

  public static boolean canRemove(
      int voters, int healthyVoters, boolean targetIsLearner, boolean targetHealthy) {
    if (targetIsLearner) {
      return held(voters, healthyVoters);
    }
    if (voters <= 1 || !held(voters, healthyVoters)) {
      return false;
    }
    int othersHealthy = healthyVoters - (targetHealthy ? 1 : 0);
    return othersHealthy >= of(voters - 1);
  }

  public static boolean canPromote(int voters, int healthyVoters, boolean learnerHealthy) {
    return learnerHealthy && healthyVoters + 1 >= of(voters + 1);
  }
}
