package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bit rot on one member's disk, found by etcd and repaired by the operator with no hand step.
 *
 * <p>A 3-member cluster runs etcd's periodic corruption check every 3 s ({@code
 * experimental-corrupt-check-time}, an option the spec passes through). A value is written and
 * acknowledged; then, in a follower's claim, the last byte of that value is flipped in place while
 * the member runs ({@code Faults.rot}: a disk that returns other bytes than were written, which
 * etcd's database has no checksum to catch). etcd's leader compares hashes, finds the difference
 * and raises CORRUPT, which refuses every request on every member. The operator must tell which
 * member differs (HashKV of each member at one revision; the hash a quorum shares is the cluster's
 * data), remove that member, disarm the alarm, and bring the ordinal back as a new member on empty
 * data. At the end the value reads as it was written, every key written before is there, and every
 * member reports the same hash. First a follower's disk rots, then the leader's (leadership moves
 * off it first).
 */
class CorruptionE2EIT {
  @TempDir Path dir;

  static final String CLUSTER =
      """
      apiVersion: etcd.aenix.io/v1alpha1
      kind: EtcdCluster
      metadata:
        name: rot
        namespace: default
      spec:
        replicas: 3
        options:
          experimental-corrupt-check-time: 3s
      """;

  static final Duration STEP = Duration.ofMinutes(2);

  @Test
  void theMemberWhoseDiskRottedIsReplacedAndTheQuorumsDataKept() throws Exception {
    try (E2E e2e = E2E.start(dir);
        Cluster rot = new Cluster(e2e, "rot");
        Client etcd = Client.builder().endpoints(rot.clientUrl()).build()) {
      e2e.apply(CLUSTER);
      rot.awaitConverged(1, 3, STEP);
      e2e.recordStatusChanges("rot");
      for (int i = 0; i < 20; i++) {
        etcd.getKVClient().put(bytes("/before/" + i), bytes("v" + i)).get(10, TimeUnit.SECONDS);
      }
      String marker = "bit-rot-" + UUID.randomUUID();
      etcd.getKVClient().put(bytes("/marked"), bytes(marker)).get(10, TimeUnit.SECONDS);

      // 1. A follower's disk rots.
      String leader = rot.leader().orElseThrow();
      String follower = leader.equals("rot-1") ? "rot-2" : "rot-1";
      repaired(e2e, rot, etcd, follower, marker);

      // 2. Then the leader's: leadership moves off it before it is removed.
      String marker2 = "bit-rot-" + UUID.randomUUID();
      etcd.getKVClient().put(bytes("/marked"), bytes(marker2)).get(10, TimeUnit.SECONDS);
      repaired(e2e, rot, etcd, rot.leader().orElseThrow(), marker2);
    }
  }

  /**
   * Rots {@code victim}'s copy of {@code marker} and waits for the repair: the victim, and only it,
   * replaced by a new member; CORRUPT disarmed and staying so through two more checks; the value
   * read as written; every key there; every member's hash equal.
   */
  private static void repaired(E2E e2e, Cluster rot, Client etcd, String victim, String marker)
      throws Exception {
    Map<String, String> before = rot.memberIds();
    long removalsBefore = removals(rot);
    boolean wasLeader = victim.equals(rot.leader().orElse(""));
    // The value is in the member's log at once and in its database after the next commit (at most
    // 100 ms later): flip until both were hit.
    byte[] bytes = marker.getBytes(StandardCharsets.US_ASCII);
    int[] flipped = {0};
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> (flipped[0] += e2e.sandbox().faults().rot(E2E.NS, victim, bytes)) >= 2);
    long rotted = System.nanoTime();

    await()
        .atMost(STEP)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              String id = rot.memberIds().get(victim);
              return id != null && !id.equals(before.get(victim));
            });
    long replaced = System.nanoTime();
    rot.awaitConverged(1, 3, STEP);
    long ready = System.nanoTime();
    System.out.printf(
        "bit rot of %s (%s, %d bytes): a new member in its place %d ms after the flip,"
            + " Ready %d ms%n",
        victim,
        wasLeader ? "the leader" : "a follower",
        flipped[0],
        (replaced - rotted) / 1_000_000,
        (ready - rotted) / 1_000_000);

    Map<String, String> after = rot.memberIds();
    before.forEach(
        (name, id) -> {
          if (!name.equals(victim)) {
            assertThat(after.get(name)).as(name + " kept its member ID").isEqualTo(id);
          }
        });
    assertThat(removals(rot)).as("members removed").isEqualTo(removalsBefore + 1);
    assertThat(rot.events())
        .anyMatch(e -> e.startsWith("Normal MemberRemoved: removed " + victim + ": its data"));
    // etcd checks every 3 s: the alarm stays disarmed through two more checks.
    await()
        .during(Duration.ofSeconds(7))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                etcd.getMaintenanceClient()
                    .listAlarms()
                    .get(10, TimeUnit.SECONDS)
                    .getAlarms()
                    .isEmpty());
    GetResponse marked = etcd.getKVClient().get(bytes("/marked")).get(10, TimeUnit.SECONDS);
    assertThat(marked.getKvs().get(0).getValue().toString(StandardCharsets.US_ASCII))
        .as("the value as it was written, not as the rotten disk held it")
        .isEqualTo(marker);
    for (int i = 0; i < 20; i++) {
      GetResponse r = etcd.getKVClient().get(bytes("/before/" + i)).get(10, TimeUnit.SECONDS);
      assertThat(r.getKvs()).as("/before/" + i).hasSize(1);
    }
    long revision = marked.getHeader().getRevision();
    Map<String, Long> hashes = rot.hashes(revision);
    System.out.println("hashes at revision " + revision + ": " + hashes);
    assertThat(hashes).hasSize(3);
    assertThat(hashes.values().stream().distinct()).hasSize(1);
  }

  private static long removals(Cluster rot) {
    return rot.events().stream().filter(e -> e.startsWith("Normal MemberRemoved")).count();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
