package io.etcdoperator.operator.reconcile;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSchedule;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.act.DesiredCache;
import io.etcdoperator.operator.model.ChangeBackups;
import io.etcdoperator.operator.model.DesiredCluster;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.PeerSecrets;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.model.ServerTlsRecord;
import io.etcdoperator.operator.model.SourceClaim;
import io.etcdoperator.operator.model.TlsMove;
import io.etcdoperator.operator.observe.ClusterObserver;
import io.etcdoperator.operator.observe.ClusterTls;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.KubernetesViews;
import io.etcdoperator.operator.observe.Placements;
import io.etcdoperator.operator.observe.StorageClasses;
import io.etcdoperator.operator.plan.TlsMoves;
import io.etcdoperator.operator.tls.TlsReport;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * One reconcile's look at a cluster: what it wants (composed once per change, {@link DesiredCache})
 * and what the world shows (the caches, corrected for the operator's own deletions, and a probe of
 * every member, {@link ClusterObserver}), with the TLS Secrets checked first, since the members are
 * probed with them. A running cluster moving its peers to TLS wants the template of the move's
 * step, which only the view can tell.
 */
final class ClusterObservation {
  private final ClusterObserver observer;
  private final ClusterEventSources sources;
  private final Clock clock;
  private final String operatorImage;
  private final boolean clusterWide;

  /**
   * What one reconcile saw.
   *
   * @param composed the desired state composed, with the hashes of its objects
   * @param desired what the cluster wants, with its newest backup
   * @param view what the world shows
   * @param live the cluster's live objects
   */
  record Observed(
      DesiredCache.Entry composed, DesiredCluster desired, ClusterView view, LiveObjects live) {
    Optional<EtcdClusterModel> model() {
      return desired.model();
    }
  }

  ClusterObservation(
      ClusterObserver observer,
      ClusterEventSources sources,
      Clock clock,
      String operatorImage,
      boolean clusterWide) {
    this.observer = observer;
    this.sources = sources;
    this.clock = clock;
    this.operatorImage = operatorImage;
    this.clusterWide = clusterWide;
  }

  Observed observe(EtcdCluster cluster, Context<EtcdCluster> context, ClusterSession session) {
    LiveObjects live = new LiveObjects(context, sources, cluster);
    TlsReport tls = tls(cluster, context, live);
    List<EtcdBackup> backups = context.getSecondaryResourcesAsStream(EtcdBackup.class).toList();
    Optional<String> newestBackup = Backups.newest(backups);
    Optional<SourceClaim> restoreClaim = restoreClaim(cluster, context);
    ChangeBackups changeBackups =
        Backups.beforeChanges(
            cluster,
            backups,
            context.getSecondaryResourcesAsStream(EtcdBackupSchedule.class).toList());
    // The peer Secrets the members' StatefulSet mounts: kept through a move off peer TLS.
    Optional<PeerSecrets> running = runningPeerSecrets(session.namespace(), live);
    DesiredCache.Entry composed =
        session.desired().of(cluster, operatorImage, tls.trustedCa(), TlsMove.NONE, running);
    DesiredCluster desired = withBackup(composed, newestBackup, changeBackups, restoreClaim);
    ClusterView view = view(cluster, context, session, desired, tls, live);
    TlsMove move = TlsMoves.of(desired.target(), view);
    if (move != TlsMove.NONE) {
      composed = session.desired().of(cluster, operatorImage, tls.trustedCa(), move, running);
      desired = withBackup(composed, newestBackup, changeBackups, restoreClaim);
    }
    return new Observed(composed, desired, view, live);
  }

  private static DesiredCluster withBackup(
      DesiredCache.Entry composed,
      Optional<String> newest,
      ChangeBackups changeBackups,
      Optional<SourceClaim> restoreClaim) {
    DesiredCluster d = composed.desired();
    return new DesiredCluster(
        d.target()
            .withNewestBackup(newest)
            .withChangeBackups(changeBackups)
            .withRestoreClaim(restoreClaim),
        d.model());
  }

  /**
   * The peer Secrets the members run, for a move off peer TLS that still serves https: as the
   * StatefulSet's template mounts them, else as a pod does (the StatefulSet gone), with whether
   * each exists.
   */
  private Optional<PeerSecrets> runningPeerSecrets(String namespace, LiveObjects live) {
    ClusterObserver.Objects objects = live.objects();
    Predicate<String> exists = secret -> sources.secretExists(namespace, secret);
    Optional<PeerSecrets> fromSet =
        objects
            .statefulSet()
            .flatMap(
                s ->
                    Security.peerSecretsOf(
                        s.getSpec() == null || s.getSpec().getTemplate() == null
                            ? null
                            : s.getSpec().getTemplate().getSpec(),
                        exists));
    if (fromSet.isPresent()) {
      return fromSet;
    }
    return objects.pods().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> Security.peerSecretsOf(p.getSpec(), exists))
        .flatMap(Optional::stream)
        .findFirst();
  }

  /**
   * The claim spec.bootstrap.restore restores from, read from the API server (it is the user's, not
   * in the operator's caches): one read per reconcile of a cluster restored from a claim.
   */
  private static Optional<SourceClaim> restoreClaim(
      EtcdCluster cluster, Context<EtcdCluster> context) {
    var spec = cluster.getSpec();
    if (spec == null
        || spec.getBootstrap() == null
        || spec.getBootstrap().getRestore() == null
        || spec.getBootstrap().getRestore().getSource() == null
        || spec.getBootstrap().getRestore().getSource().getPvc() == null
        || spec.getBootstrap().getRestore().getSource().getPvc().getClaimName() == null) {
      return Optional.empty();
    }
    String name = spec.getBootstrap().getRestore().getSource().getPvc().getClaimName();
    PersistentVolumeClaim claim =
        context
            .getClient()
            .persistentVolumeClaims()
            .inNamespace(cluster.getMetadata().getNamespace())
            .withName(name)
            .get();
    return Optional.of(
        claim == null
            ? new SourceClaim(name, false, List.of())
            : new SourceClaim(
                name,
                true,
                claim.getSpec() == null || claim.getSpec().getAccessModes() == null
                    ? List.of()
                    : claim.getSpec().getAccessModes()));
  }

  private ClusterView view(
      EtcdCluster cluster,
      Context<EtcdCluster> context,
      ClusterSession session,
      DesiredCluster desired,
      TlsReport tls,
      LiveObjects live) {
    String scheme =
        desired.model().map(m -> m.security().clientScheme()).orElse(Security.NONE.clientScheme());
    ClusterObserver.Objects objects = withDeletions(session, live.objects());
    ClusterView view =
        observer.observe(
            session.namespace(), session.name(), objects, scheme, tls, session.observed());
    NodeWatch nodes = sources.nodes(context.getClient(), clusterWide);
    boolean persistent = desired.model().map(m -> m.usesPersistentStorage()).orElse(true);
    return view.withStorageClass(
            StorageClasses.ofExpansion(context.getClient(), desired.target(), view))
        .withPlacements(
            Placements.of(
                session.name(),
                List.copyOf(objects.pods()),
                List.copyOf(objects.claims()),
                persistent,
                nodes.nodesVisible(),
                nodes.volumesVisible(),
                nodes::node,
                nodes::volume));
  }

  /**
   * The cached objects, with the pods and claims this operator deleted shown deleted even where the
   * cache does not show it yet (see {@link io.etcdoperator.operator.act.Deletions}).
   */
  private ClusterObserver.Objects withDeletions(
      ClusterSession session, ClusterObserver.Objects cached) {
    Instant now = clock.instant();
    List<Pod> pods = session.deletions().pods(cached.pods(), now);
    // The rebuild pod is one of the cached pods: its corrected copy, or none when left out.
    Optional<Pod> rebuild =
        cached
            .rebuildPod()
            .flatMap(
                p ->
                    cached.pods().contains(p)
                        ? pods.stream().filter(c -> named(c, p)).findFirst()
                        : Optional.of(p));
    return new ClusterObserver.Objects(
        cached.statefulSet(),
        pods,
        session.deletions().claims(cached.claims(), now),
        cached.clusterState(),
        rebuild);
  }

  private static boolean named(HasMetadata a, HasMetadata b) {
    return a.getMetadata().getName().equals(b.getMetadata().getName());
  }

  /**
   * What the Secrets of spec.security.tls hold, checked for every ordinal the cluster has or is to
   * have. Nothing to check when the spec names none (or is invalid: then nothing is started). While
   * a pod still serves clients over https that the spec no longer asks for, also the Secrets the
   * cluster-state ConfigMap records for it ({@link ServerTlsRecord}): the operator reaches such
   * members with them.
   */
  private TlsReport tls(EtcdCluster cluster, Context<EtcdCluster> context, LiveObjects live) {
    String ns = cluster.getMetadata().getNamespace();
    String name = cluster.getMetadata().getName();
    SortedSet<Integer> pods = new TreeSet<>();
    live.all(Pod.class).stream()
        .mapToInt(p -> Names.ordinalOf(name, p.getMetadata().getName()))
        .filter(i -> i >= 0)
        .forEach(pods::add);
    boolean https =
        live.objects().pods().stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .flatMap(p -> KubernetesViews.pod(name, p).stream())
            .anyMatch(p -> p.clientScheme().equals("https"));
    Optional<ServerTlsRecord> recorded =
        https
            ? live.objects()
                .clusterState()
                .map(c -> c.getMetadata().getAnnotations())
                .flatMap(
                    a ->
                        ServerTlsRecord.parse(
                            a == null ? null : a.get(Names.SERVER_TLS_ANNOTATION)))
            : Optional.empty();
    return ClusterTls.check(
        cluster, secret -> sources.secret(ns, secret), pods, clock.instant(), recorded);
  }
}
