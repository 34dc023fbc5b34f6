package io.etcdoperator.sandbox.fake;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Member and cluster IDs computed as etcd computes them when it bootstraps a new cluster (etcd's
 * {@code membership.computeMemberId} and {@code RaftCluster.genID}), so that the IDs a fake member
 * reports are the ones a real etcd would have with the same flags.
 */
final class EtcdIds {
  private EtcdIds() {}

  /**
   * The first 8 bytes of SHA-1 over the member's sorted peer URLs, concatenated, then the cluster
   * token.
   */
  static long memberId(List<String> peerUrls, String token) {
    List<String> sorted = new ArrayList<>(peerUrls);
    Collections.sort(sorted);
    return nonZero(sha1Prefix((String.join("", sorted) + token).getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The first 8 bytes of SHA-1 over the member IDs, sorted as unsigned, each 8 bytes big-endian.
   */
  static long clusterId(long[] memberIds) {
    List<Long> sorted = new ArrayList<>();
    for (long id : memberIds) {
      sorted.add(id);
    }
    sorted.sort(Long::compareUnsigned);
    ByteBuffer b = ByteBuffer.allocate(8 * sorted.size());
    sorted.forEach(b::putLong);
    return nonZero(sha1Prefix(b.array()));
  }

  private static long sha1Prefix(byte[] data) {
    try {
      return ByteBuffer.wrap(MessageDigest.getInstance("SHA-1").digest(data)).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-1", e);
    }
  }

  // 0 means "none" on etcd's wire (no leader, no member); a hash of 0 is unlikely but not a member.
  private static long nonZero(long id) {
    return id == 0 ? 1 : id;
  }
}
