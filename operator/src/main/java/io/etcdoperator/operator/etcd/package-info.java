/**
 * The only code of the operator that speaks to etcd. {@link
 * io.etcdoperator.operator.etcd.EtcdService} is the operator's view of etcd (probes, member list,
 * alarms, health, membership changes), answered with plain records; {@link
 * io.etcdoperator.operator.etcd.JetcdEtcdService} implements it over etcd's gRPC API with a
 * deadline on every call. No jetcd or gRPC type appears in the public API.
 */
package io.etcdoperator.operator.etcd;
