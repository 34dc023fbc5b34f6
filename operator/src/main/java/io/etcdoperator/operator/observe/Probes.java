package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.etcd.ClusterProbe;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.ProbeFailure;
import io.etcdoperator.operator.model.Names;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd's answers as the planner's records: a probe of the members at their client URLs becomes one
 * {@link MemberProbe} per ordinal and the {@link MemberList} the probe chose, with failures said in
 * a few stable words.
 */
public final class Probes {
  private static final Logger LOG = LoggerFactory.getLogger(Probes.class);

  private Probes() {}

  /**
   * What a probe says, as the planner's records.
   *
   * @param probes one per probed ordinal
   * @param memberList the member list the probe chose (the leader's when it answered)
   */
  public record Probed(SortedMap<Integer, MemberProbe> probes, Optional<MemberList> memberList) {
    public Probed {
      probes = Collections.unmodifiableSortedMap(new TreeMap<>(probes));
    }
  }

  /**
   * Maps a probe of the members at {@code clientUrls} (ordinal to the client URL probed) to the
   * planner's records, exactly as {@link ClusterObserver#observe} does: for tests and tools that
   * probe members at addresses of their own (real etcd processes on loopback) and build the {@link
   * ClusterView} around them. Probes of URLs not in {@code clientUrls} are ignored; a member list
   * returned by such a URL is reported as seen from ordinal -1.
   */
  public static Probed fromProbe(SortedMap<Integer, String> clientUrls, ClusterProbe probe) {
    TreeMap<Integer, MemberProbe> probes = new TreeMap<>();
    clientUrls.forEach(
        (ordinal, url) ->
            probe.find(url).ifPresent(p -> probes.put(ordinal, toView(ordinal, p.status()))));
    Optional<MemberList> memberList =
        probe
            .memberList()
            .map(
                list ->
                    new MemberList(
                        list.members().stream()
                            .map(
                                m ->
                                    new MemberList.Entry(
                                        m.id(),
                                        m.name(),
                                        m.peerUrls(),
                                        m.clientUrls(),
                                        m.learner()))
                            .toList(),
                        ordinalOf(clientUrls, list.endpoint())));
    return new Probed(probes, memberList);
  }

  /**
   * The client URLs of {@code cluster} at which another member answered than the one the URL stands
   * for, by the member list: it names the ordinal's member with another ID, or names the member
   * that answered for another ordinal (or another cluster). A member's name moved to a new address
   * while its old address still answers (it went to a pod of another cluster) would keep a
   * connected channel there; these URLs' names are to be looked up again ({@code
   * EtcdService#resolveAgain}). Members that answered without an ID, and names the list does not
   * hold (a member added and not started yet), tell nothing.
   */
  static List<String> answeredForAnother(
      String cluster, SortedMap<Integer, MemberProbe> probes, Optional<MemberList> list) {
    if (list.isEmpty()) {
      return List.of();
    }
    Map<Integer, Long> idByOrdinal = new HashMap<>();
    Map<Long, Integer> ordinalById = new HashMap<>();
    for (MemberList.Entry e : list.get().members()) {
      if (e.started()) {
        int ordinal = Names.ordinalOf(cluster, e.name());
        ordinalById.put(e.id(), ordinal);
        if (ordinal >= 0) {
          idByOrdinal.put(ordinal, e.id());
        }
      }
    }
    return probes.values().stream()
        .filter(p -> p.reachable() && p.memberId() != 0)
        .filter(
            p ->
                idByOrdinal.getOrDefault(p.ordinal(), p.memberId()) != p.memberId()
                    || ordinalById.getOrDefault(p.memberId(), p.ordinal()) != p.ordinal())
        .map(MemberProbe::endpoint)
        .toList();
  }

  private static int ordinalOf(SortedMap<Integer, String> clientUrls, String endpoint) {
    return clientUrls.entrySet().stream()
        .filter(e -> e.getValue().equals(endpoint))
        .mapToInt(e -> e.getKey())
        .findFirst()
        .orElse(-1);
  }

  static MemberProbe toView(int ordinal, EtcdStatus s) {
    if (!s.reachable()) {
      // The status says only "not answering"; the log keeps what gRPC said.
      LOG.debug("probe of {} failed: {}", s.endpoint(), s.failure().orElseThrow());
      ProbeFailure f = s.failure().orElseThrow();
      return MemberProbe.unreachable(ordinal, s.endpoint(), describe(f), f.refused());
    }
    return new MemberProbe(
        ordinal,
        s.endpoint(),
        true,
        null,
        s.clusterId(),
        s.memberId(),
        s.leaderId(),
        s.raftTerm(),
        s.raftIndex(),
        s.learner(),
        s.version(),
        s.dbSize(),
        s.errors(),
        s.revision(),
        0,
        false,
        s.dbSizeInUse());
  }

  /**
   * A short, stable description: the status must not change from one reconcile to the next only
   * because an error text carried an address or a duration, or because a member that does not
   * answer was refused once and timed out the next time (gRPC's reconnect back-off makes a dead
   * member do both).
   */
  static String describe(ProbeFailure f) {
    return switch (f.failure()) {
      case UNREACHABLE, DEADLINE_EXCEEDED -> "not answering";
      default -> f.failure().name().toLowerCase().replace('_', ' ');
    };
  }
}
