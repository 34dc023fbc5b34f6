package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.kubernetes.api.model.Quantity;

/**
 * A member is defragmented when the part of its database file not in use (etcd's {@code dbSize -
 * dbSizeInUse}) is at least {@code percent} of the file and at least {@code minReclaimable}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"percent", "minReclaimable"})
public class DefragmentationThreshold {
  public static final int DEFAULT_PERCENT = 50;
  public static final String DEFAULT_MIN_RECLAIMABLE = "64Mi";

  @Min(1)
  @Max(99)
  @JsonPropertyDescription(
      "Percent of the database file not in use at or above which a member is defragmented"
          + " (default 50).")
  private Integer percent;

  @JsonPropertyDescription(
      "And only when at least this much would be given back (default 64Mi): a small database"
          + " gains nothing from it, and its member serves nothing while it runs.")
  private Quantity minReclaimable;

  public Integer getPercent() {
    return percent;
  }

  public void setPercent(Integer percent) {
    this.percent = percent;
  }

  public Quantity getMinReclaimable() {
    return minReclaimable;
  }

  public void setMinReclaimable(Quantity minReclaimable) {
    this.minReclaimable = minReclaimable;
  }
}
