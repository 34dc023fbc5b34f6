package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdHttp;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.tls.TlsReport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.time.Clock;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the {@link ClusterView} of one reconcile: the cluster's Kubernetes objects (from the
 * informer caches, handed in) and one probe of every member it expects, all at once.
 *
 * <p>Expected members: every ordinal below the StatefulSet's replicas, every pod, and every member
 * the cluster-state ConfigMap records. Probing a member whose pod does not exist costs a failed
 * name lookup, not a deadline.
 */
public final class ClusterObserver {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterObserver.class);
  private final EtcdService etcd;
  private final EtcdHttp metrics;
  private final Clock clock;

  /**
   * What the observer keeps of one cluster between reconciles: the cluster version its last
   * reconcile read ({@link #versionHolds}). Kept with the rest of what the operator holds for the
   * cluster, and dropped with it.
   */
  public static final class Memory {
    private volatile SeenVersion version;
  }

  public ClusterObserver(EtcdService etcd, EtcdHttp metrics, Clock clock) {
    this.etcd = etcd;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** The Kubernetes objects of one cluster, as the caches hold them. */
  public record Objects(
      Optional<StatefulSet> statefulSet,
      Collection<Pod> pods,
      Collection<PersistentVolumeClaim> claims,
      Optional<ConfigMap> clusterState,
      Optional<Pod> rebuildPod) {}

  public ClusterView observe(String namespace, String cluster, Objects objects) {
    return observe(namespace, cluster, objects, "http", TlsReport.NONE);
  }

  /**
   * The view, probing each member on the scheme its pod serves (by its arguments) and, without a
   * pod, on {@code clientScheme} (what the spec asks for), with the TLS material of {@code tls}.
   */
  public ClusterView observe(
      String namespace, String cluster, Objects objects, String clientScheme, TlsReport tls) {
    return observe(namespace, cluster, objects, clientScheme, tls, new Memory());
  }

  /**
   * As {@link #observe(String, String, Objects, String, TlsReport)}, remembering in {@code memory}.
   */
  public ClusterView observe(
      String namespace,
      String cluster,
      Objects objects,
      String clientScheme,
      TlsReport tls,
      Memory memory) {
    String key = namespace + "/" + cluster;
    etcd.useTls(key, tls.client());
    Optional<StatefulSetView> sts = objects.statefulSet().map(KubernetesViews::statefulSet);
    TreeMap<Integer, PodView> pods = new TreeMap<>();
    objects
        .pods()
        .forEach(p -> KubernetesViews.pod(cluster, p).ifPresent(v -> pods.put(v.ordinal(), v)));
    TreeMap<Integer, ClaimView> claims = new TreeMap<>();
    objects
        .claims()
        .forEach(c -> KubernetesViews.claim(cluster, c).ifPresent(v -> claims.put(v.ordinal(), v)));
    Optional<ClusterState> state = objects.clusterState().map(KubernetesViews::clusterState);

    SortedSet<Integer> expected = new TreeSet<>(pods.keySet());
    sts.ifPresent(
        s -> {
          for (int i = 0; i < s.replicas(); i++) {
            expected.add(i);
          }
        });
    state.ifPresent(
        s ->
            s.memberNames().stream()
                .mapToInt(n -> Names.ordinalOf(cluster, n))
                .filter(i -> i >= 0)
                .forEach(expected::add));

    if (objects.rebuildPod().isEmpty()) {
      // A rebuild pinned its survivor's name to its own address; members answer there again.
      expected.forEach(
          i -> etcd.pinAddress(key, Names.memberHost(namespace, cluster, i), Optional.empty()));
    }
    Probes.Probed probed = new Probes.Probed(new TreeMap<>(), Optional.empty());
    if (!expected.isEmpty()) {
      TreeMap<Integer, String> urls = new TreeMap<>();
      expected.forEach(
          i ->
              urls.put(
                  i,
                  Names.clientUrl(
                      namespace,
                      cluster,
                      i,
                      pods.containsKey(i) ? pods.get(i).clientScheme() : clientScheme)));
      probed = Probes.fromProbe(urls, etcd.probeAll(key, List.copyOf(urls.values())));
    }
    TreeMap<Integer, MemberProbe> probes = new TreeMap<>(probed.probes());
    trace(cluster, probes, probed.memberList());
    for (String url : Probes.answeredForAnother(cluster, probes, probed.memberList())) {
      LOG.debug("{}: another member answered at {}; its name is looked up again", key, url);
      etcd.resolveAgain(key, url);
    }
    readMetricsOfSilentMembers(namespace, cluster, pods, probes, probed.memberList());
    Optional<RebuildView> rebuild =
        objects.rebuildPod().map(p -> rebuildView(namespace, cluster, p));
    Optional<String> clusterVersion = clusterVersion(memory, probes.values(), tls);
    Optional<Boolean> authEnabled = Optional.empty();
    if (tls.client().map(c -> c.key().isPresent()).orElse(false)) {
      Optional<MemberProbe> leader =
          probes.values().stream()
              .filter(p -> p.reachable() && p.memberId() == p.leaderId())
              .findFirst();
      if (leader.isPresent()) {
        try {
          authEnabled = Optional.of(etcd.authEnabled(key, leader.get().endpoint()));
        } catch (EtcdException e) {
          LOG.debug("auth status of {} unknown: {}", key, e.getMessage());
        }
      }
    }
    ClusterView view =
        new ClusterView(
            clock.instant(),
            sts,
            pods,
            claims,
            state,
            probes,
            probed.memberList(),
            rebuild,
            clusterVersion,
            RestoreProgress.of(cluster, objects.pods()),
            tls,
            authEnabled);
    return view.withHashes(MemberHashes.whenDiverged(etcd, key, probes, pods.values()));
  }

  /**
   * The cluster version, asked of the leader (else any member that answered) over HTTP, unless the
   * answer of an earlier reconcile still holds ({@link #versionHolds}).
   */
  private Optional<String> clusterVersion(
      Memory memory, Collection<MemberProbe> probes, TlsReport tls) {
    List<String> serverVersions =
        probes.stream()
            .filter(MemberProbe::reachable)
            .map(MemberProbe::version)
            .filter(v -> v != null)
            .sorted()
            .toList();
    SeenVersion seen = memory.version;
    if (seen != null && versionHolds(serverVersions, seen)) {
      return Optional.of(seen.cluster());
    }
    Optional<String> asked =
        probes.stream()
            .filter(MemberProbe::reachable)
            .sorted(Comparator.comparing((MemberProbe p) -> p.memberId() != p.leaderId()))
            .findFirst()
            .flatMap(p -> metrics.versions(p.endpoint(), tls.client()))
            .map(EtcdHttp.Versions::cluster);
    memory.version = asked.map(v -> new SeenVersion(serverVersions, v)).orElse(null);
    return asked;
  }

  /**
   * The cluster version a reconcile read, with the members' server versions it read it with.
   *
   * @param servers the server versions of the members that answered, sorted
   * @param cluster the cluster version
   */
  record SeenVersion(List<String> servers, String cluster) {}

  /**
   * Whether the cluster version read earlier still holds: the members that answer run the same
   * server versions as then, all one version, whose major.minor the cluster version already is.
   * etcd changes the cluster version only when its members' versions change (to the lowest of them,
   * some moments after they agree), so in that state it cannot have changed; in any other (a roll
   * or an upgrade under way, a member missing) it is asked again.
   */
  static boolean versionHolds(List<String> servers, SeenVersion seen) {
    if (servers.isEmpty() || !servers.equals(seen.servers())) {
      return false;
    }
    String first = servers.get(0);
    return servers.stream().allMatch(first::equals) && minor(first).equals(minor(seen.cluster()));
  }

  private static String minor(String version) {
    String[] parts = version.split("\\.");
    return parts.length < 2 ? version : parts[0] + "." + parts[1];
  }

  /**
   * A member whose pod runs but whose client port does not answer may be a survivor restarted
   * without quorum: its metrics tell how far its log goes. Asked only when no member that answers
   * sees a leader (then the planner may need to pick the most advanced survivor), or of a pod whose
   * ordinal has no started member in the list (etcd serves clients only once it is part of a
   * cluster, so the pod of a removed member never answers there, nor does a learner's before it
   * joined; their metrics say whether the data dir holds anything); otherwise a frozen member would
   * cost a second deadline in every reconcile.
   */
  private void readMetricsOfSilentMembers(
      String namespace,
      String cluster,
      SortedMap<Integer, PodView> pods,
      TreeMap<Integer, MemberProbe> probes,
      Optional<MemberList> list) {
    boolean leaderSeen = probes.values().stream().anyMatch(MemberProbe::seesLeader);
    Set<Integer> listed = new HashSet<>();
    list.ifPresent(
        l ->
            l.members().stream()
                .filter(MemberList.Entry::started)
                .forEach(
                    m ->
                        m.peerUrls()
                            .forEach(
                                u -> listed.add(Names.ordinalOfPeerUrl(namespace, cluster, u)))));
    List<Integer> silent =
        probes.values().stream()
            .filter(p -> !p.reachable())
            .map(MemberProbe::ordinal)
            .filter(i -> pods.containsKey(i) && pods.get(i).running())
            .filter(i -> !leaderSeen || (list.isPresent() && !listed.contains(i)))
            .toList();
    if (silent.isEmpty()) {
      return;
    }
    List<String> urls = silent.stream().map(i -> Names.metricsUrl(namespace, cluster, i)).toList();
    var progress = metrics.progress(urls);
    for (int k = 0; k < silent.size(); k++) {
      var p = progress.get(urls.get(k));
      if (p != null) {
        int ordinal = silent.get(k);
        probes.put(ordinal, probes.get(ordinal).withMetrics(p.committedIndex(), p.revision()));
      }
    }
  }

  private RebuildView rebuildView(String namespace, String cluster, Pod pod) {
    String key = namespace + "/" + cluster;
    String survivor =
        pod.getMetadata().getAnnotations() == null
            ? null
            : pod.getMetadata().getAnnotations().get(Names.SURVIVOR_ANNOTATION);
    int ordinal;
    try {
      ordinal = survivor == null ? -1 : Integer.parseInt(survivor);
    } catch (NumberFormatException e) {
      ordinal = -1;
    }
    String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
    Optional<MemberProbe> probe = Optional.empty();
    if (ip != null && !ip.isBlank() && ordinal >= 0) {
      // No Service names the rebuild pod: its address is pinned under the member's name, which
      // its server certificate (when it has one) names.
      String host = Names.memberHost(namespace, cluster, ordinal);
      etcd.pinAddress(key, host, Optional.of(ip));
      String url = Names.clientUrl(namespace, cluster, ordinal, KubernetesViews.clientScheme(pod));
      probe = Optional.of(Probes.toView(ordinal, etcd.status(key, url)));
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return new RebuildView(
        pod.getMetadata().getName(),
        ordinal,
        phase == null ? "Pending" : phase,
        pod.getMetadata().getDeletionTimestamp() != null,
        probe);
  }

  /** What each member answered, at TRACE: the planner's whole input from etcd, for diagnosis. */
  private static void trace(
      String cluster, SortedMap<Integer, MemberProbe> probes, Optional<MemberList> list) {
    if (!LOG.isTraceEnabled()) {
      return;
    }
    LOG.trace(
        "probed {}: {}; member list {}",
        cluster,
        probes.values().stream()
            .map(
                p ->
                    p.ordinal()
                        + (p.reachable()
                            ? " "
                                + Long.toHexString(p.memberId())
                                + " leader "
                                + Long.toHexString(p.leaderId())
                                + (p.learner() ? " learner" : "")
                            : " down"))
            .toList(),
        list.map(l -> l.members().size() + " members, from ordinal " + l.seenFromOrdinal())
            .orElse("none"));
  }
}
