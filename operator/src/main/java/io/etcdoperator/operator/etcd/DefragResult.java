package io.etcdoperator.operator.etcd;

import java.time.Duration;

/**
 * What one defragmentation did, measured around the call: the member's database size before and
 * after (its bbolt file), the size in use after, and how long etcd took.
 *
 * @param endpoint the client URL of the member defragmented
 * @param sizeBefore the database size before, in bytes
 * @param sizeAfter the database size after, in bytes
 * @param inUseAfter the size in use after, in bytes (etcd 3.4+; 0 when not reported)
 * @param took how long the Defragment call took
 */
public record DefragResult(
    String endpoint, long sizeBefore, long sizeAfter, long inUseAfter, Duration took) {
  /** Bytes given back to the file system (0 when the file grew meanwhile). */
  public long freed() {
    return Math.max(0, sizeBefore - sizeAfter);
  }
}
