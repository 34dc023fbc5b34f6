package io.etcdoperator.operator.plan;

import java.util.List;
import java.util.Optional;

/**
 * What the user asked for, as far as the planner needs it.
 *
 * @param namespace the resource's namespace
 * @param name the resource's name
 * @param generation metadata.generation, echoed as observedGeneration
 * @param desired the resolved spec, absent when the spec is invalid
 * @param problems why the spec is invalid ({@code field: reason}); empty when valid
 */
public record Target(
    String namespace,
    String name,
    long generation,
    Optional<Desired> desired,
    List<String> problems) {
  public Target {
    problems = List.copyOf(problems);
  }

  public static Target valid(String namespace, String name, long generation, Desired desired) {
    return new Target(namespace, name, generation, Optional.of(desired), List.of());
  }

  public static Target invalid(
      String namespace, String name, long generation, List<String> problems) {
    return new Target(namespace, name, generation, Optional.empty(), problems);
  }

  /**
   * The resolved spec.
   *
   * @param replicas desired member count
   * @param podTemplateHash hash of the pod template members should run
   * @param persistentStorage data in claims (else emptyDir, lost with the pod)
   */
  public record Desired(int replicas, String podTemplateHash, boolean persistentStorage) {}
}
