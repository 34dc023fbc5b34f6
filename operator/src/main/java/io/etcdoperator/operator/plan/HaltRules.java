package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.StatefulSetView;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The rules that make the operator stand still: they come first, because whatever they find makes
 * every later rule's step unsafe or meaningless.
 */
final class HaltRules {
  private HaltRules() {}

  /**
   * The spec cannot be run (every field and reason, from {@code SpecValidator}): report it and
   * touch nothing. First, because no other rule has a desired state to work towards.
   */
  static final class InvalidSpec implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return s.target().desired().isPresent()
          ? Optional.empty()
          : Optional.of(Decisions.invalidSpec(s, s.target().problems()));
    }
  }

  /**
   * Members answered with more than one cluster ID: touch nothing, not even the StatefulSet, since
   * any change could make it worse. Before any rule that reads "the" cluster ID.
   */
  static final class SplitBrain implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (s.facts().clusterIds.size() <= 1) {
        return Optional.empty();
      }
      String message =
          "members answer with different cluster IDs ("
              + s.view().probes().values().stream()
                  .filter(p -> p.reachable() && p.clusterId() != 0)
                  .map(p -> s.pod(p.ordinal()) + ": " + Hex.id(p.clusterId()))
                  .collect(Collectors.joining(", "))
              + "); the operator changes nothing until a human resolves it";
      return Optional.of(Decisions.halt(Conditions.SPLIT_BRAIN, message));
    }
  }

  /**
   * The members that answer belong to a cluster other than the one recorded when quorum was first
   * seen: another cluster was started next to this one's data. Touch nothing; a human resolves it.
   */
  static final class AnotherCluster implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<String> recorded =
          s.view().clusterState().flatMap(c -> c.annotation(Names.CLUSTER_ID_ANNOTATION));
      long seen = s.facts().clusterId;
      if (recorded.isEmpty() || seen == 0 || recorded.get().equals(Hex.id(seen))) {
        return Optional.empty();
      }
      String message =
          "the members that answer belong to cluster "
              + Hex.id(seen)
              + ", but this cluster formed as "
              + recorded.get()
              + " (recorded in its cluster-state ConfigMap): another cluster was started next to"
              + " its data; the operator changes nothing until a human resolves it";
      return Optional.of(Decisions.halt(Conditions.SPLIT_BRAIN, message));
    }
  }

  /**
   * The spec's storage kind differs from the StatefulSet's: members keep their data in the kind
   * they started with, and the claim template is immutable. An invalid spec; touch nothing. The CRD
   * refuses the change at admission; this catches a resource admitted without that rule.
   */
  static final class StorageKindChanged implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<StatefulSetView> sts = s.view().statefulSet();
      if (sts.isEmpty() || sts.get().persistentStorage() == s.desired().persistentStorage()) {
        return Optional.empty();
      }
      return Optional.of(
          Decisions.invalidSpec(
              s,
              List.of(
                  "spec.storage: the storage kind cannot change after creation (the cluster"
                      + " keeps its data in "
                      + (sts.get().persistentStorage() ? "volumeClaimTemplate" : "emptyDir")
                      + ")")));
    }
  }
}
