package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.PodView;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the world keeps of a cluster's past, for {@link Facts}.
 *
 * <p>Whether the cluster ever formed is read from every sign the world keeps, the operator's
 * ConfigMap being only one: a claim marked with a member ID (a member was healthy on it) and not
 * being deleted, a member that answers (etcd serves clients only once it joined a cluster with
 * quorum), a member pod that is Ready (its readiness probe asks {@code /health}, which needs a
 * leader), and, when the ConfigMap is gone, a member pod running etcd (it may hold the only copy of
 * some data; a {@code new} cluster must never be bootstrapped over it). A StatefulSet alone is no
 * sign: one exists from the first moment of a bootstrap, and announcing {@code existing} to members
 * of a cluster that never formed would keep them from ever starting.
 *
 * <p>A marked claim that is being deleted is no sign: its data is going, and it is what a user
 * leaves for a moment after deleting a cluster and its claims (the claim waits for its protection
 * finalizer). Taken for a past, it made the next cluster of the same name wait for members it never
 * had, the ConfigMap written as {@code existing} with none of them, for good. {@link
 * Facts#knownOrdinals} skips such claims for the same reason.
 */
final class Past {
  private Past() {}

  static boolean existed(ClusterView view) {
    boolean configMapSaysSo = view.clusterState().map(ClusterState::existing).orElse(false);
    boolean claimMarked =
        view.claims().values().stream().anyMatch(c -> c.memberId() != 0 && !c.terminating());
    boolean answers =
        view.probes().values().stream().anyMatch(p -> p.reachable() && p.clusterId() != 0);
    boolean ready = view.pods().values().stream().anyMatch(PodView::ready);
    boolean runsWithoutRecord =
        view.clusterState().isEmpty()
            && view.pods().values().stream().anyMatch(p -> p.running() && !p.terminating());
    return configMapSaysSo || claimMarked || answers || ready || runsWithoutRecord;
  }

  /**
   * The cluster ID recorded when quorum was seen: on the ConfigMap, else on the claims when they
   * all agree; 0 when nothing records one.
   */
  static long recordedClusterId(ClusterView view) {
    Optional<String> onConfigMap =
        view.clusterState().flatMap(s -> s.annotation(Names.CLUSTER_ID_ANNOTATION));
    if (onConfigMap.isPresent()) {
      try {
        return Long.parseUnsignedLong(onConfigMap.get(), 16);
      } catch (NumberFormatException e) {
        return 0;
      }
    }
    Set<Long> onClaims =
        view.claims().values().stream()
            .map(ClaimView::clusterId)
            .filter(id -> id != 0)
            .collect(Collectors.toSet());
    return onClaims.size() == 1 ? onClaims.iterator().next() : 0;
  }
}
