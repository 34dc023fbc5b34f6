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
 * Backups of a cluster on a cron schedule (aenix/cozystack v1alpha1): each firing creates an
 * EtcdBackup, none while the previous one still runs; history limits and retention delete old
 * backups with their data.
 */
@Group(EtcdCluster.GROUP)
@Version(EtcdCluster.VERSION)
@Kind(EtcdBackupSchedule.KIND)
@Plural("etcdbackupschedules")
@Singular("etcdbackupschedule")
@AdditionalPrinterColumn(
    name = "Cluster",
    jsonPath = ".spec.clusterRef.name",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Schedule",
    jsonPath = ".spec.schedule",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Last Backup",
    jsonPath = ".status.lastSuccessfulBackupTime",
    type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(
    name = "Active",
    jsonPath = ".status.active",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Kept",
    jsonPath = ".status.kept",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Next",
    jsonPath = ".status.nextScheduleTime",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class EtcdBackupSchedule
    extends CustomResource<EtcdBackupScheduleSpec, EtcdBackupScheduleStatus> implements Namespaced {
  public static final String KIND = "EtcdBackupSchedule";

  @Override
  protected EtcdBackupScheduleSpec initSpec() {
    return new EtcdBackupScheduleSpec();
  }
}
