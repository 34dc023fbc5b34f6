package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.InitialMember;
import io.etcdoperator.operator.observe.StatefulSetView;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.stream.IntStream;

/**
 * No quorum: the cluster either formed before and lost it (destroy nothing, wait), or never formed
 * (bootstrap). These come after every quorum rule, since they apply only when no quorum was seen.
 */
final class QuorumLostRules {
  private QuorumLostRules() {}

  /**
   * No quorum, in a cluster that formed before: whatever the ConfigMap says, the world shows it
   * ({@link Facts#existed}).
   */
  static boolean lost(Situation s) {
    return !s.facts().quorum() && s.facts().existed();
  }

  /**
   * Without quorum the StatefulSet never shrinks: it covers every known member's ordinal, so that
   * each gets its pod back; 0 when the user scaled the cluster to 0.
   */
  static int replicas(Situation s) {
    if (s.hibernating()) {
      return 0;
    }
    SortedSet<Integer> known = s.facts().knownOrdinals();
    int current = s.view().statefulSet().map(StatefulSetView::replicas).orElse(0);
    return Math.max(current, known.isEmpty() ? 0 : known.last() + 1);
  }

  /**
   * Scaled to 0: the members stop, so there is no quorum; that is what the user asked for. Before
   * QuorumLost, which would call it a failure.
   */
  static final class Hibernated implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return lost(s) && s.desired().replicas() == 0
          ? Optional.of(Decisions.hibernated(s, replicas(s)))
          : Optional.empty();
    }
  }

  /**
   * Quorum lost in a cluster that formed: make sure every known member has its pod (the StatefulSet
   * never shrinks), replace stale pods of members that are down anyway, and wait. Report {@code
   * QuorumLost} naming the missing members. Destroy nothing; change no membership.
   */
  static final class QuorumLost implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (!lost(s)) {
        return Optional.empty();
      }
      Facts f = s.facts();
      Step step = new Step.None();
      if (s.templateRolledOut()) {
        List<Integer> downAndStale =
            f.stalePods(s.desired().podTemplateHash()).stream()
                .filter(i -> f.memberAt(i).map(m -> !f.healthy(m)).orElse(true))
                .toList();
        if (!downAndStale.isEmpty()) {
          step =
              new Step.DeletePods(
                  s.pods(downAndStale),
                  "their members are down and their template changed: replacing them cannot cost"
                      + " quorum");
        }
      }
      return Optional.of(Decisions.quorumLost(s, step, replicas(s)));
    }
  }

  /**
   * The cluster never formed: the ConfigMap says {@code new} with every desired member, and the
   * StatefulSet runs every pod at once (Parallel). Pods running an old template are replaced all at
   * once: without a quorum, no write was ever acknowledged, so nothing can be lost (a pod spec that
   * never ran etcd, say). Last: it applies to whatever no other rule took.
   */
  static final class Bootstrap implements Rule {
    static final String NEVER_FORMED =
        "the cluster never formed: pods with an old template are replaced all at once";

    @Override
    public Optional<Decision> decide(Situation s) {
      List<InitialMember> members =
          IntStream.range(0, s.desired().replicas())
              .mapToObj(i -> InitialMember.of(s.namespace(), s.name(), i, s.peerScheme()))
              .toList();
      Step step = new Step.None();
      SortedSet<Integer> stale = s.facts().stalePods(s.desired().podTemplateHash());
      if (!stale.isEmpty() && s.templateRolledOut()) {
        step = new Step.DeletePods(s.pods(stale), NEVER_FORMED);
      }
      return Optional.of(Decisions.bootstrap(s, step, members));
    }
  }
}
