package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the operator wants for one {@code EtcdCluster}, composed once per reconcile from the
 * resource (its metadata and spec, never its status): what the planner needs ({@link Target}) and,
 * when the spec is valid, the desired objects ({@link EtcdClusterModel}).
 *
 * @param target the planner's input
 * @param model the desired objects; empty when the spec is invalid
 */
public record DesiredCluster(Target target, Optional<EtcdClusterModel> model) {

  /** Validates the resource once and composes both halves. */
  public static DesiredCluster of(EtcdCluster cluster) {
    return of(cluster, Names.DEFAULT_OPERATOR_IMAGE, "");
  }

  /** As {@link #of(EtcdCluster)}, with the operator's own image (a restore's init container). */
  public static DesiredCluster of(EtcdCluster cluster, String operatorImage) {
    return of(cluster, operatorImage, "");
  }

  /**
   * Validates the resource once and composes both halves: with the operator's own image (a
   * restore's init container) and {@code trustedCa}, the fingerprint of the CAs members load (from
   * the cluster's Secrets; empty when none is known).
   */
  public static DesiredCluster of(EtcdCluster cluster, String operatorImage, String trustedCa) {
    return of(cluster, operatorImage, trustedCa, TlsMove.NONE);
  }

  /**
   * As {@link #of(EtcdCluster, String, String)}, the members listening on the peer URLs of {@code
   * move} (a running cluster moving its peers to TLS, as observed).
   */
  public static DesiredCluster of(
      EtcdCluster cluster, String operatorImage, String trustedCa, TlsMove move) {
    return of(cluster, operatorImage, trustedCa, move, Optional.empty());
  }

  /**
   * As {@link #of(EtcdCluster, String, String, TlsMove)}, the members presenting the peer Secrets
   * they ran ({@code kept}) while a move off peer TLS serves https.
   */
  public static DesiredCluster of(
      EtcdCluster cluster,
      String operatorImage,
      String trustedCa,
      TlsMove move,
      Optional<PeerSecrets> kept) {
    var meta = cluster.getMetadata();
    long generation = meta.getGeneration() == null ? 0 : meta.getGeneration();
    String optIn =
        meta.getAnnotations() == null
            ? null
            : meta.getAnnotations().get(Names.REBUILD_OPT_IN_ANNOTATION);
    Target.Rebuild rebuild = Target.Rebuild.of(meta.getUid(), optIn);
    try {
      EtcdClusterModel model = EtcdClusterModel.of(cluster, operatorImage, trustedCa, move, kept);
      Target.Desired desired =
          new Target.Desired(
              model.replicas(),
              model.podTemplateHash(),
              model.usesPersistentStorage(),
              model.clusterToken(),
              model.etcdImage(),
              model.claimPolicy(),
              model.restoreSource().map(RestorePods::sourceUri),
              model.security(),
              model.maintenance());
      return new DesiredCluster(
          Target.valid(meta.getNamespace(), meta.getName(), generation, desired)
              .withRebuild(rebuild)
              .withPaused(paused(meta.getAnnotations()))
              .withReplaceLostMemberAfter(
                  Durations.parse(cluster.getSpec().getReplaceLostMemberAfter())),
          Optional.of(model));
    } catch (InvalidSpecException e) {
      List<String> problems = e.problems().stream().map(SpecProblem::toString).toList();
      return new DesiredCluster(
          Target.invalid(meta.getNamespace(), meta.getName(), generation, problems)
              .withPaused(paused(meta.getAnnotations())),
          Optional.empty());
    }
  }

  /** {@value Names#PAUSED_ANNOTATION}: "true" (any case) pauses; anything else does not. */
  static boolean paused(Map<String, String> annotations) {
    String value = annotations == null ? null : annotations.get(Names.PAUSED_ANNOTATION);
    return value != null && value.trim().equalsIgnoreCase("true");
  }
}
