package io.etcdoperator.operator.etcd;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of {@link JetcdEtcdService}.
 *
 * @param deadline the deadline of every call, and the time {@link EtcdService#probeAll} takes at
 *     most
 * @param ioThreads event-loop threads shared by every connection of the service
 * @param idleChannelTimeout a connection to an endpoint that no call used for this long is closed
 *     (endpoints change when pods move; their connections must not pile up)
 */
public record EtcdServiceConfig(Duration deadline, int ioThreads, Duration idleChannelTimeout) {
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(1);

  public EtcdServiceConfig {
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(idleChannelTimeout, "idleChannelTimeout");
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("deadline must be positive: " + deadline);
    }
    if (ioThreads < 1) {
      throw new IllegalArgumentException("ioThreads must be at least 1: " + ioThreads);
    }
  }

  public static EtcdServiceConfig defaults() {
    // One event loop serves a thousand members' connections: each carries a Status call a second
    return new EtcdServiceConfig(DEFAULT_DEADLINE, 1, Duration.ofMinutes(10));
  }

  public EtcdServiceConfig withDeadline(Duration newDeadline) {
    return new EtcdServiceConfig(newDeadline, ioThreads, idleChannelTimeout);
  }
}
