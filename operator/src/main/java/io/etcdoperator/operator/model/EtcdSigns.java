package io.etcdoperator.operator.model;

import java.util.List;
import java.util.Optional;

/**
 * What etcd prints that the operator reads in a member's termination message (its pod runs the etcd
 * container with {@code FallbackToLogsOnError}, so the kubelet keeps the tail of the log of a
 * container that failed: at most 80 lines and 2048 bytes). The same texts on etcd 3.4 and 3.5,
 * checked by a test on each version against that limit.
 */
public final class EtcdSigns {
  /**
   * A member started without the data its identity needs: raft's panic when the leader's commit
   * index is beyond an empty log ({@code tocommit(N) is out of range [lastIndex(0)]}; on 3.5 the
   * JSON log line is long and falls outside the 2048 bytes, the Go {@code panic:} line that follows
   * it stays within them), and the refusal to bootstrap a member the cluster already has.
   */
  public static final List<String> DATA_LOSS =
      List.of(
          "is out of range [lastIndex(",
          "has already been bootstrapped",
          EtcdSigns.CORRUPT_AT_START);

  /**
   * etcd's initial corruption check ({@code --experimental-initial-corrupt-check}): the member's
   * data differs from its peers' at the same revision, and it refuses to start. Its data is of no
   * use: it is replaced as a member that lost its data is.
   */
  public static final String CORRUPT_AT_START = "found data inconsistency with peers";

  /** etcd's exit message when its name is not in the initial cluster it was started with. */
  public static final String NOT_IN_INITIAL_CLUSTER = "in the initial cluster configuration";

  private EtcdSigns() {}

  /** Whether a line of {@link #lostData} is etcd's initial corruption check failing. */
  public static boolean corruptAtStart(String line) {
    return line.contains(CORRUPT_AT_START);
  }

  /**
   * The first line of a termination message that shows the member lost its data (or that its data
   * differs from its peers': of no use either).
   */
  public static Optional<String> lostData(String terminationMessage) {
    if (terminationMessage == null) {
      return Optional.empty();
    }
    return terminationMessage
        .lines()
        .filter(line -> DATA_LOSS.stream().anyMatch(line::contains))
        .map(String::trim)
        .findFirst();
  }
}
