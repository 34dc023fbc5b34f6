package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the operator observed of the real etcd cluster at its last reconcile. An output only: the
 * operator recomputes it from the world every time and never reads it to decide anything.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "observedGeneration",
  "conditions",
  "clusterID",
  "clusterVersion",
  "leader",
  "replicas",
  "readyMembers",
  "members",
  "lastRebuild",
  "restore",
  "certificates",
  "selector"
})
public class EtcdClusterStatus {
  @JsonPropertyDescription("The spec generation this status was computed for.")
  private Long observedGeneration;

  @JsonPropertyDescription(
      "Available (quorum), Ready (every member a healthy voter whose pod is Ready, so an"
          + " endpoint of the client Service), Progressing, Degraded.")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("The etcd cluster ID (hex) reported by the members.")
  private String clusterID;

  @JsonPropertyDescription(
      "The cluster version etcd reports (the version every member runs at least; etcd raises it"
          + " once all members run a newer one and never lowers it).")
  private String clusterVersion;

  @JsonPropertyDescription("Name of the member that leads, if any.")
  private String leader;

  @StatusReplicas
  @JsonPropertyDescription("Members in the etcd member list (voters and learners).")
  private Integer replicas;

  @JsonPropertyDescription("Members that answer, are voters, and see the leader.")
  private Integer readyMembers;

  @JsonPropertyDescription(
      "Every member in the member list, and every expected pod that is not one.")
  private List<MemberStatus> members = new ArrayList<>();

  @JsonPropertyDescription(
      "The last rebuild from a survivor after a majority lost its data, if any.")
  private RebuildStatus lastRebuild;

  @JsonPropertyDescription(
      "The snapshot the cluster was restored from, when it started from one; or, while a restore"
          + " is refused, what is wrong with its source.")
  private RestoreStatus restore;

  @JsonPropertyDescription(
      "The certificates of spec.security.tls, each with its expiry, as read from their"
          + " Secrets.")
  private List<CertificateStatus> certificates;

  @LabelSelector
  @JsonPropertyDescription("Label selector of the member pods (for the scale subresource).")
  private String selector;

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public String getClusterID() {
    return clusterID;
  }

  public void setClusterID(String clusterID) {
    this.clusterID = clusterID;
  }

  public String getClusterVersion() {
    return clusterVersion;
  }

  public void setClusterVersion(String clusterVersion) {
    this.clusterVersion = clusterVersion;
  }

  public String getLeader() {
    return leader;
  }

  public void setLeader(String leader) {
    this.leader = leader;
  }

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public Integer getReadyMembers() {
    return readyMembers;
  }

  public void setReadyMembers(Integer readyMembers) {
    this.readyMembers = readyMembers;
  }

  public List<MemberStatus> getMembers() {
    return members;
  }

  public void setMembers(List<MemberStatus> members) {
    this.members = members;
  }

  public RebuildStatus getLastRebuild() {
    return lastRebuild;
  }

  public void setLastRebuild(RebuildStatus lastRebuild) {
    this.lastRebuild = lastRebuild;
  }

  public RestoreStatus getRestore() {
    return restore;
  }

  public void setRestore(RestoreStatus restore) {
    this.restore = restore;
  }

  public List<CertificateStatus> getCertificates() {
    return certificates;
  }

  public void setCertificates(List<CertificateStatus> certificates) {
    this.certificates = certificates;
  }

  public String getSelector() {
    return selector;
  }

  public void setSelector(String selector) {
    this.selector = selector;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EtcdClusterStatus s
        && Objects.equals(observedGeneration, s.observedGeneration)
        && Objects.equals(conditions, s.conditions)
        && Objects.equals(clusterID, s.clusterID)
        && Objects.equals(clusterVersion, s.clusterVersion)
        && Objects.equals(leader, s.leader)
        && Objects.equals(replicas, s.replicas)
        && Objects.equals(readyMembers, s.readyMembers)
        && Objects.equals(members, s.members)
        && Objects.equals(lastRebuild, s.lastRebuild)
        && Objects.equals(restore, s.restore)
        && Objects.equals(certificates, s.certificates)
        && Objects.equals(selector, s.selector);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        observedGeneration,
        conditions,
        clusterID,
        clusterVersion,
        leader,
        replicas,
        readyMembers,
        members,
        lastRebuild,
        restore,
        certificates,
        selector);
  }
}
