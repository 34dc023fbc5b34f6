package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import java.util.Map;

/** What the user asks for. Every field is optional; {@code model} resolves the defaults. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "replicas",
  "options",
  "podTemplate",
  "serviceTemplate",
  "headlessServiceTemplate",
  "podDisruptionBudgetTemplate",
  "storage",
  "security",
  "bootstrap",
  "defragmentation",
  "replaceLostMemberAfter"
})
@ValidationRule(
    value =
        "(has(self.storage) && has(self.storage.emptyDir))"
            + " == (has(oldSelf.storage) && has(oldSelf.storage.emptyDir))",
    message =
        "spec.storage: the storage kind (emptyDir or volumeClaimTemplate) cannot change"
            + " after creation",
    reason = "FieldValueForbidden")
public class EtcdClusterSpec {
  public static final int DEFAULT_REPLICAS = 3;

  @SpecReplicas
  @Default("3")
  @Min(0)
  @Max(9)
  @JsonPropertyDescription(
      "Number of etcd members, at most 9 (3, 5 or 7 recommended). 0 hibernates the cluster and"
          + " keeps its data.")
  private Integer replicas;

  @JsonPropertyDescription(
      "Extra etcd flags: name without leading dashes -> value, e.g. {\"quota-backend-bytes\":"
          + " \"8589934592\"}. Flags the operator owns are rejected.")
  private Map<String, String> options;

  @JsonPropertyDescription(
      "Laid over the operator's pod: the container named etcd is merged field by field; other"
          + " containers, init containers and volumes are added.")
  private PodTemplate podTemplate;

  @JsonPropertyDescription("Metadata and spec laid over the client Service.")
  private EmbeddedService serviceTemplate;

  @JsonPropertyDescription("Metadata and spec laid over the headless Service.")
  private EmbeddedService headlessServiceTemplate;

  @JsonPropertyDescription(
      "Laid over the PodDisruptionBudget. Without it, a PDB keeps quorum (minAvailable ="
          + " replicas/2+1) for 2 or more replicas.")
  private EmbeddedPodDisruptionBudget podDisruptionBudgetTemplate;

  @JsonPropertyDescription(
      "Member data: emptyDir or volumeClaimTemplate; with both, emptyDir is used, as aenix does"
          + " (default: a 4Gi PersistentVolumeClaim per member). The kind is immutable after"
          + " creation.")
  private StorageSpec storage;

  @JsonPropertyDescription(
      "TLS and authentication, as aenix v1alpha1 names them: spec.security.tls.* names Secrets,"
          + " spec.security.enableAuth turns on etcd's authentication.")
  private SecuritySpec security;

  @JsonPropertyDescription(
      "How the cluster starts: restore.source makes every member start from a snapshot (aenix"
          + " v1alpha1). Read only until the cluster first forms.")
  private BootstrapSpec bootstrap;

  @JsonPropertyDescription(
      "When to defragment members: a cron schedule (UTC), a fragmentation threshold, or both; one"
          + " member at a time, followers first, the leader last, only while every member is"
          + " healthy. Absent: only to recover from a NOSPACE alarm.")
  private DefragmentationSpec defragmentation;

  @Pattern("^([0-9]+(d|h|m|s))+$")
  @JsonPropertyDescription(
      "How long a member whose node is lost may stay away before it is replaced, e.g. 10m or"
          + " 1h30m. Unset: never replaced automatically. It is replaced only when the others keep"
          + " quorum without it and its data cannot come back: its node was deleted, or its node"
          + " was unreachable for this whole time and its volume cannot follow it to another"
          + " node (a local volume, or emptyDir). It is removed from etcd first, then its pod"
          + " and its node-bound claim are deleted, and it joins again as a new, empty learner.")
  private String replaceLostMemberAfter;

  @Pattern("^(Required|BestEffort|Never)$")
  @JsonPropertyDescription(
      "Whether the operator backs the cluster up before a change it cannot take back: a version"
          + " upgrade, or scaling to 0. It does when an EtcdBackupSchedule names this cluster,"
          + " to that schedule's destination (the first schedule by name), and waits for the"
          + " backup. Required (default): a failed backup holds the change until the backup is"
          + " deleted (it is taken again) or this field says otherwise. BestEffort: the change"
          + " goes on after a failed backup. Never: no backup is taken.")
  private String backupBeforeChanges;

  public String getBackupBeforeChanges() {
    return backupBeforeChanges;
  }

  public void setBackupBeforeChanges(String backupBeforeChanges) {
    this.backupBeforeChanges = backupBeforeChanges;
  }

  public String getReplaceLostMemberAfter() {
    return replaceLostMemberAfter;
  }

  public void setReplaceLostMemberAfter(String replaceLostMemberAfter) {
    this.replaceLostMemberAfter = replaceLostMemberAfter;
  }

  public DefragmentationSpec getDefragmentation() {
    return defragmentation;
  }

  public void setDefragmentation(DefragmentationSpec defragmentation) {
    this.defragmentation = defragmentation;
  }

  public BootstrapSpec getBootstrap() {
    return bootstrap;
  }

  public void setBootstrap(BootstrapSpec bootstrap) {
    this.bootstrap = bootstrap;
  }

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public Map<String, String> getOptions() {
    return options;
  }

  public void setOptions(Map<String, String> options) {
    this.options = options;
  }

  public PodTemplate getPodTemplate() {
    return podTemplate;
  }

  public void setPodTemplate(PodTemplate podTemplate) {
    this.podTemplate = podTemplate;
  }

  public EmbeddedService getServiceTemplate() {
    return serviceTemplate;
  }

  public void setServiceTemplate(EmbeddedService serviceTemplate) {
    this.serviceTemplate = serviceTemplate;
  }

  public EmbeddedService getHeadlessServiceTemplate() {
    return headlessServiceTemplate;
  }

  public void setHeadlessServiceTemplate(EmbeddedService headlessServiceTemplate) {
    this.headlessServiceTemplate = headlessServiceTemplate;
  }

  public EmbeddedPodDisruptionBudget getPodDisruptionBudgetTemplate() {
    return podDisruptionBudgetTemplate;
  }

  public void setPodDisruptionBudgetTemplate(EmbeddedPodDisruptionBudget template) {
    this.podDisruptionBudgetTemplate = template;
  }

  public StorageSpec getStorage() {
    return storage;
  }

  public void setStorage(StorageSpec storage) {
    this.storage = storage;
  }

  public SecuritySpec getSecurity() {
    return security;
  }

  public void setSecurity(SecuritySpec security) {
    this.security = security;
  }
}
