package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * What a complete backup holds: aenix's {@code uri}, {@code sizeBytes} and {@code checksum}, and
 * what they lack: the revision, cluster ID, etcd version and the member it was taken from.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "uri",
  "sizeBytes",
  "checksum",
  "revision",
  "clusterID",
  "etcdVersion",
  "member",
  "manifest"
})
public class BackupSnapshot {
  @JsonPropertyDescription("Where the snapshot is: s3://bucket/key or file:///<claim>/<path>.")
  private String uri;

  @JsonPropertyDescription(
      "Size of the snapshot file in bytes: the database and the 32-byte sha256 etcd appends.")
  private Long sizeBytes;

  @JsonPropertyDescription(
      "sha256:<hex> of the whole snapshot file, as sha256sum prints it; checked before a restore.")
  private String checksum;

  @JsonPropertyDescription("The key-value revision the snapshot holds (every write up to it).")
  private Long revision;

  @JsonPropertyDescription("The etcd cluster ID (hex) the snapshot was taken from.")
  private String clusterID;

  @JsonPropertyDescription("The etcd version of the member it was taken from.")
  private String etcdVersion;

  @JsonPropertyDescription("The member it was taken from.")
  private String member;

  @JsonPropertyDescription(
      "Where the manifest is (written last: a snapshot without one may be incomplete).")
  private String manifest;

  public String getUri() {
    return uri;
  }

  public void setUri(String uri) {
    this.uri = uri;
  }

  public Long getSizeBytes() {
    return sizeBytes;
  }

  public void setSizeBytes(Long sizeBytes) {
    this.sizeBytes = sizeBytes;
  }

  public String getChecksum() {
    return checksum;
  }

  public void setChecksum(String checksum) {
    this.checksum = checksum;
  }

  public Long getRevision() {
    return revision;
  }

  public void setRevision(Long revision) {
    this.revision = revision;
  }

  public String getClusterID() {
    return clusterID;
  }

  public void setClusterID(String clusterID) {
    this.clusterID = clusterID;
  }

  public String getEtcdVersion() {
    return etcdVersion;
  }

  public void setEtcdVersion(String etcdVersion) {
    this.etcdVersion = etcdVersion;
  }

  public String getMember() {
    return member;
  }

  public void setMember(String member) {
    this.member = member;
  }

  public String getManifest() {
    return manifest;
  }

  public void setManifest(String manifest) {
    this.manifest = manifest;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BackupSnapshot s
        && Objects.equals(uri, s.uri)
        && Objects.equals(sizeBytes, s.sizeBytes)
        && Objects.equals(checksum, s.checksum)
        && Objects.equals(revision, s.revision)
        && Objects.equals(clusterID, s.clusterID)
        && Objects.equals(etcdVersion, s.etcdVersion)
        && Objects.equals(member, s.member)
        && Objects.equals(manifest, s.manifest);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        uri, sizeBytes, checksum, revision, clusterID, etcdVersion, member, manifest);
  }
}
