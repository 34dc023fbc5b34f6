package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.HashKv;
import java.time.Duration;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members' hashes of their data, asked only while etcd raised CORRUPT: each member that answers
 * hashes its store (etcd's HashKV) at the lowest revision those that answer are all at (no write is
 * applied while the alarm is raised, so they are all there). Which member disagrees is for the
 * planner to tell; a member that cannot hash in time has no hash.
 */
public final class MemberHashes {
  private static final Logger LOG = LoggerFactory.getLogger(MemberHashes.class);

  /** How long a member may take to hash its whole store. */
  static final Duration DEADLINE = Duration.ofSeconds(10);

  /** etcd's alarm when members' data differ: every request refused until it is disarmed. */
  public static final String CORRUPT = "CORRUPT";

  private MemberHashes() {}

  /** By ordinal; empty when no member that answers reports CORRUPT. */
  public static SortedMap<Integer, MemberHash> whenCorrupt(
      EtcdService etcd, String key, Map<Integer, MemberProbe> probes) {
    SortedMap<Integer, MemberHash> hashes = new TreeMap<>();
    boolean corrupt =
        probes.values().stream().anyMatch(p -> p.reachable() && p.alarmTypes().contains(CORRUPT));
    long revision =
        probes.values().stream()
            .filter(MemberProbe::reachable)
            .mapToLong(MemberProbe::revision)
            .filter(r -> r > 0)
            .min()
            .orElse(0);
    if (!corrupt || revision == 0) {
      return hashes;
    }
    probes.forEach(
        (ordinal, p) -> {
          if (!p.reachable()) {
            return;
          }
          try {
            HashKv h = etcd.hashKv(key, p.endpoint(), revision, DEADLINE);
            hashes.put(
                ordinal, new MemberHash(ordinal, h.revision(), h.compactRevision(), h.hash()));
          } catch (EtcdException e) {
            LOG.info("member {} of {} could not hash its data: {}", ordinal, key, e.getMessage());
          }
        });
    LOG.info("CORRUPT raised in {}: hashes at revision {}: {}", key, revision, hashes.values());
    return hashes;
  }
}
