package io.etcdoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.IntOrString;

/** At most one of minAvailable or maxUnavailable, as on a PodDisruptionBudget. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!(has(self.minAvailable) && has(self.maxUnavailable))",
    message = "spec.podDisruptionBudgetTemplate.spec: set minAvailable or maxUnavailable, not both")
public class PodDisruptionBudgetSpec {
  private IntOrString minAvailable;
  private IntOrString maxUnavailable;

  public IntOrString getMinAvailable() {
    return minAvailable;
  }

  public void setMinAvailable(IntOrString minAvailable) {
    this.minAvailable = minAvailable;
  }

  public IntOrString getMaxUnavailable() {
    return maxUnavailable;
  }

  public void setMaxUnavailable(IntOrString maxUnavailable) {
    this.maxUnavailable = maxUnavailable;
  }
}
