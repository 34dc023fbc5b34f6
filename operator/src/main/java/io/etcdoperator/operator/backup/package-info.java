/**
 * Backups and restores as the agent pods run them: a snapshot streamed from one etcd member to an
 * object store or a claim, its manifest, and the restore that fetches and verifies it. I/O at the
 * edge: what to back up, when and from which member is decided in {@code plan}.
 */
package io.etcdoperator.operator.backup;
