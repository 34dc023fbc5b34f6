package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.EtcdUnexpectedException;
import io.etcdoperator.operator.etcd.HashKv;
import io.etcdoperator.operator.model.EtcdSigns;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members' hashes of their data, asked only when data may have diverged: etcd raised CORRUPT,
 * or a member refused to start because its data differs from a peer's (etcd's check at start).
 *
 * <p>Each voter that answers hashes its store (etcd's HashKV; a learner refuses it) at one
 * revision. Under CORRUPT no write is applied, so the members that caught up are all at the same
 * revision: the one most voters report (the lowest of a tie) is asked, a member behind it cannot
 * hash there (and is not compared), and a member ahead of it says so by its own revision. Without
 * the alarm writes go on, so the lowest revision any voter reports is asked, which every voter has.
 * Which member disagrees is for the planner to tell; a member that cannot hash in time has no hash.
 */
public final class MemberHashes {
  private static final Logger LOG = LoggerFactory.getLogger(MemberHashes.class);

  /** How long a member may take to hash its whole store. */
  static final Duration DEADLINE = Duration.ofSeconds(10);

  /** etcd's alarm when members' data differ: writes refused until it is disarmed. */
  public static final String CORRUPT = "CORRUPT";

  private MemberHashes() {}

  /** By ordinal; empty when neither sign of diverged data shows. */
  public static SortedMap<Integer, MemberHash> whenDiverged(
      EtcdService etcd, String key, Map<Integer, MemberProbe> probes, Collection<PodView> pods) {
    SortedMap<Integer, MemberHash> hashes = new TreeMap<>();
    List<MemberProbe> voters =
        probes.values().stream()
            .filter(p -> p.reachable() && !p.learner() && p.revision() > 0)
            .toList();
    boolean corrupt = voters.stream().anyMatch(p -> p.alarmTypes().contains(CORRUPT));
    // A pod keeps its last termination after it runs again: only one that is still down counts
    // (HashKV scans the whole store; it is not asked on every look at a healthy cluster).
    boolean refusedAtStart =
        pods.stream()
            .filter(p -> !probes.containsKey(p.ordinal()) || !probes.get(p.ordinal()).reachable())
            .anyMatch(
                p ->
                    EtcdSigns.lostData(p.lastTermination())
                        .map(EtcdSigns::corruptAtStart)
                        .orElse(false));
    if (voters.isEmpty() || !(corrupt || refusedAtStart)) {
      return hashes;
    }
    long revision = corrupt ? mostReported(voters) : lowest(voters);
    for (MemberProbe p : voters) {
      try {
        HashKv h = etcd.hashKv(key, p.endpoint(), revision, DEADLINE);
        hashes.put(
            p.ordinal(),
            new MemberHash(
                p.ordinal(),
                h.memberId(),
                h.revision(),
                h.compactRevision(),
                h.hash(),
                h.memberRevision()));
      } catch (EtcdException | EtcdUnexpectedException e) {
        // Behind the revision ("a future revision"), past it ("compacted"), or too slow: no hash,
        // which the planner does not compare (it waits, or tells the member apart by its log).
        LOG.info("member {} of {} could not hash its data: {}", p.ordinal(), key, e.getMessage());
      }
    }
    LOG.info(
        "{} in {}: hashes at revision {}: {}",
        corrupt ? "CORRUPT raised" : "a member refused to start on diverged data",
        key,
        revision,
        hashes.values());
    return hashes;
  }

  private static long lowest(List<MemberProbe> voters) {
    return voters.stream().mapToLong(MemberProbe::revision).min().orElse(0);
  }

  /** The revision most voters report; the lowest of those most reported. */
  static long mostReported(List<MemberProbe> voters) {
    Map<Long, Long> counts =
        voters.stream()
            .collect(
                Collectors.groupingBy(MemberProbe::revision, TreeMap::new, Collectors.counting()));
    return counts.entrySet().stream()
        .max(
            Comparator.comparing(Map.Entry<Long, Long>::getValue)
                .thenComparing(Map.Entry::getKey, Comparator.reverseOrder()))
        .map(Map.Entry::getKey)
        .orElse(0L);
  }
}
