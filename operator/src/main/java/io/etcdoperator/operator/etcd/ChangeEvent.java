package io.etcdoperator.operator.etcd;

/**
 * One change etcd reported in a watch: a put or a delete of one key at one revision (a revision can
 * carry several, written by one transaction).
 *
 * @param revision the revision the change was made at (its mod revision)
 * @param delete a delete (else a put)
 * @param key the key
 * @param value the value put (empty for a delete)
 * @param lease the lease the key was put with (0: none)
 */
public record ChangeEvent(long revision, boolean delete, byte[] key, byte[] value, long lease) {}
