package io.etcdoperator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** A durable etcd cluster: the operator keeps its members, data and status true to the spec. */
@Group(EtcdCluster.GROUP)
@Version(EtcdCluster.VERSION)
@Kind(EtcdCluster.KIND)
@Plural("etcdclusters")
@Singular("etcdcluster")
@ShortNames("etcd")
@AdditionalPrinterColumn(
    name = "Replicas",
    jsonPath = ".spec.replicas",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Ready",
    jsonPath = ".status.readyMembers",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Available",
    jsonPath = ".status.conditions[?(@.type==\"Available\")].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Reason",
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Leader",
    jsonPath = ".status.leader",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Version",
    jsonPath = ".status.clusterVersion",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "ClusterID",
    jsonPath = ".status.clusterID",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class EtcdCluster extends CustomResource<EtcdClusterSpec, EtcdClusterStatus>
    implements Namespaced {
  public static final String GROUP = "etcd.aenix.io";
  public static final String VERSION = "v1alpha1";
  public static final String KIND = "EtcdCluster";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  @Override
  protected EtcdClusterSpec initSpec() {
    return new EtcdClusterSpec();
  }
}
