package io.etcdoperator.operator.etcd;

import java.time.Duration;

/**
 * A snapshot streamed from one member and verified against the sha256 etcd appended.
 *
 * @param sizeBytes bytes written: the database and the 32-byte hash
 * @param databaseSha256 the database's sha256 (hex) as etcd computed it, and the data matched
 * @param fileSha256 the sha256 (hex) of every byte written, as {@code sha256sum} prints it
 * @param took how long the stream took
 */
public record SnapshotResult(
    long sizeBytes, String databaseSha256, String fileSha256, Duration took) {}
