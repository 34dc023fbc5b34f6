/**
 * Test utilities shared with other modules through this module's test-jar ({@code
 * etcd-operator-core}, type {@code test-jar}): {@link io.etcdoperator.testing.LocalEtcdCluster} and
 * {@link io.etcdoperator.testing.LocalEtcdMember} run real etcd processes on random loopback
 * addresses in 127.10.0.0/16; {@link io.etcdoperator.testing.LoopbackAddresses} hands out such
 * addresses to anything else a test needs to listen on.
 */
package io.etcdoperator.testing;
