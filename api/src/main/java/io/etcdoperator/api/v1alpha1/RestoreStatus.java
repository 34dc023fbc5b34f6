package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** What a cluster was restored from, as recorded in its cluster-state ConfigMap. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RestoreStatus {
  @JsonPropertyDescription("The snapshot: s3://bucket/key or file:///<claim>/<path>.")
  private String source;

  @JsonPropertyDescription("The key-value revision the cluster started at.")
  private Long revision;

  @JsonPropertyDescription("sha256:<hex> of the snapshot file, verified before restoring.")
  private String checksum;

  @JsonPropertyDescription("When the first member finished restoring.")
  private String time;

  public String getSource() {
    return source;
  }

  public void setSource(String source) {
    this.source = source;
  }

  public Long getRevision() {
    return revision;
  }

  public void setRevision(Long revision) {
    this.revision = revision;
  }

  public String getChecksum() {
    return checksum;
  }

  public void setChecksum(String checksum) {
    this.checksum = checksum;
  }

  public String getTime() {
    return time;
  }

  public void setTime(String time) {
    this.time = time;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RestoreStatus r
        && Objects.equals(source, r.source)
        && Objects.equals(revision, r.revision)
        && Objects.equals(checksum, r.checksum)
        && Objects.equals(time, r.time);
  }

  @Override
  public int hashCode() {
    return Objects.hash(source, revision, checksum, time);
  }
}
