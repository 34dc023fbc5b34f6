package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import java.util.Objects;

/** An S3-compatible bucket (aenix v1alpha1 field names). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class S3BackupDestination {
  @Required
  @ValidationRule(
      value = "self.startsWith('http://') || self.startsWith('https://')",
      message = "endpoint must start with http:// or https://")
  @JsonPropertyDescription("The object store's URL, e.g. https://s3.eu-west-1.amazonaws.com.")
  private String endpoint;

  @Required
  @ValidationRule(value = "self.size() > 0", message = "bucket is required")
  @JsonPropertyDescription("The bucket.")
  private String bucket;

  @JsonPropertyDescription(
      "For a backup: the prefix under which <backup name>.db and its manifest are written. For a"
          + " restore: the full key of the snapshot object.")
  private String key;

  @Required
  @JsonPropertyDescription(
      "A Secret in the same namespace with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.")
  private LocalObjectReference credentialsSecretRef;

  @JsonPropertyDescription("The region (default us-east-1).")
  private String region;

  @JsonPropertyDescription(
      "Address the bucket in the path (https://host/bucket/key) rather than the host name; most"
          + " S3-compatible servers need it. An endpoint at an IP address is always addressed"
          + " so.")
  private Boolean forcePathStyle;

  public String getEndpoint() {
    return endpoint;
  }

  public void setEndpoint(String endpoint) {
    this.endpoint = endpoint;
  }

  public String getBucket() {
    return bucket;
  }

  public void setBucket(String bucket) {
    this.bucket = bucket;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public LocalObjectReference getCredentialsSecretRef() {
    return credentialsSecretRef;
  }

  public void setCredentialsSecretRef(LocalObjectReference credentialsSecretRef) {
    this.credentialsSecretRef = credentialsSecretRef;
  }

  public String getRegion() {
    return region;
  }

  public void setRegion(String region) {
    this.region = region;
  }

  public Boolean getForcePathStyle() {
    return forcePathStyle;
  }

  public void setForcePathStyle(Boolean forcePathStyle) {
    this.forcePathStyle = forcePathStyle;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof S3BackupDestination d
        && Objects.equals(endpoint, d.endpoint)
        && Objects.equals(bucket, d.bucket)
        && Objects.equals(key, d.key)
        && Objects.equals(credentialsSecretRef, d.credentialsSecretRef)
        && Objects.equals(region, d.region)
        && Objects.equals(forcePathStyle, d.forcePathStyle);
  }

  @Override
  public int hashCode() {
    return Objects.hash(endpoint, bucket, key, credentialsSecretRef, region, forcePathStyle);
  }
}
