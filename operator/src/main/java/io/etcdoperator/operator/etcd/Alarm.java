package io.etcdoperator.operator.etcd;

/**
 * An alarm raised in the cluster.
 *
 * @param memberId the member that raised it
 * @param type etcd's name for it: {@code NOSPACE} or {@code CORRUPT}
 */
public record Alarm(long memberId, String type) {}
