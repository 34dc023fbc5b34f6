/**
 * The {@code EtcdCluster} custom resource, {@code etcd.aenix.io/v1alpha1}.
 *
 * <p>Field names and meanings follow the aenix-io/etcd-operator v1alpha1 API so that its manifests
 * apply unchanged. The CRD YAML is generated from these classes at build time ({@code
 * target/classes/META-INF/fabric8/etcdclusters.etcd.aenix.io-v1.yml}) and committed under {@code
 * deploy/crds/}.
 */
package io.etcdoperator.api.v1alpha1;
