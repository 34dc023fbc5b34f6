package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/** One member as the operator last saw it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "name",
  "id",
  "role",
  "leader",
  "healthy",
  "unhealthySince",
  "version",
  "peerURL",
  "clientURL",
  "message",
  "node",
  "nodeUnreachableSince",
  "lastDefragmentation"
})
public class MemberStatus {
  public static final String VOTER = "Voter";
  public static final String LEARNER = "Learner";

  private String name;
  private String id;
  private String role;
  private Boolean leader;
  private Boolean healthy;
  private String unhealthySince;
  private String version;
  private String peerURL;
  private String clientURL;
  private String message;
  private DefragmentationStatus lastDefragmentation;
  private String node;
  private String nodeUnreachableSince;

  /**
   * Since when the member, healthy before, has not been healthy, RFC 3339; null while it is healthy
   * and for a member not yet healthy since it was listed (a member that is forming or joining).
   */
  public String getUnhealthySince() {
    return unhealthySince;
  }

  public void setUnhealthySince(String unhealthySince) {
    this.unhealthySince = unhealthySince;
  }

  /** The node its pod is bound to, when it has one. */
  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  /**
   * Since when its node has not been Ready (it stopped posting status, or was deleted), RFC 3339;
   * null while the node is Ready or not known.
   */
  public String getNodeUnreachableSince() {
    return nodeUnreachableSince;
  }

  public void setNodeUnreachableSince(String nodeUnreachableSince) {
    this.nodeUnreachableSince = nodeUnreachableSince;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  /** Member ID in hex, as etcdctl prints it; absent for a pod that is not a member. */
  public String getId() {
    return id;
  }

  public void setId(String id) {
    this.id = id;
  }

  /** {@value #VOTER} or {@value #LEARNER}; absent for a pod that is not a member. */
  public String getRole() {
    return role;
  }

  public void setRole(String role) {
    this.role = role;
  }

  public Boolean getLeader() {
    return leader;
  }

  public void setLeader(Boolean leader) {
    this.leader = leader;
  }

  public Boolean getHealthy() {
    return healthy;
  }

  public void setHealthy(Boolean healthy) {
    this.healthy = healthy;
  }

  public String getVersion() {
    return version;
  }

  public void setVersion(String version) {
    this.version = version;
  }

  public String getPeerURL() {
    return peerURL;
  }

  public void setPeerURL(String peerURL) {
    this.peerURL = peerURL;
  }

  public String getClientURL() {
    return clientURL;
  }

  public void setClientURL(String clientURL) {
    this.clientURL = clientURL;
  }

  /** Why the member is not healthy, when it is not. */
  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  /** The member's last defragmentation, when the operator did one. */
  public DefragmentationStatus getLastDefragmentation() {
    return lastDefragmentation;
  }

  public void setLastDefragmentation(DefragmentationStatus lastDefragmentation) {
    this.lastDefragmentation = lastDefragmentation;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MemberStatus m
        && Objects.equals(name, m.name)
        && Objects.equals(id, m.id)
        && Objects.equals(role, m.role)
        && Objects.equals(leader, m.leader)
        && Objects.equals(healthy, m.healthy)
        && Objects.equals(unhealthySince, m.unhealthySince)
        && Objects.equals(version, m.version)
        && Objects.equals(peerURL, m.peerURL)
        && Objects.equals(clientURL, m.clientURL)
        && Objects.equals(message, m.message)
        && Objects.equals(lastDefragmentation, m.lastDefragmentation)
        && Objects.equals(node, m.node)
        && Objects.equals(nodeUnreachableSince, m.nodeUnreachableSince);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        name,
        id,
        role,
        leader,
        healthy,
        unhealthySince,
        version,
        peerURL,
        clientURL,
        message,
        lastDefragmentation,
        node,
        nodeUnreachableSince);
  }
}
