package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.SourceClaim;
import java.util.Optional;

/**
 * A restore from a claim ({@code spec.bootstrap.restore.source.pvc}): every member's pod mounts the
 * claim, read-only, for its restore init container, and keeps it mounted (the template is the same
 * for every member, and the init container does nothing once the member has data). So the claim
 * must exist, and when more than one member's pod mounts it, pods on several nodes do: a claim
 * whose access modes allow one node only (ReadWriteOnce) or one pod (ReadWriteOncePod) cannot serve
 * them, and on a real cluster the second pod waits forever on a Multi-Attach error.
 *
 * <ul>
 *   <li>Before the cluster formed: a missing claim, or a one-node claim for more than one member,
 *       is refused naming the field and the ways on; nothing is created.
 *   <li>Once it formed: a one-node claim holds a scale-up past one member (the new pod would mount
 *       it on another node), until spec.bootstrap.restore is removed: it is read only at bootstrap,
 *       and without it the members' pods no longer mount the claim.
 * </ul>
 */
final class RestoreClaimRules {
  private RestoreClaimRules() {}

  static final String FIELD = "spec.bootstrap.restore.source.pvc.claimName";

  /** The restore's claim before the cluster formed: see the class comment. */
  static final class RestoreClaimUnusable implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<SourceClaim> claim = s.target().restoreClaim();
      if (claim.isEmpty() || s.facts().existed() || s.target().desired().isEmpty()) {
        return Optional.empty();
      }
      SourceClaim c = claim.get();
      String ns = s.namespace();
      if (!c.found()) {
        return Optional.of(
            Decisions.refused(
                s,
                Conditions.RESTORE_SOURCE_UNUSABLE,
                FIELD
                    + ": claim "
                    + c.name()
                    + " does not exist in namespace "
                    + ns
                    + "; create it with the snapshot, or name the claim that holds it"));
      }
      int replicas = s.desired().replicas();
      if (replicas > 1 && c.oneNodeOnly()) {
        return Optional.of(
            Decisions.refused(
                s,
                Conditions.RESTORE_SOURCE_UNUSABLE,
                FIELD + ": " + oneNode(c, replicas + " members' pods")));
      }
      return Optional.empty();
    }
  }

  /** The restore's one-node claim once the cluster formed: no member past the first. */
  static final class RestoreClaimHoldsScaleUp implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<SourceClaim> claim = s.target().restoreClaim();
      int members = MembershipRules.ours(s).size();
      if (claim.isEmpty()
          || !claim.get().oneNodeOnly()
          || members >= s.desired().replicas()
          || members < 1) {
        return Optional.empty();
      }
      String message =
          FIELD
              + ": "
              + oneNode(claim.get(), "a new member's pod")
              + " (spec.bootstrap.restore is read only at bootstrap: removing it restarts the"
              + " members once without the claim, and the scale-up goes on)";
      return Optional.of(
          Decisions.withQuorum(
              s,
              Conditions.RESTORE_SOURCE_UNUSABLE,
              new Step.None(),
              Optional.of(new Decisions.Stuck(Conditions.RESTORE_SOURCE_UNUSABLE, message))));
    }
  }

  private static String oneNode(SourceClaim c, String who) {
    return "claim "
        + c.name()
        + " is "
        + String.join(", ", c.accessModes())
        + ", so only one node can mount it, and "
        + who
        + " would mount it on other nodes too; use a ReadOnlyMany or ReadWriteMany claim,"
        + " restore from S3 (spec.bootstrap.restore.source.s3), or restore one member"
        + " (spec.replicas: 1), then remove spec.bootstrap.restore and scale up";
  }
}
