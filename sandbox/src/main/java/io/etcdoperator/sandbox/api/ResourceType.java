package io.etcdoperator.sandbox.api;

import java.util.List;

/**
 * One kind of object the sandbox's API server serves, as discovery documents describe it.
 *
 * @param group API group, empty for the core group
 * @param version API version
 * @param plural resource name in URLs
 * @param kind object kind
 * @param namespaced whether objects live in a namespace
 * @param shortNames kubectl aliases
 * @param statusSubresource whether {@code /status} is a separate subresource
 * @param scale the scale subresource, or null
 * @param printerColumns extra columns {@code kubectl get} shows (custom resources only)
 */
public record ResourceType(
    String group,
    String version,
    String plural,
    String kind,
    boolean namespaced,
    List<String> shortNames,
    boolean statusSubresource,
    Scale scale,
    List<PrinterColumn> printerColumns) {

  /**
   * Where a scale subresource finds its replica counts, as JSON paths such as {@code
   * .spec.replicas}.
   */
  public record Scale(
      String specReplicasPath, String statusReplicasPath, String labelSelectorPath) {}

  /** A column of {@code kubectl get}: header name, value type and JSON path. */
  public record PrinterColumn(String name, String type, String jsonPath, int priority) {}

  /** {@code group/version}, or just the version for the core group. */
  public String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** The URL prefix of this group version: {@code /api/v1} or {@code /apis/<group>/<version>}. */
  public String prefix() {
    return group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
  }

  static ResourceType builtIn(
      String group,
      String plural,
      String kind,
      boolean namespaced,
      boolean status,
      Scale scale,
      String... shortNames) {
    String version = "v1";
    return new ResourceType(
        group, version, plural, kind, namespaced, List.of(shortNames), status, scale, List.of());
  }
}
