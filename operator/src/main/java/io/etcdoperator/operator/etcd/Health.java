package io.etcdoperator.operator.etcd;

import java.time.Duration;
import java.util.Optional;

/**
 * Whether one member can serve a linearizable read and reports no alarm.
 *
 * @param endpoint the member's client URL
 * @param healthy the verdict
 * @param problem why not, when not healthy
 * @param took how long the check took
 */
public record Health(
    String endpoint, boolean healthy, Optional<ProbeFailure> problem, Duration took) {}
