package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/** A PersistentVolumeClaim (aenix v1alpha1 field names). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PVCBackupDestination {
  @Required
  @ValidationRule(value = "self.size() > 0", message = "claimName is required")
  @JsonPropertyDescription("The claim, in the same namespace.")
  private String claimName;

  @ValidationRule(
      value = "!self.startsWith('/') && !self.matches('(^|/)[.][.](/|$)')",
      message = "subPath must be a relative path and must not contain '..' components")
  @JsonPropertyDescription(
      "For a backup: the directory within the claim for <backup name>.db and its manifest. For a"
          + " restore: the path of the snapshot file within the claim (default snapshot.db).")
  private String subPath;

  public String getClaimName() {
    return claimName;
  }

  public void setClaimName(String claimName) {
    this.claimName = claimName;
  }

  public String getSubPath() {
    return subPath;
  }

  public void setSubPath(String subPath) {
    this.subPath = subPath;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PVCBackupDestination d
        && Objects.equals(claimName, d.claimName)
        && Objects.equals(subPath, d.subPath);
  }

  @Override
  public int hashCode() {
    return Objects.hash(claimName, subPath);
  }
}
