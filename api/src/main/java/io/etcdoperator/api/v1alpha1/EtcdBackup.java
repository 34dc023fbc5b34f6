package io.etcdoperator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One snapshot of an etcd cluster, written to an S3 bucket or a claim (aenix/cozystack v1alpha1).
 * Its status says Started, then Complete (with the snapshot's revision, cluster ID, etcd version,
 * size, sha256 and the time taken) or Failed (with the reason).
 */
@Group(EtcdCluster.GROUP)
@Version(EtcdCluster.VERSION)
@Kind(EtcdBackup.KIND)
@Plural("etcdbackups")
@Singular("etcdbackup")
@AdditionalPrinterColumn(
    name = "Cluster",
    jsonPath = ".spec.clusterRef.name",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Phase",
    jsonPath = ".status.phase",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Revision",
    jsonPath = ".status.snapshot.revision",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Size",
    jsonPath = ".status.snapshot.sizeBytes",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Duration",
    jsonPath = ".status.duration",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Reason",
    jsonPath = ".status.conditions[?(@.type==\"Failed\")].reason",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "URI",
    jsonPath = ".status.snapshot.uri",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class EtcdBackup extends CustomResource<EtcdBackupSpec, EtcdBackupStatus>
    implements Namespaced {
  public static final String KIND = "EtcdBackup";

  @Override
  protected EtcdBackupSpec initSpec() {
    return new EtcdBackupSpec();
  }
}
