package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.EtcdSigns;
import io.etcdoperator.operator.model.EtcdVersion;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.observe.MemberList;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Facts derived from one {@link ClusterView}, computed once so that every rule reads the same
 * answers: which cluster IDs were seen, whether a quorum holds, who leads, which members are
 * healthy, which pods run an old template.
 *
 * <p>Quorum: a voter of the member list is the leader, and a majority of the voters answer, belong
 * to the same cluster and follow that leader (an alarm does not break a quorum). A member is
 * healthy when there is a quorum, it is one of those that follow its leader, and it reports no
 * alarm.
 *
 * <p>Whether the cluster ever formed, and the cluster ID recorded when quorum was seen, are read
 * from what the world keeps of its past ({@link Past}).
 */
public final class Facts {
  /** A member that lags the leader by more raft entries than this has not caught up. */
  static final long CAUGHT_UP_LAG = 1000;

  private final String namespace;
  private final String cluster;
  private final ClusterView view;
  private final Set<Long> clusterIds;
  private final long clusterId;
  private final List<Member> members;
  private final long leaderId;
  private final boolean quorum;
  private final boolean existed;
  private final long recordedClusterId;

  /** A member of the member list, with the ordinal its peer URL names (-1: not one of ours). */
  public record Member(MemberList.Entry etcd, int ordinal, String name) {
    public long id() {
      return etcd.id();
    }

    public boolean learner() {
      return etcd.learner();
    }
  }

  private Facts(String namespace, String cluster, ClusterView view) {
    this.namespace = namespace;
    this.cluster = cluster;
    this.view = view;
    this.clusterIds =
        view.probes().values().stream()
            .filter(p -> p.reachable() && p.clusterId() != 0)
            .map(MemberProbe::clusterId)
            .collect(Collectors.toCollection(TreeSet::new));
    this.clusterId = clusterIds.size() == 1 ? clusterIds.iterator().next() : 0;
    this.members = members(namespace, cluster, view);
    this.leaderId = leader();
    this.quorum =
        leaderId != 0
            && Quorum.held(
                voters().size(), (int) voters().stream().filter(this::followsLeader).count());
    this.existed = Past.existed(view);
    this.recordedClusterId = Past.recordedClusterId(view);
  }

  /** The observation these facts were derived from. */
  public ClusterView view() {
    return view;
  }

  /** The cluster IDs the members that answered belong to. */
  Set<Long> clusterIds() {
    return clusterIds;
  }

  /** The one cluster ID the members that answered belong to; 0 when none or several. */
  public long clusterId() {
    return clusterId;
  }

  /** The member list (the leader's, else any member's), by ordinal. */
  public List<Member> members() {
    return members;
  }

  /** The leader a quorum follows; 0 when none. */
  public long leaderId() {
    return leaderId;
  }

  /** Whether a majority of the voters answer and follow one leader. */
  public boolean quorum() {
    return quorum;
  }

  /** Whether the cluster ever formed, by every sign the world keeps. */
  boolean existed() {
    return existed;
  }

  /** The cluster ID recorded when quorum was seen; 0 when none. */
  long recordedClusterId() {
    return recordedClusterId;
  }

  static Facts of(String namespace, String cluster, ClusterView view) {
    return new Facts(namespace, cluster, view);
  }

  private static List<Member> members(String namespace, String cluster, ClusterView view) {
    List<Member> list = new ArrayList<>();
    view.memberList()
        .ifPresent(
            ml -> {
              for (MemberList.Entry m : ml.members()) {
                int ordinal =
                    m.started()
                        ? Names.ordinalOf(cluster, m.name())
                        : m.peerUrls().stream()
                            .mapToInt(u -> Names.ordinalOfPeerUrl(namespace, cluster, u))
                            .max()
                            .orElse(-1);
                String name =
                    m.started() ? m.name() : ordinal >= 0 ? Names.member(cluster, ordinal) : "";
                list.add(new Member(m, ordinal, name));
              }
            });
    list.sort((a, b) -> Integer.compare(a.ordinal(), b.ordinal()));
    return Collections.unmodifiableList(list);
  }

  /** The leader most answering voters follow, if it is a voter of the list. */
  private long leader() {
    Map<Long, Integer> votes = new HashMap<>();
    for (Member m : voters()) {
      probeOf(m)
          .filter(p -> p.seesLeader() && p.clusterId() == clusterId)
          .ifPresent(p -> votes.merge(p.leaderId(), 1, Integer::sum));
    }
    return votes.entrySet().stream()
        .filter(e -> member(e.getKey()).map(m -> !m.learner()).orElse(false))
        .max(Map.Entry.comparingByValue())
        .map(Map.Entry::getKey)
        .orElse(0L);
  }

  public List<Member> voters() {
    return members.stream().filter(m -> !m.learner()).toList();
  }

  List<Member> learners() {
    return members.stream().filter(Member::learner).toList();
  }

  Optional<Member> member(long id) {
    return members.stream().filter(m -> m.id() == id).findFirst();
  }

  Optional<Member> memberAt(int ordinal) {
    return members.stream().filter(m -> m.ordinal() == ordinal).findFirst();
  }

  public Optional<Member> leaderMember() {
    return member(leaderId);
  }

  /** The etcd versions the members that answer run. */
  List<EtcdVersion> answeringVersions() {
    return members.stream()
        .map(this::probeOf)
        .flatMap(Optional::stream)
        .filter(MemberProbe::reachable)
        .map(p -> EtcdVersion.parse(p.version()))
        .flatMap(Optional::stream)
        .toList();
  }

  /** The probe of a member, if the ordinal was probed and the answer came from that member. */
  public Optional<MemberProbe> probeOf(Member m) {
    return view.probe(m.ordinal())
        .filter(p -> !p.reachable() || p.memberId() == 0 || p.memberId() == m.id());
  }

  /** Answers, belongs to the cluster, has no alarm, and follows the leader a quorum follows. */
  boolean followsLeader(Member m) {
    return leaderId != 0
        && probeOf(m)
            .map(p -> p.reachable() && p.clusterId() == clusterId && p.leaderId() == leaderId)
            .orElse(false);
  }

  /**
   * Healthy: the cluster holds quorum and this member follows its leader. Without quorum no member
   * is healthy, however well it answers: none can serve a write (a survivor may still name the old
   * leader for an election timeout).
   */
  public boolean healthy(Member m) {
    return quorum
        && followsLeader(m)
        && probeOf(m).map(p -> p.alarmTypes().stream().allMatch(NO_SPACE::equals)).orElse(false);
  }

  /** etcd's alarm when a member's database reached its quota: writes refused, cluster-wide. */
  static final String NO_SPACE = "NOSPACE";

  /** etcd's alarm when members' data differ: every key-value request refused, cluster-wide. */
  static final String CORRUPT = "CORRUPT";

  /**
   * The cluster refuses writes for lack of space. A member under NOSPACE still serves reads,
   * deletes and raft, so it counts as healthy; the condition that says NoSpace reports the rest.
   */
  boolean noSpace() {
    return alarms().contains(NO_SPACE);
  }

  /** The newest revision a member answered at (0: none answered). */
  long revision() {
    return view.probes().values().stream()
        .filter(MemberProbe::reachable)
        .mapToLong(MemberProbe::revision)
        .max()
        .orElse(0);
  }

  /**
   * Member {@code ordinal} is out of the operator's sight: it did not answer, its host did not
   * refuse, its metrics told nothing, and yet its pod is Ready (its kubelet's {@code /health} probe
   * passes). Whether it is healthy is then unknown, not false.
   */
  public boolean unseen(int ordinal) {
    return view.probe(ordinal).map(MemberProbe::silent).orElse(false)
        && view.pod(ordinal).map(p -> p.ready() && p.running() && !p.terminating()).orElse(false);
  }

  /** The alarms members report (etcd's alarms are cluster-wide: NOSPACE, CORRUPT). */
  SortedSet<String> alarms() {
    SortedSet<String> alarms = new TreeSet<>();
    view.probes().values().stream()
        .filter(MemberProbe::reachable)
        .forEach(p -> alarms.addAll(p.alarmTypes()));
    return alarms;
  }

  /** The healthy voters of our ordinals: status.readyMembers. */
  public int readyMembers() {
    return (int) healthyVoters().stream().filter(m -> m.ordinal() >= 0).count();
  }

  public List<Member> healthyVoters() {
    return voters().stream().filter(this::healthy).toList();
  }

  /**
   * The first member's pod, by ordinal, that is not Ready or is terminating (the client Service
   * skips it).
   */
  Optional<PodView> unreadyMemberPod() {
    return members.stream()
        .map(m -> view.pod(m.ordinal()))
        .flatMap(Optional::stream)
        .filter(p -> !p.ready() || p.terminating())
        .findFirst();
  }

  /** Healthy and within {@link #CAUGHT_UP_LAG} entries of the leader's raft index. */
  boolean caughtUp(Member m) {
    if (!healthy(m)) {
      return false;
    }
    long leaderIndex = leaderIndex();
    return probeOf(m).map(p -> p.raftIndex() + CAUGHT_UP_LAG >= leaderIndex).orElse(false);
  }

  /** The raft index the leader reports (0: no leader, or it did not answer). */
  long leaderIndex() {
    return leaderMember().flatMap(this::probeOf).map(MemberProbe::raftIndex).orElse(0L);
  }

  /**
   * The line that shows an unhealthy member's pod runs without the member's data (it was wiped, or
   * the claim was replaced), if its last termination says so.
   */
  Optional<String> lostData(Member m) {
    if (healthy(m)) {
      return Optional.empty();
    }
    return view.pod(m.ordinal()).map(PodView::lastTermination).flatMap(EtcdSigns::lostData);
  }

  /**
   * Whether the pod of this ordinal shows it runs without the member's data, by ordinal: for when
   * no member list is known (no member answers).
   */
  boolean lostDataAt(int ordinal) {
    boolean answersWithLeader = view.probe(ordinal).map(MemberProbe::seesLeader).orElse(false);
    return !answersWithLeader
        && view.pod(ordinal).flatMap(p -> EtcdSigns.lostData(p.lastTermination())).isPresent();
  }

  /** Why a member is not healthy, for status and Events. */
  public String whyUnhealthy(Member m) {
    Optional<String> lost = lostData(m);
    if (lost.isPresent()) {
      return (EtcdSigns.corruptAtStart(lost.get())
              ? "its data differs from the other members' (etcd's check at its start): "
              : "runs without its data: ")
          + abbreviate(lost.get());
    }
    Optional<MemberProbe> probe = probeOf(m);
    if (probe.isEmpty()) {
      return view.pod(m.ordinal()).isPresent() ? "not probed" : "no pod";
    }
    MemberProbe p = probe.get();
    if (!p.reachable()) {
      return view.pod(m.ordinal()).isEmpty() ? "no pod" : p.error();
    }
    if (p.clusterId() != clusterId) {
      return "belongs to another cluster (" + Hex.id(p.clusterId()) + ")";
    }
    if (!p.seesLeader()) {
      return "sees no leader";
    }
    List<String> alarms = p.alarmTypes().stream().filter(a -> !NO_SPACE.equals(a)).toList();
    if (!alarms.isEmpty()) {
      return "alarms: " + String.join(", ", alarms);
    }
    if (!quorum) {
      return "answers, but the cluster has no quorum";
    }
    if (p.leaderId() != leaderId) {
      return "follows " + Hex.id(p.leaderId()) + ", not the leader a quorum follows";
    }
    return "healthy";
  }

  private static String abbreviate(String line) {
    return line.length() > 160 ? line.substring(0, 160) + "..." : line;
  }

  /** Pods that run a template other than the desired one, by ordinal. */
  SortedSet<Integer> stalePods(String desiredHash) {
    return view.pods().values().stream()
        .filter(p -> !p.terminating() && !desiredHash.equals(p.podTemplateHash()))
        .map(PodView::ordinal)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /**
   * The ordinals the cluster is known to have: from the member list when a member answered, else
   * from the last member list recorded with quorum in the cluster-state ConfigMap, else (the
   * ConfigMap lost) from the claims marked with a member and the pods running etcd.
   */
  SortedSet<Integer> knownOrdinals() {
    SortedSet<Integer> ordinals = new TreeSet<>();
    if (!members.isEmpty()) {
      members.stream().filter(m -> m.ordinal() >= 0).forEach(m -> ordinals.add(m.ordinal()));
      return ordinals;
    }
    Optional<ClusterState> recorded = view.clusterState().filter(ClusterState::existing);
    if (recorded.isPresent()) {
      recorded.get().memberNames().stream()
          .mapToInt(n -> Names.ordinalOf(cluster, n))
          .filter(i -> i >= 0)
          .forEach(ordinals::add);
      return ordinals;
    }
    view.claims().values().stream()
        .filter(c -> c.memberId() != 0 && !c.terminating())
        .forEach(c -> ordinals.add(c.ordinal()));
    view.pods().values().stream()
        .filter(p -> p.running() && !p.terminating())
        .forEach(p -> ordinals.add(p.ordinal()));
    return ordinals;
  }
}
