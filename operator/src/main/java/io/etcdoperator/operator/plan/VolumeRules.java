package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Maintenance;
import io.etcdoperator.operator.observe.ClaimView;
import io.etcdoperator.operator.observe.StatefulSetView;
import io.etcdoperator.operator.observe.StorageClassView;
import java.util.Comparator;
import java.util.Optional;

/**
 * Volume expansion: {@value Maintenance#STORAGE_FIELD} raised grows every member's claim, then the
 * StatefulSet is created again with the new claim template (Kubernetes forbids updating it), its
 * pods orphaned and running meanwhile, as other operators do. Nothing restarts; members keep their
 * data. In that order, one step per reconcile: each claim (lowest ordinal first), then the
 * StatefulSet; a claim the API server refuses to grow (its StorageClass does not allow expansion)
 * leaves everything else as it was. Shrinking is refused, naming the field: a volume cannot shrink.
 *
 * <p>Growing a claim is the storage provider's business from there on ({@code status.capacity}
 * follows when the volume has grown); the operator does not wait for it.
 */
final class VolumeRules {
  private VolumeRules() {}

  /**
   * The spec asks for a claim size the cluster cannot have: smaller than the one the StatefulSet's
   * claim template carries (volumes do not shrink), or larger when the claims' StorageClass does
   * not allow expansion. A spec refused: touch nothing. After the other refusals of the spec.
   */
  static final class VolumeSizeRefused implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Maintenance m = s.desired().maintenance();
      Optional<StatefulSetView> sts = s.view().statefulSet();
      if (!s.desired().persistentStorage()
          || m.storageBytes() == 0
          || sts.isEmpty()
          || sts.get().claimBytes() == 0) {
        return Optional.empty();
      }
      long current = sts.get().claimBytes();
      if (m.storageBytes() < current) {
        return Optional.of(
            Decisions.refused(
                s,
                Conditions.VOLUME_SHRINK_REFUSED,
                Maintenance.STORAGE_FIELD
                    + ": "
                    + m.storage()
                    + " is less than the "
                    + Maintenance.human(current)
                    + " the members' claims were made with, and a volume cannot shrink; set it"
                    + " back to "
                    + Maintenance.human(current)
                    + " or more"));
      }
      Optional<StorageClassView> cls = s.view().storageClass();
      boolean growing =
          m.storageBytes() > current
              || s.view().claims().values().stream()
                  .anyMatch(c -> c.requestedBytes() > 0 && c.requestedBytes() < m.storageBytes());
      if (growing && cls.isPresent() && cls.get().allowsExpansion().equals(Optional.of(false))) {
        return Optional.of(
            Decisions.refused(
                s,
                Conditions.VOLUME_EXPANSION_REFUSED,
                Maintenance.STORAGE_FIELD
                    + ": the members' claims cannot grow to "
                    + m.storage()
                    + ": their StorageClass "
                    + cls.get().name()
                    + " does not allow volume expansion (allowVolumeExpansion is not true); set"
                    + " it back to "
                    + Maintenance.human(current)
                    + ", or allow expansion on the StorageClass"));
      }
      return Optional.empty();
    }
  }

  /**
   * Quorum held and claims smaller than the spec asks: grow them, then recreate the StatefulSet.
   * After the membership rules (a member added meanwhile gets its claim from the old template, and
   * is grown next), before the roll rules.
   */
  static final class ExpandVolumes implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Maintenance m = s.desired().maintenance();
      if (!s.desired().persistentStorage()) {
        return Optional.empty();
      }
      long want = m.storageBytes();
      Facts f = s.facts();
      Optional<ClaimView> small =
          f.view().claims().values().stream()
              .filter(c -> !c.terminating() && f.knownOrdinals().contains(c.ordinal()))
              .filter(c -> c.requestedBytes() > 0 && c.requestedBytes() < want)
              .min(Comparator.comparingInt(ClaimView::ordinal));
      if (small.isPresent()) {
        ClaimView c = small.get();
        return Optional.of(
            Decisions.withQuorum(
                s,
                Conditions.EXPANDING_VOLUMES,
                new Step.ResizeClaim(
                    c.ordinal(), c.name(), m.storage(), Maintenance.human(c.requestedBytes()))));
      }
      Optional<StatefulSetView> sts = f.view().statefulSet();
      if (sts.isEmpty() || sts.get().claimBytes() == 0 || sts.get().claimBytes() >= want) {
        return Optional.empty();
      }
      Step step =
          sts.get().terminating()
              ? new Step.Wait("the StatefulSet to be deleted (its pods keep running)")
              : new Step.RecreateStatefulSet(
                  "its claim template asks for "
                      + Maintenance.human(sts.get().claimBytes())
                      + ", the spec for "
                      + m.storage()
                      + ", and a claim template cannot be updated");
      return Optional.of(
          Decisions.leavingStatefulSet(
              Decisions.withQuorum(s, Conditions.EXPANDING_VOLUMES, step)));
    }
  }
}
