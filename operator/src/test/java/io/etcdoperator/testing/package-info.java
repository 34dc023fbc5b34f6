/**
 * Test utilities shared with other modules through this module's test-jar ({@code
 * etcd-operator-core}, type {@code test-jar}): {@link io.etcdoperator.testing.LocalEtcdCluster} and
 * {@link io.etcdoperator.testing.LocalEtcdMember} run real etcd processes on random loopback
 * addresses in 127.10.0.0/16; {@link io.etcdoperator.testing.LoopbackAddresses} hands out such
 * addresses to anything else a test needs to listen on. {@link
 * io.etcdoperator.testing.RecordingWriter} writes unique keys while a test injects faults and
 * reports, in a {@link io.etcdoperator.testing.WriterReport}, which acknowledged writes were lost
 * and how long writes stalled; {@link io.etcdoperator.testing.EtcdKv} is the small deadline-bounded
 * KV client it (and any test) reads and writes with.
 */
package io.etcdoperator.testing;
