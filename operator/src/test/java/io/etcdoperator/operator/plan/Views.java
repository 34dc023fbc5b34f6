package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.InitialMember;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberHash;
import io.etcdoperator.operator.observe.MemberList;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.observe.StatefulSetView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Builds {@link ClusterView}s for planner tables: a cluster named {@code test} in {@code default},
 * member {@code i} with ID {@code 0x100+i}, cluster ID {@code 0xc1}, template hash {@code h1}.
 */
final class Views {
  static final String NS = "default";
  static final String NAME = "test";
  static final String HASH = "h1";
  static final long CLUSTER_ID = 0xc1;

  /** The version members report: the one the desired image names. */
  static final String VERSION = "3.5.30";

  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  private Optional<StatefulSetView> sts = Optional.empty();
  private final TreeMap<Integer, PodView> pods = new TreeMap<>();
  private final TreeMap<Integer, ClaimView> claims = new TreeMap<>();
  private Optional<ClusterState> clusterState = Optional.empty();
  private final TreeMap<Integer, MemberProbe> probes = new TreeMap<>();
  private final List<MemberList.Entry> members = new ArrayList<>();
  private boolean memberListKnown;
  private long leader;
  private String clusterVersion;
  private Optional<io.etcdoperator.operator.observe.RebuildView> rebuildPod = Optional.empty();
  private io.etcdoperator.operator.tls.TlsReport tls = io.etcdoperator.operator.tls.TlsReport.NONE;
  private Optional<Boolean> authEnabled = Optional.empty();
  private Optional<io.etcdoperator.operator.observe.StorageClassView> storageClass =
      Optional.empty();
  private final TreeMap<Integer, io.etcdoperator.operator.observe.Placement> placements =
      new TreeMap<>();

  static long id(int ordinal) {
    return 0x100 + ordinal;
  }

  static Target.Desired desired(int replicas) {
    return desired(replicas, true);
  }

  static Target.Desired desired(int replicas, boolean persistentStorage) {
    return new Target.Desired(
        replicas, HASH, persistentStorage, "token", "quay.io/coreos/etcd:v3.5.30");
  }

  static Target target(int replicas) {
    return Target.valid(NS, NAME, 7, desired(replicas));
  }

  /** The spec deletes the claim of a member removed on a scale-down (whenScaled: Delete). */
  static Target deletingScaledDownClaims(int replicas) {
    return Target.valid(
        NS,
        NAME,
        7,
        new Target.Desired(
            replicas,
            HASH,
            true,
            "token",
            "quay.io/coreos/etcd:v3.5.30",
            new Target.ClaimPolicy(true, false)));
  }

  /** The spec asks for {@code image} (the template's hash is {@link #HASH} all the same). */
  static Target target(int replicas, String image) {
    return Target.valid(NS, NAME, 7, new Target.Desired(replicas, HASH, true, "token", image));
  }

  /** Nothing exists yet. */
  static Views fresh() {
    return new Views();
  }

  /** StatefulSet, pods and claims of {@code n} members created with state new; nothing answers. */
  static Views bootstrapping(int n) {
    Views v = new Views().statefulSet(n);
    v.clusterState = Optional.of(state(false, n));
    for (int i = 0; i < n; i++) {
      v.pod(i, true, false).freshClaim(i).unreachable(i, "connection refused");
    }
    return v;
  }

  /** {@code n} healthy voters, member 0 leads. */
  static Views healthy(int n) {
    Views v = new Views().statefulSet(n);
    v.clusterState = Optional.of(state(true, n));
    v.memberListKnown = true;
    v.leader = id(0);
    for (int i = 0; i < n; i++) {
      v.pod(i, true, true).claim(i);
      v.members.add(voter(i));
      v.probes.put(i, answering(i, false, v.leader, 1000));
    }
    return v;
  }

  static ClusterState state(boolean existing, int n) {
    List<InitialMember> initial = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      initial.add(InitialMember.of(NS, NAME, i));
    }
    return new ClusterState(kind(existing), initial, "token");
  }

  static MemberList.Entry voter(int i) {
    return new MemberList.Entry(
        id(i),
        Names.member(NAME, i),
        List.of(Names.peerUrl(NS, NAME, i)),
        List.of(Names.clientUrl(NS, NAME, i)),
        false);
  }

  static MemberProbe answering(int i, boolean learner, long leader, long index) {
    return new MemberProbe(
        i,
        Names.clientUrl(NS, NAME, i),
        true,
        null,
        CLUSTER_ID,
        id(i),
        leader,
        5,
        index,
        learner,
        VERSION,
        20480,
        List.of());
  }

  static ClusterState.Kind kind(boolean existing) {
    return existing ? ClusterState.Kind.EXISTING : ClusterState.Kind.NEW;
  }

  Views statefulSet(int replicas) {
    sts = Optional.of(new StatefulSetView(replicas, HASH, true));
    return this;
  }

  Views statefulSet(int replicas, String hash, boolean persistent) {
    sts = Optional.of(new StatefulSetView(replicas, hash, persistent));
    return this;
  }

  Views noStatefulSet() {
    sts = Optional.empty();
    return this;
  }

  Views pod(int i, boolean running, boolean ready) {
    pods.put(
        i,
        new PodView(
            Names.pod(NAME, i),
            i,
            running ? "Running" : "Pending",
            ready,
            running,
            0,
            false,
            HASH,
            NOW.minus(Duration.ofHours(1)),
            null));
    return this;
  }

  Views podWithHash(int i, String hash) {
    PodView p = pods.get(i);
    pods.put(
        i,
        new PodView(
            p.name(),
            i,
            p.phase(),
            p.ready(),
            p.running(),
            p.restartCount(),
            p.terminating(),
            hash,
            p.createdAt(),
            p.lastTermination()));
    return this;
  }

  Views podCreatedAgo(int i, Duration ago) {
    PodView p = pods.get(i);
    pods.put(
        i,
        new PodView(
            p.name(),
            i,
            p.phase(),
            p.ready(),
            p.running(),
            p.restartCount(),
            p.terminating(),
            p.podTemplateHash(),
            NOW.minus(ago),
            p.lastTermination()));
    return this;
  }

  Views terminating(int i) {
    PodView p = pods.get(i);
    pods.put(
        i,
        new PodView(
            p.name(),
            i,
            p.phase(),
            p.ready(),
            p.running(),
            p.restartCount(),
            true,
            p.podTemplateHash(),
            p.createdAt(),
            p.lastTermination()));
    return this;
  }

  /** Member {@code i} was not probed (no pod to probe). */
  Views noProbe(int i) {
    probes.remove(i);
    return this;
  }

  Views noPod(int i) {
    pods.remove(i);
    return this;
  }

  /** The claim of ordinal {@code i}, holding member {@code i}'s data (marked, with the cluster). */
  Views claim(int i) {
    claims.put(i, new ClaimView(Names.dataClaim(NAME, i), i, false, id(i), CLUSTER_ID));
    return this;
  }

  /** The claim of ordinal {@code i} as marked before claims recorded the cluster ID. */
  Views claimWithoutClusterId(int i) {
    claims.put(i, new ClaimView(Names.dataClaim(NAME, i), i, false, id(i), 0));
    return this;
  }

  /** The claim of ordinal {@code i}, holding member {@code i}'s data of cluster {@code id}. */
  Views claimOfCluster(int i, long clusterId) {
    claims.put(i, new ClaimView(Names.dataClaim(NAME, i), i, false, id(i), clusterId));
    return this;
  }

  /** A claim that never held a member's data. */
  Views freshClaim(int i) {
    claims.put(i, new ClaimView(Names.dataClaim(NAME, i), i, false, 0));
    return this;
  }

  /** The claim of ordinal {@code i}, holding the data of the member with ID {@code memberId}. */
  Views claimOf(int i, long memberId, boolean terminating) {
    claims.put(i, new ClaimView(Names.dataClaim(NAME, i), i, terminating, memberId, CLUSTER_ID));
    return this;
  }

  Views claimTerminating(int i) {
    claims.put(i, new ClaimView(Names.dataClaim(NAME, i), i, true, id(i), CLUSTER_ID));
    return this;
  }

  /** The etcd container of pod {@code i} last died with this message in its status. */
  Views lastTermination(int i, String message) {
    PodView p = pods.get(i);
    pods.put(
        i,
        new PodView(
            p.name(),
            i,
            p.phase(),
            p.ready(),
            p.running(),
            p.restartCount(),
            p.terminating(),
            p.podTemplateHash(),
            p.createdAt(),
            message));
    return this;
  }

  Views noClaim(int i) {
    claims.remove(i);
    return this;
  }

  Views clusterState(boolean existing, int n) {
    clusterState = Optional.of(state(existing, n));
    return this;
  }

  /** The cluster-state ConfigMap records that the cluster formed with this cluster ID. */
  Views recordedClusterId(long clusterId) {
    ClusterState s = clusterState.orElseThrow();
    clusterState =
        Optional.of(
            new ClusterState(
                s.kind(),
                s.members(),
                s.token(),
                java.util.Map.of(Names.CLUSTER_ID_ANNOTATION, Long.toHexString(clusterId))));
    return this;
  }

  /**
   * The cluster-state ConfigMap records a rebuild under way from member {@code survivor}, asked for
   * with the opt-in value {@code optIn}.
   */
  Views rebuilding(int survivor, String optIn) {
    ClusterState s = clusterState.orElseThrow();
    Map<String, String> annotations = new LinkedHashMap<>(s.annotations());
    annotations.put(Names.REBUILDING_ANNOTATION, optIn);
    annotations.put(Names.REBUILDING_FROM_ANNOTATION, Names.member(NAME, survivor));
    clusterState = Optional.of(new ClusterState(s.kind(), s.members(), s.token(), annotations));
    return this;
  }

  /**
   * The cluster-state ConfigMap records these peer URLs for members 0, 1, ... (as the member list
   * last seen with quorum had them).
   */
  Views recordedPeerUrls(String... urls) {
    ClusterState s = clusterState.orElseThrow();
    List<InitialMember> members = new ArrayList<>();
    for (int i = 0; i < urls.length; i++) {
      members.add(new InitialMember(Names.member(NAME, i), urls[i]));
    }
    clusterState = Optional.of(new ClusterState(s.kind(), members, s.token(), s.annotations()));
    return this;
  }

  Views noClusterState() {
    clusterState = Optional.empty();
    return this;
  }

  /** Member {@code i} does not answer (killed, frozen, partitioned). */
  Views unreachable(int i, String why) {
    probes.put(i, MemberProbe.unreachable(i, Names.clientUrl(NS, NAME, i), why));
    return this;
  }

  /** Member {@code i}'s host refuses the connection: nothing listens there. */
  Views refused(int i) {
    probes.put(
        i, MemberProbe.unreachable(i, Names.clientUrl(NS, NAME, i), "Connection refused", true));
    return this;
  }

  /**
   * Member {@code i} is frozen (SIGSTOP, a hung disk): no answer within the deadline, and its
   * kubelet has marked the pod not Ready since its /health probe failed too.
   */
  Views frozen(int i) {
    unreachable(i, "DEADLINE_EXCEEDED");
    container(i, true, 0);
    return this;
  }

  /** Member {@code i} is down: no answer, container not running. */
  Views down(int i) {
    unreachable(i, "connection refused");
    if (pods.containsKey(i)) {
      container(i, false, 1);
    }
    return this;
  }

  /** Pod {@code i} Running and not Ready; its container running or not, restarted more times. */
  private void container(int i, boolean running, int moreRestarts) {
    PodView p = pods.get(i);
    pods.put(
        i,
        new PodView(
            p.name(),
            i,
            "Running",
            false,
            running,
            p.restartCount() + moreRestarts,
            false,
            p.podTemplateHash(),
            p.createdAt(),
            p.lastTermination()));
  }

  /** Every answering member follows {@code ordinal}. */
  Views leader(int ordinal) {
    leader = id(ordinal);
    probes.replaceAll(
        (i, p) ->
            p.reachable()
                ? new MemberProbe(
                    i,
                    p.endpoint(),
                    true,
                    null,
                    p.clusterId(),
                    p.memberId(),
                    leader,
                    p.raftTerm(),
                    p.raftIndex(),
                    p.learner(),
                    p.version(),
                    p.dbSize(),
                    p.alarms())
                : p);
    return this;
  }

  /** Answering members see no leader (a minority after quorum loss). */
  Views noLeader() {
    leader = 0;
    return leader0();
  }

  private Views leader0() {
    probes.replaceAll(
        (i, p) ->
            p.reachable()
                ? new MemberProbe(
                    i,
                    p.endpoint(),
                    true,
                    null,
                    p.clusterId(),
                    p.memberId(),
                    0,
                    p.raftTerm(),
                    p.raftIndex(),
                    p.learner(),
                    p.version(),
                    p.dbSize(),
                    p.alarms())
                : p);
    return this;
  }

  /** Add member {@code i} as a learner; started members answer and follow the leader. */
  Views learner(int i, boolean started) {
    members.add(
        new MemberList.Entry(
            id(i),
            started ? Names.member(NAME, i) : "",
            List.of(Names.peerUrl(NS, NAME, i)),
            started ? List.of(Names.clientUrl(NS, NAME, i)) : List.of(),
            true));
    if (started) {
      pod(i, true, true).claim(i);
      probes.put(i, answering(i, true, leader, 1000));
    }
    return this;
  }

  /** Add voter {@code i}, healthy. */
  Views voterMember(int i) {
    members.add(voter(i));
    pod(i, true, true).claim(i);
    probes.put(i, answering(i, false, leader, 1000));
    return this;
  }

  /** Remove member {@code i} from the member list (its pod and claim stay unless removed too). */
  Views notMember(int i) {
    members.removeIf(m -> m.id() == id(i));
    return this;
  }

  /**
   * The pod of ordinal {@code i} runs etcd for member {@code memberId} on a data dir that holds
   * nothing: no entry committed, no leader, the store at revision 1.
   */
  Views answersEmpty(int i, long memberId) {
    probes.put(
        i,
        new MemberProbe(
            i,
            Names.clientUrl(NS, NAME, i),
            true,
            null,
            CLUSTER_ID,
            memberId,
            0,
            0,
            0,
            false,
            VERSION,
            20480,
            List.of(),
            1,
            0));
    return this;
  }

  Views raftIndex(int i, long index) {
    MemberProbe p = probes.get(i);
    probes.put(
        i,
        new MemberProbe(
            i,
            p.endpoint(),
            true,
            null,
            p.clusterId(),
            p.memberId(),
            p.leaderId(),
            p.raftTerm(),
            index,
            p.learner(),
            p.version(),
            p.dbSize(),
            p.alarms()));
    return this;
  }

  /** Member {@code i} answers, at this raft term and index. */
  Views raftTermAndIndex(int i, long term, long index) {
    MemberProbe p = probes.get(i);
    probes.put(
        i,
        new MemberProbe(
            i,
            p.endpoint(),
            true,
            null,
            p.clusterId(),
            p.memberId(),
            p.leaderId(),
            term,
            index,
            p.learner(),
            p.version(),
            p.dbSize(),
            p.alarms()));
    return this;
  }

  /** Member {@code i} does not answer on its client port; its metrics report this commit index. */
  Views onlyMetrics(int i, long index) {
    probes.put(
        i,
        MemberProbe.unreachable(i, Names.clientUrl(NS, NAME, i), "deadline exceeded")
            .withMetrics(index, 0));
    return this;
  }

  /**
   * Member {@code i}'s pod is silent on its client port (etcd serves clients only once it joined);
   * its metrics report this commit index and key-value revision.
   */
  Views onlyMetrics(int i, long index, long revision) {
    probes.put(
        i,
        MemberProbe.unreachable(i, Names.clientUrl(NS, NAME, i), "deadline exceeded")
            .withMetrics(index, revision));
    return this;
  }

  Views clusterId(int i, long clusterId) {
    MemberProbe p = probes.get(i);
    probes.put(
        i,
        new MemberProbe(
            i,
            p.endpoint(),
            true,
            null,
            clusterId,
            p.memberId(),
            p.leaderId(),
            p.raftTerm(),
            p.raftIndex(),
            p.learner(),
            p.version(),
            p.dbSize(),
            p.alarms()));
    return this;
  }

  /** Member {@code i}'s database: {@code size} bytes on disk, {@code inUse} of them in use. */
  Views dbSize(int i, long size, long inUse) {
    MemberProbe p = probes.get(i);
    probes.put(
        i,
        new MemberProbe(
            i,
            p.endpoint(),
            p.reachable(),
            p.error(),
            p.clusterId(),
            p.memberId(),
            p.leaderId(),
            p.raftTerm(),
            p.raftIndex(),
            p.learner(),
            p.version(),
            size,
            p.alarms(),
            p.revision(),
            p.metricsIndex(),
            p.refused(),
            inUse));
    return this;
  }

  /** Every member answers at key-value revision {@code revision}. */
  /** Member {@code i}'s own revision, as its Status reports it. */
  Views revisionAt(int i, long revision) {
    MemberProbe p = probes.get(i);
    probes.put(
        i,
        new MemberProbe(
            i,
            p.endpoint(),
            p.reachable(),
            p.error(),
            p.clusterId(),
            p.memberId(),
            p.leaderId(),
            p.raftTerm(),
            p.raftIndex(),
            p.learner(),
            p.version(),
            p.dbSize(),
            p.alarms(),
            revision,
            p.metricsIndex(),
            p.refused(),
            p.dbSizeInUse()));
    return this;
  }

  Views revision(long revision) {
    probes.replaceAll(
        (i, p) ->
            new MemberProbe(
                i,
                p.endpoint(),
                p.reachable(),
                p.error(),
                p.clusterId(),
                p.memberId(),
                p.leaderId(),
                p.raftTerm(),
                p.raftIndex(),
                p.learner(),
                p.version(),
                p.dbSize(),
                p.alarms(),
                revision,
                p.metricsIndex(),
                p.refused(),
                p.dbSizeInUse()));
    return this;
  }

  /** The cluster-state ConfigMap carries this operator annotation (a maintenance record). */
  Views stateAnnotation(String key, String value) {
    ClusterState s = clusterState.orElseThrow();
    java.util.Map<String, String> annotations = new java.util.HashMap<>(s.annotations());
    annotations.put(key, value);
    clusterState = Optional.of(new ClusterState(s.kind(), s.members(), s.token(), annotations));
    return this;
  }

  /** Every member's claim requests {@code bytes}, from StorageClass {@code storageClass}. */
  Views claimsOf(long bytes, String storageClass) {
    claims.replaceAll(
        (i, c) ->
            new ClaimView(
                c.name(),
                c.ordinal(),
                c.terminating(),
                c.memberId(),
                c.clusterId(),
                c.ownedByCluster(),
                bytes,
                bytes,
                storageClass));
    return this;
  }

  /** The members' StorageClass, read as allowing expansion or not. */
  Views storageClass(String name, boolean allowsExpansion) {
    storageClass =
        Optional.of(
            new io.etcdoperator.operator.observe.StorageClassView(
                name, Optional.of(allowsExpansion), ""));
    return this;
  }

  /**
   * Member {@code i}'s pod is on {@code node}, which is lost ({@code state}) since {@code away}
   * before now; its volume is pinned to {@code volumeNode} (null: it can follow the pod).
   */
  Views onLostNode(
      int i,
      String node,
      io.etcdoperator.operator.observe.Placement.NodeState state,
      Duration away,
      String volumeNode) {
    placements.put(
        i,
        new io.etcdoperator.operator.observe.Placement(
            Optional.ofNullable(node),
            node == null ? io.etcdoperator.operator.observe.Placement.NodeState.UNKNOWN : state,
            Optional.of(NOW.minus(away)),
            Optional.ofNullable(volumeNode),
            volumeNode == null
                ? io.etcdoperator.operator.observe.Placement.NodeState.UNKNOWN
                : state,
            false));
    return this;
  }

  /** The StatefulSet's claim template requests {@code bytes}. */
  Views statefulSetClaim(long bytes) {
    StatefulSetView v = sts.orElseThrow();
    sts =
        Optional.of(
            new StatefulSetView(
                v.replicas(), v.podTemplateHash(), v.persistentStorage(), bytes, false));
    return this;
  }

  Views alarm(int i, String alarm) {
    MemberProbe p = probes.get(i);
    probes.put(
        i,
        new MemberProbe(
            i,
            p.endpoint(),
            true,
            null,
            p.clusterId(),
            p.memberId(),
            p.leaderId(),
            p.raftTerm(),
            p.raftIndex(),
            p.learner(),
            p.version(),
            p.dbSize(),
            List.of(alarm)));
    return this;
  }

  /** Probes of pods that run something other than etcd, or etcd that has not started. */
  Views answeringWithoutQuorum(int i) {
    probes.put(
        i,
        new MemberProbe(
            i,
            Names.clientUrl(NS, NAME, i),
            true,
            null,
            CLUSTER_ID,
            id(i),
            0,
            1,
            3,
            false,
            VERSION,
            20480,
            List.of()));
    return this;
  }

  /** Forget the member list (no member answered it). */
  Views memberListUnknown() {
    memberListKnown = false;
    return this;
  }

  /** The cluster version a member reports ({@code /version}'s etcdcluster, e.g. 3.4.0). */
  Views clusterVersion(String version) {
    clusterVersion = version;
    return this;
  }

  /** Every member that answers reports this server version. */
  Views version(String version) {
    probes.keySet().forEach(i -> version(i, version));
    return this;
  }

  /** Member {@code ordinal}, if it answers, reports this server version. */
  Views version(int ordinal, String version) {
    probes.computeIfPresent(
        ordinal,
        (i, p) ->
            new MemberProbe(
                p.ordinal(),
                p.endpoint(),
                p.reachable(),
                p.error(),
                p.clusterId(),
                p.memberId(),
                p.leaderId(),
                p.raftTerm(),
                p.raftIndex(),
                p.learner(),
                p.reachable() ? version : p.version(),
                p.dbSize(),
                p.alarms(),
                p.revision(),
                p.metricsIndex()));
    return this;
  }

  /**
   * The rebuild pod runs on the claim of {@code survivor}; {@code leadsAlone}: its etcd leads a
   * cluster of its own (the rebuild took).
   */
  Views rebuildPod(int survivor, boolean leadsAlone) {
    MemberProbe p = answering(survivor, false, leadsAlone ? id(survivor) : 0, 1000);
    rebuildPod =
        Optional.of(
            new io.etcdoperator.operator.observe.RebuildView(
                Names.rebuildPod(NAME), survivor, "Running", false, Optional.of(p)));
    return this;
  }

  /** Members and pods run with TLS: https peer URLs in the member list, pods serving https. */
  /** Member {@code i}'s peer URL, as etcd's member list records it. */
  Views peerUrl(int i, String url) {
    members.replaceAll(
        e ->
            e.id() == id(i)
                ? new MemberList.Entry(e.id(), e.name(), List.of(url), e.clientUrls(), e.learner())
                : e);
    return this;
  }

  /** Pod {@code i}'s etcd serves clients on {@code scheme} (the others as they are). */
  Views clientScheme(int i, String scheme) {
    PodView p = pods.get(i);
    pods.put(i, serving(p, scheme, p.peerListen(), p.peerCertificate()));
    return this;
  }

  /** The cluster-state ConfigMap carries {@code key: value} besides its other annotations. */
  Views clusterStateAnnotation(String key, String value) {
    ClusterState s = clusterState.orElseThrow();
    Map<String, String> annotations = new LinkedHashMap<>(s.annotations());
    annotations.put(key, value);
    clusterState = Optional.of(new ClusterState(s.kind(), s.members(), s.token(), annotations));
    return this;
  }

  /** Pod {@code i}'s etcd serves peers on {@code listen} (its --listen-peer-urls). */
  Views peerListen(int i, String listen) {
    PodView p = pods.get(i);
    pods.put(i, serving(p, p.clientScheme(), listen, p.peerCertificate()));
    return this;
  }

  /**
   * {@code p}, serving clients on {@code clientScheme} and peers on {@code listen} with {@code
   * cert}.
   */
  private static PodView serving(
      PodView p, String clientScheme, String listen, PodView.PeerCertificate cert) {
    return new PodView(
        p.name(),
        p.ordinal(),
        p.phase(),
        p.ready(),
        p.running(),
        p.restartCount(),
        p.terminating(),
        p.podTemplateHash(),
        p.createdAt(),
        p.lastTermination(),
        clientScheme,
        listen,
        cert);
  }

  /** Every pod's etcd presents {@code cert} to its peers. */
  Views peerCertificate(PodView.PeerCertificate cert) {
    pods.replaceAll((i, p) -> serving(p, p.clientScheme(), p.peerListen(), cert));
    return this;
  }

  private final TreeMap<Integer, io.etcdoperator.operator.observe.MemberHash> hashes =
      new TreeMap<>();

  /** Member {@code i} hashed its data at {@code revision} (nothing compacted) to {@code hash}. */
  /** Member {@code i}'s hash of its data at {@code revision}, where it is itself. */
  Views hash(int i, long revision, long hash) {
    return hash(i, id(i), revision, hash, revision);
  }

  /** A hash answered by member {@code memberId} at pod {@code i}, itself at {@code own}. */
  Views hash(int i, long memberId, long revision, long hash, long own) {
    hashes.put(i, new MemberHash(i, memberId, revision, 0, hash, own));
    return this;
  }

  Views https() {
    https = true;
    return this;
  }

  private boolean https;

  ClusterView build() {
    List<MemberList.Entry> entries = members;
    TreeMap<Integer, PodView> podViews = pods;
    if (https) {
      java.util.function.UnaryOperator<List<String>> secure =
          urls -> urls.stream().map(u -> u.replaceFirst("^http://", "https://")).toList();
      entries =
          members.stream()
              .map(
                  e ->
                      new MemberList.Entry(
                          e.id(),
                          e.name(),
                          secure.apply(e.peerUrls()),
                          secure.apply(e.clientUrls()),
                          e.learner()))
              .toList();
      podViews = new TreeMap<>();
      for (var e : pods.entrySet()) {
        PodView p = e.getValue();
        podViews.put(e.getKey(), serving(p, "https", p.peerListen(), p.peerCertificate()));
      }
    }
    Optional<MemberList> list =
        memberListKnown ? Optional.of(new MemberList(entries, 0)) : Optional.empty();
    ClusterView view =
        new ClusterView(NOW, sts, podViews, claims, clusterState, probes, list, rebuildPod)
            .withTls(tls, authEnabled)
            .withStorageClass(storageClass)
            .withPlacements(placements)
            .withHashes(hashes);
    return clusterVersion == null ? view : view.withClusterVersion(clusterVersion);
  }

  /** What the TLS Secrets were found to hold. */
  Views tls(io.etcdoperator.operator.tls.TlsReport report) {
    tls = report;
    return this;
  }

  /** A member says whether etcd's authentication is on. */
  Views authEnabled(boolean enabled) {
    authEnabled = Optional.of(enabled);
    return this;
  }

  /**
   * The spec names no peer Secret, and the members formed on etcd's own peer certificates: the
   * target as the reconciler composes it then ({@link
   * io.etcdoperator.operator.model.TlsMove#AUTO_TLS}).
   */
  static Target autoTls(int replicas) {
    return Target.valid(
        NS,
        NAME,
        7,
        new Target.Desired(
            replicas,
            HASH,
            true,
            "token",
            "quay.io/coreos/etcd:v3.5.30",
            Target.ClaimPolicy.RETAIN,
            Optional.empty(),
            io.etcdoperator.operator.model.Security.of(
                null, io.etcdoperator.operator.model.TlsMove.AUTO_TLS, Optional.empty())));
  }

  /** The spec asks for TLS everywhere, and for etcd's authentication when {@code auth}. */
  static Target secure(int replicas, boolean auth) {
    return Target.valid(
        NS,
        NAME,
        7,
        new Target.Desired(
            replicas,
            HASH,
            true,
            "token",
            "quay.io/coreos/etcd:v3.5.30",
            Target.ClaimPolicy.RETAIN,
            Optional.empty(),
            new io.etcdoperator.operator.model.Security(
                Optional.of("peer-tls"),
                Optional.of("peer-ca"),
                Optional.of("server-tls"),
                Optional.empty(),
                Optional.of("client-ca"),
                Optional.of("client-tls"),
                auth)));
  }
}
